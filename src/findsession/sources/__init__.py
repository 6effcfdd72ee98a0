"""Transcript sources, one module per agent format, behind the `Source` protocol.

A new format is a module with a class deriving from `Source`, the rule for its standard
places in `places`, and one entry in `registry.ENTRIES` (its kind, its class, its place
rule, what people call its agent, the environment variables that move where it reads);
nothing else names it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from findsession.lazy import exports
from findsession.sources.registry import (
    ENTRIES,
    ENVIRONMENT,
    HANDOFF_AGENTS,
    IN_PROJECT,
    KINDS,
    NAMED_ENVIRONMENT,
    PLACES,
    SOURCES,
    SPOKEN_NAMES,
    Entry,
    SourceKind,
)

if TYPE_CHECKING:
    from findsession.sources.base import Skip, Source, SourceFile
    from findsession.sources.cursor import Cursor, Reading

#: The protocol's names, imported when first asked for (PEP 562): the registry alone (the
#: kinds a command line offers) must not load every source's machinery.
_HOMES = {
    "Skip": "base",
    "Source": "base",
    "SourceFile": "base",
    "Cursor": "cursor",
    "Reading": "cursor",
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
    "ENTRIES",
    "ENVIRONMENT",
    "NAMED_ENVIRONMENT",
    "HANDOFF_AGENTS",
    "IN_PROJECT",
    "KINDS",
    "PLACES",
    "SOURCES",
    "SPOKEN_NAMES",
    "Cursor",
    "Entry",
    "Reading",
    "SIDE_FILES",
    "Skip",
    "Source",
    "SourceFile",
    "SourceKind",
    "file_stamp",
    "main_file",
]


__getattr__, __dir__ = exports(__name__, _HOMES)
