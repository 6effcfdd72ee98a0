"""The domain, as plain dataclasses shared by every layer.

`records`: what a transcript becomes (messages, turns, sessions); `answers`: what the
index answers with (hits, confidence, status, audit records). Import from here.
"""

from findsession.domain.answers import (
    AuditRecord,
    Confidence,
    Exclusions,
    Hit,
    IndexStatus,
    Level,
    ScoreParts,
    SearchResponse,
    SourceCounts,
    SourceReport,
)
from findsession.domain.records import (
    Message,
    MessageKind,
    MetaEvent,
    MetaKind,
    Problem,
    Resume,
    Root,
    Session,
    SourceKind,
    Turn,
)

__all__ = [
    "AuditRecord",
    "Confidence",
    "Exclusions",
    "Hit",
    "IndexStatus",
    "Level",
    "Message",
    "MessageKind",
    "MetaEvent",
    "MetaKind",
    "Problem",
    "Resume",
    "Root",
    "ScoreParts",
    "SearchResponse",
    "Session",
    "SourceCounts",
    "SourceKind",
    "SourceReport",
    "Turn",
]
