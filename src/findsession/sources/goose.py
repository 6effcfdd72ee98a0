"""Goose sessions: where they are, what a file is, and the `Source` that reads them.

Goose keeps its sessions in its data folder's `sessions/`: since 1.10 all of them in one
SQLite database, `sessions.db` (`goose_store`, through `goose_db`'s queries), and before
that one `<name>.jsonl` per session (`goose_legacy`), which Goose leaves in place after
importing them. The folder is `$GOOSE_PATH_ROOT/data/sessions` when that variable holds
an absolute path; else Goose's data folder by the XDG convention on every system but
Windows (the `etcetera` crate's default app strategy: `$XDG_DATA_HOME/goose`, else
`~/.local/share/goose`, on macOS too) and `%APPDATA%\\Block\\goose\\data` on Windows.

A database holds many sessions: it is described as a file of sibling sessions, each
indexed as `<file id>:<Goose's session id>`. A `.jsonl` session gets the id the database
beside it gives the same session once Goose imports it, so the two never make two
sessions.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from findsession.domain import Resume, Session
from findsession.sources import foreign_db
from findsession.sources.base import Skip, Source, SourceFile, store_id
from findsession.sources.cursor import Cursor, Reading
from findsession.sources.goose_legacy import STORE_NAME, read_back_legacy, read_legacy
from findsession.sources.goose_store import read_back_store, read_store
from findsession.sources.registry import SourceKind
from findsession.sources.resuming import option, resume_in_cwd

KIND = SourceKind.GOOSE


class GooseSource(Source):
    """Goose's `sessions/` folder: `sessions.db`, and the older `*.jsonl` sessions."""

    kind = KIND
    #: A commit waiting in `sessions.db-wal` is a change of the database.
    companions = foreign_db.COMPANIONS
    #: 2: a subagent's session keeps its own title (its parent link had taken the title's
    #: line in the index).
    reads = 2

    def discover(self, root: Path, skip: Skip) -> Iterator[Path]:
        """`sessions.db` and the `*.jsonl` sessions under `root` (the sessions folder, a
        copy of it, or one file). Symlinked folders are not followed."""
        if root.is_file():
            if _is_store(root.name) or root.name.endswith(".jsonl"):
                yield root
            return

        def unreadable(exc: OSError) -> None:
            if exc.filename:
                skip(Path(exc.filename), f"cannot read the folder: {exc.strerror or exc}")

        for folder, dirs, files in os.walk(root, onerror=unreadable, followlinks=False):
            dirs.sort()
            for name in sorted(files):
                if _is_store(name) or name.endswith(".jsonl"):
                    yield Path(folder) / name

    def describe(self, path: Path) -> SourceFile:
        if _is_store(path.name):
            return SourceFile(path, KIND, session_id=file_id(path), sibling_sessions=True)
        return SourceFile(path=path, source=KIND, session_id=legacy_session_id(path))

    def read(self, sf: SourceFile, fh: IO[bytes], cursor: Cursor | None) -> Reading:
        # `fh` is the database file itself: it is read through SQLite, never as bytes.
        if sf.sibling_sessions:
            return read_store(sf.path, cursor)
        return read_legacy(sf.path, fh, cursor)

    def read_back(self, path: Path, lines: set[int]) -> dict[tuple[int, int], str]:
        if _is_store(path.name):
            return read_back_store(path, lines)
        return read_back_legacy(path, lines)

    def resume(self, session: Session) -> Resume:
        """`goose session --resume --session-id <id>` (Goose's documented form since its
        sessions have ids), run in the session's working directory; for a session read
        from an older `.jsonl`, `--name <name>`, the form those versions took (the file's
        name is the session's)."""
        key = foreign_db.agent_id(session.id)
        by = "--name" if (session.file_path or "").endswith(".jsonl") else "--session-id"
        return resume_in_cwd(session, "goose", "session", "--resume", *option(by, key))

    def title_line(self, sf: SourceFile, title: str) -> bytes | None:
        """None: a title lives in the session's database row (or, in an older file, on
        its first line), not in a line that could be appended."""
        return None


def file_id(path: Path) -> str:
    """The id of a session database: `goose-` and a hash of its path. Its sessions are
    `<file id>:<Goose's session id>`, short enough to type and never a path."""
    return store_id("goose", path)


def legacy_session_id(path: Path) -> str:
    """A `.jsonl` session's id: the one the `sessions.db` beside it gives the session
    once Goose has imported it (its id there is the file's name)."""
    return f"{file_id(path.parent / STORE_NAME)}:{path.stem}"


def _is_store(name: str) -> bool:
    return name == STORE_NAME
