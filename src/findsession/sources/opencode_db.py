"""The queries that read OpenCode's SQLite store (and Kilo Code's, the same schema).

OpenCode 1.2 and later keep every session in `opencode.db`: `project(id, worktree)`,
`session(id, project_id, parent_id, directory, title, time_created, time_updated)`,
`message(id, session_id, time_created, time_updated, data)` and `part(id, message_id,
session_id, time_created, time_updated, data)`, `data` being the JSON OpenCode used to
keep in one file per message or part. Only reads are here (the connection comes from
`foreign_db.reading`); building records from the rows is `opencode_records`' job.
Columns are looked up first: the schema has changed between OpenCode's versions, and a
column that is missing is read as empty rather than failing the query.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from findsession.sources.foreign_db import columns, picker

#: What a store must have to be read at all.
REQUIRED = {
    "session": ("id",),
    "message": ("id", "session_id", "data"),
    "part": ("id", "message_id", "session_id", "data"),
}
#: Values bound in one `IN (...)` list.
_BATCH = 500


@dataclass(frozen=True, slots=True)
class SessionRow:
    """One session's row, with its project's worktree as a fallback directory."""

    id: str
    rank: int  # the row id: orders the session's line numbers in the file
    parent_id: str | None
    directory: str | None
    title: str | None
    time_created: int | None


def missing(conn: sqlite3.Connection) -> list[str]:
    """`table.column`s the store lacks (empty for a store this reader understands)."""
    gaps = []
    for table, needed in REQUIRED.items():
        have = columns(conn, table)
        gaps += [f"{table}.{name}" for name in needed if name not in have]
    return gaps


def session_tokens(conn: sqlite3.Connection) -> dict[str, str]:
    """Each session's change token, in one aggregate query: its row id (a rebuilt table
    renumbers rows, and line numbers follow them), its `time_updated`, and the count
    and latest `time_updated` of its parts (OpenCode rewrites a part in place while it
    streams, without touching the session row)."""
    have_s, have_p = columns(conn, "session"), columns(conn, "part")
    updated = "s.time_updated" if "time_updated" in have_s else "''"
    latest = "max(p.time_updated)" if "time_updated" in have_p else "max(p.rowid)"
    query = (
        f"SELECT s.id, s.rowid, {updated}, count(p.id), {latest}"
        " FROM session AS s LEFT JOIN part AS p ON p.session_id = s.id GROUP BY s.id"
    )
    return {
        str(sid): f"{rank}:{upd}:{n}:{last}"
        for sid, rank, upd, n, last in conn.execute(query)
        if sid is not None
    }


def sessions(conn: sqlite3.Connection, ids: Sequence[str]) -> list[SessionRow]:
    """The rows of the sessions named, in row order."""
    rows: list[SessionRow] = []
    for batch in _batches(ids):
        rows += _session_rows(conn, f"s.id IN ({','.join('?' * len(batch))})", batch)
    return sorted(rows, key=lambda r: r.rank)


def session_at(conn: sqlite3.Connection, rank: int) -> SessionRow | None:
    """The session whose row id is `rank` (a line number's first half)."""
    found = _session_rows(conn, "s.rowid = ?", [rank])
    return found[0] if found else None


def _session_rows(conn: sqlite3.Connection, where: str, args: Sequence[object]) -> list[SessionRow]:
    have = columns(conn, "session")
    worktree = "project" in _tables(conn) and {"id", "worktree"} <= columns(conn, "project")
    col = picker(have, "s.")
    directory = col("directory")
    join = ""
    if worktree and "project_id" in have:
        directory = f"coalesce(nullif({col('directory')}, ''), p.worktree)"
        join = " LEFT JOIN project AS p ON p.id = s.project_id"
    query = (
        f"SELECT s.id, s.rowid, {col('parent_id')}, {directory}, {col('title')},"
        f" {col('time_created')} FROM session AS s{join} WHERE {where}"
    )
    return [
        SessionRow(str(r[0]), int(r[1]), _text(r[2]), _text(r[3]), _text(r[4]), _int(r[5]))
        for r in conn.execute(query, tuple(args))
    ]


def messages(conn: sqlite3.Connection, session_id: str) -> list[tuple[str, int | None, str]]:
    """A session's messages `(id, time_created, data)`, oldest first (ids sort by time)."""
    created = "time_created" if "time_created" in columns(conn, "message") else "NULL"
    query = f"SELECT id, {created}, data FROM message WHERE session_id = ? ORDER BY {created}, id"
    return [(str(i), _int(t), _data(d)) for i, t, d in conn.execute(query, (session_id,))]


def parts(conn: sqlite3.Connection, session_id: str) -> list[tuple[str, str, str]]:
    """A session's parts `(id, message_id, data)` in the order OpenCode shows them."""
    query = "SELECT id, message_id, data FROM part WHERE session_id = ? ORDER BY message_id, id"
    return [(str(i), str(m), _data(d)) for i, m, d in conn.execute(query, (session_id,))]


def holds(conn: sqlite3.Connection, ids: Sequence[str]) -> set[str]:
    """Which of the sessions named the store holds (an empty set for a store of
    another schema)."""
    if missing(conn):
        return set()
    found: set[str] = set()
    for batch in _batches(ids):
        marks = ",".join("?" * len(batch))
        found |= {
            r[0] for r in conn.execute(f"SELECT id FROM session WHERE id IN ({marks})", batch)
        }
    return found


def _tables(conn: sqlite3.Connection) -> set[str]:
    return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def _batches(ids: Sequence[str]) -> Iterator[list[str]]:
    for start in range(0, len(ids), _BATCH):
        yield list(ids[start : start + _BATCH])


def _data(value: object) -> str:
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return value if isinstance(value, str) else ""


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
