"""The domain, as plain dataclasses shared by every layer.

`records`: what a transcript becomes (messages, turns, sessions); `answers`: what the
index answers with (hits, confidence, status, audit records); `writes`: the files a
session's tool calls wrote; `handoff`: a brief to carry a session on; `blame`: the
sessions that wrote a file. Import from here.
"""

from findsession.domain.answers import (
    ArchiveStatus,
    AuditRecord,
    Confidence,
    Exclusions,
    Hit,
    IdMatch,
    IndexStatus,
    Level,
    ScoreParts,
    SearchResponse,
    SourceCounts,
    SourceReport,
)
from findsession.domain.blame import Blame, BlameLine, Writer
from findsession.domain.handoff import Brief, CommandRun, FileChange
from findsession.domain.records import (
    COMPACTION_AGENT,
    Message,
    MessageKind,
    MetaEvent,
    MetaKind,
    Problem,
    Restore,
    Restored,
    Resume,
    Root,
    Session,
    Turn,
)
from findsession.domain.writes import FileWrite

__all__ = [
    "COMPACTION_AGENT",
    "ArchiveStatus",
    "AuditRecord",
    "Blame",
    "BlameLine",
    "Brief",
    "CommandRun",
    "Confidence",
    "Exclusions",
    "FileChange",
    "FileWrite",
    "Hit",
    "IdMatch",
    "IndexStatus",
    "Level",
    "Message",
    "MessageKind",
    "MetaEvent",
    "MetaKind",
    "Problem",
    "Restore",
    "Restored",
    "Resume",
    "Root",
    "ScoreParts",
    "SearchResponse",
    "Session",
    "SourceCounts",
    "SourceReport",
    "Turn",
    "Writer",
]
