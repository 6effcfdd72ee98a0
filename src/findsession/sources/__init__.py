"""Transcript sources, one module per agent format, behind the `Source` protocol.

A new format is a module with a `Source` class and one line here.

The registry names each source's module rather than importing it: a search reads one
or two formats' resume commands, `--help` none, and importing every parser (YAML,
Markdown, zstandard among them) cost a cold command a third of its imports. A source
is imported, and made, the first time its kind is looked up.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from importlib import import_module
from pathlib import Path

from findsession.domain import SourceKind
from findsession.sources.base import Skip, Source, SourceFile
from findsession.sources.cursor import Cursor, Reading


class _Registry(Mapping[str, Source]):
    """Every source by kind, in a fixed order; each made on first use, then kept."""

    def __init__(self, homes: dict[str, str]) -> None:
        self._homes = homes  # kind -> "module:Class"
        self._made: dict[str, Source] = {}

    def __getitem__(self, kind: str) -> Source:
        source = self._made.get(kind)
        if source is None:
            module, name = self._homes[kind].split(":")
            source = self._made[kind] = getattr(import_module(module), name)()
        return source

    def __contains__(self, kind: object) -> bool:  # a name check imports nothing
        return kind in self._homes

    def __iter__(self) -> Iterator[str]:
        return iter(self._homes)

    def __len__(self) -> int:
        return len(self._homes)


SOURCES: Mapping[str, Source] = _Registry(
    {
        SourceKind.CLAUDE_CODE: "findsession.sources.claude_code:ClaudeCodeSource",
        SourceKind.CODEX: "findsession.sources.codex:CodexSource",
        SourceKind.AIDER: "findsession.sources.aider:AiderSource",
        SourceKind.GEMINI: "findsession.sources.gemini:GeminiSource",
        SourceKind.QWEN: "findsession.sources.qwen:QwenSource",
        SourceKind.DROID: "findsession.sources.droid:DroidSource",
        SourceKind.PI: "findsession.sources.pi:PiSource",
        SourceKind.COPILOT_CLI: "findsession.sources.copilot_cli:CopilotCliSource",
        SourceKind.CURSOR_AGENT: "findsession.sources.cursor_agent:CursorAgentSource",
        SourceKind.VSCODE_COPILOT: "findsession.sources.vscode_copilot:VSCodeCopilotSource",
        SourceKind.CLINE: "findsession.sources.extension_tasks:ClineSource",
        SourceKind.ROO_CODE: "findsession.sources.extension_tasks:RooCodeSource",
        SourceKind.AMP: "findsession.sources.amp:AmpSource",
        SourceKind.OPENCODE: "findsession.sources.opencode:OpenCodeSource",
        SourceKind.KILO_CODE: "findsession.sources.opencode:KiloCodeSource",
        SourceKind.GOOSE: "findsession.sources.goose:GooseSource",
        SourceKind.CRUSH: "findsession.sources.crush:CrushSource",
        SourceKind.KIRO: "findsession.sources.kiro:KiroSource",
        SourceKind.CURSOR: "findsession.sources.cursor_ide:CursorIdeSource",
        SourceKind.WINDSURF: "findsession.sources.cursor_ide:WindsurfSource",
        SourceKind.SPECSTORY: "findsession.sources.specstory:SpecStorySource",
        SourceKind.MARKDOWN: "findsession.sources.markdown:MarkdownSource",
        SourceKind.JOURNAL: "findsession.sources.journal:JournalSource",
        SourceKind.MEMORY: "findsession.sources.memory:MemorySource",
    }
)
#: What people call each agent when they ask for one of its sessions ("the Codex chat
#: where..."); search favours the sessions of an agent the query names.
SPOKEN_NAMES: dict[str, tuple[str, ...]] = {
    SourceKind.CLAUDE_CODE: ("claude",),
    SourceKind.CODEX: ("codex",),
    SourceKind.GEMINI: ("gemini",),
    SourceKind.AIDER: ("aider",),
    SourceKind.QWEN: ("qwen",),
    SourceKind.DROID: ("droid",),
    # "pi" is the number far more often than the agent: no query is taken to name it.
    SourceKind.PI: (),
    SourceKind.COPILOT_CLI: ("copilot",),
    SourceKind.CURSOR_AGENT: ("cursor-agent",),  # "cursor" alone is a word of code talk
    SourceKind.VSCODE_COPILOT: ("vscode", "copilot"),
    SourceKind.CLINE: ("cline",),
    SourceKind.ROO_CODE: ("roo",),
    SourceKind.AMP: ("amp",),
    SourceKind.OPENCODE: ("opencode",),
    SourceKind.KILO_CODE: ("kilo",),
    SourceKind.GOOSE: ("goose",),
    SourceKind.CRUSH: ("crush",),
    SourceKind.KIRO: ("kiro",),
    # "cursor" alone is code talk (a database, pagination or text cursor): taken for the
    # editor it would nudge the editor's chats up for every such query and drop the word
    # from the query's coverage. "composer" is PHP's package manager.
    SourceKind.CURSOR: ("cursor-ide",),
    SourceKind.WINDSURF: ("windsurf",),
    SourceKind.SPECSTORY: ("specstory",),
}
#: Files a database keeps beside itself while its agent writes (`-wal`: commits waiting
#: for a checkpoint; `-shm`, `-journal`): a change to one is a change of the database.
SIDE_FILES = ("-wal", "-shm", "-journal")


def file_stamp(kind: str, path: Path, st: os.stat_result) -> tuple[int, int]:
    """The size and time that say whether a file changed since it was read: its own,
    folded with those of the `companions` its source names (a database's write-ahead
    log, where an agent's commits wait while the database file itself stays as it was),
    and those of any other paths its `stamp_paths(path)` names (the folders an older
    OpenCode session's messages and parts are added to). An empty companion holds no
    commit: SQLite makes an empty `-wal` for any reader of a WAL database that had none,
    our own read included, and that is no change."""
    source = SOURCES[kind]
    size, mtime = st.st_size, st.st_mtime_ns
    companions = [f"{path}{suffix}" for suffix in source.companions]
    others = [str(p) for p in source.stamp_paths(path)]
    for other_path in [*companions, *others]:
        try:
            other = os.stat(other_path)
        except OSError:
            continue
        if other.st_size == 0 and other_path in companions:
            continue
        size += other.st_size
        mtime = max(mtime, other.st_mtime_ns)
    return size, mtime


def main_file(path: str) -> str | None:
    """The database a side file (`x.db-wal`) belongs to, or None for any other path."""
    for suffix in SIDE_FILES:
        if path.endswith(suffix):
            return path[: -len(suffix)]
    return None


#: The format of a folder named without one (`findsession index PATH`, a bare config root).
DEFAULT_SOURCE = SourceKind.CLAUDE_CODE

__all__ = [
    "DEFAULT_SOURCE",
    "SOURCES",
    "SPOKEN_NAMES",
    "Cursor",
    "Reading",
    "SIDE_FILES",
    "Skip",
    "Source",
    "SourceFile",
    "file_stamp",
    "main_file",
]
