"""Transcript sources, one module per agent format, behind the `Source` protocol.

A new format is a module with a `Source` class and one line here.
"""

from __future__ import annotations

from findsession.sources.aider import AiderSource
from findsession.sources.base import Skip, Source, SourceFile
from findsession.sources.claude_code import ClaudeCodeSource
from findsession.sources.codex import CodexSource
from findsession.sources.cursor import Cursor, Reading
from findsession.sources.gemini import GeminiSource
from findsession.sources.journal import JournalSource
from findsession.sources.markdown import MarkdownSource
from findsession.sources.memory import MemorySource

SOURCES: dict[str, Source] = {
    s.kind: s
    for s in (
        ClaudeCodeSource(),
        CodexSource(),
        AiderSource(),
        GeminiSource(),
        MarkdownSource(),
        JournalSource(),
        MemorySource(),
    )
}
#: What people call each agent when they ask for one of its sessions ("the Codex chat
#: where..."); search favours the sessions of an agent the query names.
SPOKEN_NAMES: dict[str, tuple[str, ...]] = {
    ClaudeCodeSource.kind: ("claude",),
    CodexSource.kind: ("codex",),
    GeminiSource.kind: ("gemini",),
    AiderSource.kind: ("aider",),
}
#: The format of a folder named without one (`findsession index PATH`, a bare config root).
DEFAULT_SOURCE = ClaudeCodeSource.kind

__all__ = [
    "DEFAULT_SOURCE",
    "SOURCES",
    "SPOKEN_NAMES",
    "Cursor",
    "Reading",
    "Skip",
    "Source",
    "SourceFile",
]
