"""Goose's `sessions.db`, read: the queries, and nothing that could change it.

Goose (1.10 and later) keeps every session in one SQLite file:
`sessions(id, name, user_set_name, session_type, working_dir, created_at,
parent_session_id, ...)` and `messages(id, session_id, role, content_json,
created_timestamp, metadata_json, message_id, ...)`. Columns came in over the schema's
versions (`metadata_json` in 3, `name` and `user_set_name` in 4, `session_type` in 5,
`message_id` in 7, `parent_session_id` later still; the oldest files call the title
`description`), so each query names only the columns the file has and reads NULL for
the rest. The connection comes from `foreign_db.reading`: read-only, one snapshot.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass

from findsession.sources import foreign_db

Conn = sqlite3.Connection

_SESSION_NEEDS = {"id", "working_dir"}
_MESSAGE_NEEDS = {"session_id", "role", "content_json"}
#: Optional session columns, in the order `SessionRow` takes them.
_SESSION_OPTIONAL = ("name", "description", "user_set_name", "session_type", "parent_session_id")
_MESSAGE_OPTIONAL = ("created_timestamp", "metadata_json", "message_id")


@dataclass(frozen=True, slots=True)
class SessionRow:
    """A session as its row holds it, with what its messages add up to now."""

    key: str
    rank: int  # the row id: stable, unique in the file, orders line numbers
    working_dir: str | None
    name: str | None
    user_set_name: bool | None  # None: a schema before the column
    session_type: str | None
    parent: str | None
    messages: int
    last_message: int


@dataclass(frozen=True, slots=True)
class MessageRow:
    """One message row, `position` its place (from 1) among its session's rows."""

    position: int
    role: str | None
    content_json: str | None
    created: int | float | None
    metadata_json: str | None
    message_id: str | None


def missing_tables(conn: Conn) -> str | None:
    """Why this file is not a Goose store this reader knows, or None when it is."""
    for table, needs in (("sessions", _SESSION_NEEDS), ("messages", _MESSAGE_NEEDS)):
        lacking = needs - foreign_db.columns(conn, table)
        if lacking:
            return f"no {table} table with {', '.join(sorted(lacking))}"
    return None


def sessions(conn: Conn) -> list[SessionRow]:
    """Every session with its message count and last message row id, in one query: the
    change token of each comes from this alone."""
    have = foreign_db.columns(conn, "sessions")
    optional = ", ".join(f"s.{c}" if c in have else "NULL" for c in _SESSION_OPTIONAL)
    rows = conn.execute(
        f"SELECT s.id, s.rowid, s.working_dir, {optional}, coalesce(m.n, 0), coalesce(m.last, 0)"
        " FROM sessions s LEFT JOIN (SELECT session_id, count(*) AS n, max(rowid) AS last"
        " FROM messages GROUP BY session_id) m ON m.session_id = s.id ORDER BY s.rowid"
    )
    out = []
    for key, rank, cwd, name, description, user_set, kind, parent, n, last in rows:
        if not isinstance(key, str) or not key:
            continue
        out.append(
            SessionRow(
                key=key,
                rank=int(rank),
                working_dir=_text(cwd),
                name=_text(name) or _text(description),
                user_set_name=None if user_set is None else bool(user_set),
                session_type=_text(kind),
                parent=_text(parent),
                messages=int(n),
                last_message=int(last),
            )
        )
    return out


def messages(conn: Conn, key: str) -> Iterator[MessageRow]:
    """A session's message rows in the order Goose wrote them."""
    have = foreign_db.columns(conn, "messages")
    optional = ", ".join(c if c in have else "NULL" for c in _MESSAGE_OPTIONAL)
    rows = conn.execute(
        f"SELECT role, content_json, {optional} FROM messages WHERE session_id = ? ORDER BY rowid",
        (key,),
    )
    for position, (role, content, created, metadata, message_id) in enumerate(rows, 1):
        yield MessageRow(
            position=position,
            role=_text(role),
            content_json=content if isinstance(content, str) else None,
            created=created if isinstance(created, int | float) else None,
            metadata_json=metadata if isinstance(metadata, str) else None,
            message_id=_text(message_id),
        )


def session_at(conn: Conn, rank: int) -> str | None:
    """The id of the session whose row id is `rank` (a line number's first half)."""
    row = conn.execute("SELECT id FROM sessions WHERE rowid = ?", (rank,)).fetchone()
    return row[0] if row and isinstance(row[0], str) else None


def holds(conn: Conn, key: str) -> bool:
    """Whether the store has a session of this id (a legacy file Goose imported)."""
    return conn.execute("SELECT 1 FROM sessions WHERE id = ?", (key,)).fetchone() is not None


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None
