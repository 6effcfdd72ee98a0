"""A store an agent keeps inside each project, in the schema Crush has: one reader for
Crush's `.crush/crush.db` and the first OpenCode's `.opencode/opencode.db`.

Crush grew out of OpenCode's first generation (the Go program, before OpenCode was
rewritten): both keep a project's sessions in `<project>/<folder>/<name>.db` with the
same `sessions` and `messages` tables (Crush added columns later; `crush_db` asks only
for the columns a file has). What differs between the two is data, a `ProjectStore`:
the folder and file name, and the agent's name in what is reported. Which source kind
a store is indexed as, and how its agent resumes a session, stay with the source that
owns it (`crush`, `opencode`).

One database holds many sessions, each indexed as `<file id>:<the agent's session id>`;
only the sessions whose change token moved are read again (`foreign_db`).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from findsession.domain import Message, Problem
from findsession.sources import crush_db, foreign_db
from findsession.sources.base import Skip
from findsession.sources.crush_records import session_records
from findsession.sources.cursor import Cursor, Reading, Record
from findsession.sources.places.projects import ProjectStore

#: Folders a walk for a project's store never enters: too big, and no project's own.
_HEAVY = frozenset(
    {"node_modules", "__pycache__", "venv", "site-packages", "dist-packages", "target"}
)


def walk(root: Path, store: ProjectStore, skip: Skip) -> Iterator[Path]:
    """Every `<folder>/<db_name>` under `root`, not entering hidden folders (but the
    store's own) or dependency folders."""

    def unreadable(exc: OSError) -> None:
        if exc.filename:
            skip(Path(exc.filename), f"cannot read the folder: {exc.strerror or exc}")

    for folder, dirs, names in os.walk(root, onerror=unreadable, followlinks=False):
        if os.path.basename(folder) == store.folder:
            dirs[:] = []
            if store.db_name in names:
                yield Path(folder) / store.db_name
            continue
        dirs[:] = sorted(
            d for d in dirs if d == store.folder or not (d.startswith(".") or d in _HEAVY)
        )


def is_one(path: Path) -> bool:
    """True when the database at `path` has the tables of this schema (one read-only
    look at its table list)."""
    with foreign_db.reading(path) as conn:
        return crush_db.missing_tables(conn) is None


def read(
    path: Path, fh: IO[bytes], cursor: Cursor | None, store: ProjectStore, cwd: str | None
) -> Reading:
    """The sessions whose token moved since `cursor`, each whole (`fh` is not read: the
    database is opened read-only by path); `cwd` is the project's folder."""
    size = os.fstat(fh.fileno()).st_size
    return foreign_db.read_changed(path, size, cursor, lambda conn: _survey(conn, store, cwd))


def _survey(
    conn: foreign_db.Conn, store: ProjectStore, cwd: str | None
) -> foreign_db.Survey | Problem:
    """The sessions of a project's store, by id, each read with its messages' rows."""
    why = crush_db.missing_tables(conn, store.agent)
    if why is not None:
        return Problem(0, "unknown database", why)
    rows = crush_db.sessions(conn)
    problems: list[Problem] = []
    tally = foreign_db.Tally()

    def records(todo: set[str]) -> list[Record]:
        read: list[Record] = []
        for row in rows:
            if row.id not in todo:
                continue
            messages = crush_db.messages(conn, row.id)
            tally.rows += len(messages)
            tally.bytes += sum(len(m.parts) for m in messages if isinstance(m.parts, str))
            parent = row.parent or crush_db.parent_by_call(conn, row.id)
            read += session_records(row, messages, parent, cwd, problems)
        return read

    tokens = {row.id: row.token for row in rows}
    return foreign_db.Survey(tokens, {row.id: row.rank for row in rows}, records, problems, tally)


def read_back(path: Path, lines: set[int]) -> dict[tuple[int, int], str]:
    """Each wanted message as the database holds it now, numbered as `read` did."""
    ranks = {foreign_db.position_of(line)[0] for line in lines}
    texts: dict[tuple[int, int], str] = {}
    with foreign_db.reading(path) as conn:
        if crush_db.missing_tables(conn) is not None:
            return texts
        for row in crush_db.sessions(conn):
            if row.rank not in ranks:
                continue
            records = session_records(row, crush_db.messages(conn, row.id), None, None, [])
            parts: dict[int, int] = {}
            for rec in records:  # numbered as the indexer numbers a line's records
                part = parts.get(rec.line, 0)
                parts[rec.line] = part + 1
                if isinstance(rec, Message) and rec.line in lines:
                    texts[(rec.line, part)] = rec.text
    return texts
