"""The questions findsession asks a Crush database, read-only, and nothing else.

Crush keeps a project's sessions in `<project>/.crush/crush.db` (the first OpenCode, which
Crush grew from, in `<project>/.opencode/opencode.db`): `sessions(id, parent_session_id,
title, created_at, updated_at, summary_message_id, ...)` and `messages(id, session_id,
role, parts, model, created_at, updated_at, finished_at, is_summary_message, ...)`, times
in Unix seconds. Columns came and went between Crush's versions, so each query asks only for
the columns the file has (`foreign_db.columns`). The only connection is the one
`foreign_db.reading` opens; this module holds queries, `crush_records` makes records.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from findsession.sources import foreign_db

#: Sessions Crush makes only to ask a model for another session's title.
TITLE_PREFIX = "title-"


@dataclass(frozen=True, slots=True)
class SessionRow:
    """One session as its row holds it, with the change token of its messages."""

    rank: int
    id: str
    parent: str | None
    title: str | None
    created_at: float | None
    updated_at: float | None
    token: str
    #: The message that summarises the session so far (`summary_message_id`): how the
    #: first OpenCode, and Crush before `is_summary_message`, mark it.
    summary_id: str | None = None


@dataclass(frozen=True, slots=True)
class MessageRow:
    """One message row: `parts` is the JSON text Crush wrote, parsed by the caller."""

    id: str | None
    role: str | None
    parts: object
    model: str | None
    created_at: float | None
    summary: bool


def missing_tables(conn: sqlite3.Connection, agent: str = "Crush") -> str | None:
    """Why the file is not a store of this schema (`agent`'s) this reader knows, or None
    when it is."""
    sessions = foreign_db.columns(conn, "sessions")
    messages = foreign_db.columns(conn, "messages")
    if not {"id"} <= sessions or not {"session_id", "role", "parts"} <= messages:
        return f"not a {agent} database (no sessions and messages tables of the known shape)"
    return None


def sessions(conn: sqlite3.Connection) -> list[SessionRow]:
    """Every session but the title makers, each with one token that moves whenever the
    session or any of its messages changes: a message streamed into its row in place
    moves `updated_at`, and `finished_at` once it is complete."""
    pick = foreign_db.picker(foreign_db.columns(conn, "sessions"), "s.")
    mine = foreign_db.picker(foreign_db.columns(conn, "messages"), "m.")
    query = (
        "SELECT s.rowid, s.id, "
        f"{pick('parent_session_id')}, {pick('title')}, "
        f"{pick('created_at')}, {pick('updated_at')}, "
        f"{pick('summary_message_id')}, count(m.rowid), max(m.rowid), "
        f"max({mine('updated_at')}), max({mine('finished_at')}) "
        "FROM sessions s LEFT JOIN messages m ON m.session_id = s.id "
        "WHERE substr(s.id, 1, ?) != ? GROUP BY s.rowid ORDER BY s.rowid"
    )
    rows = []
    for rank, sid, parent, title, created, updated, summary, *moved in conn.execute(
        query, (len(TITLE_PREFIX), TITLE_PREFIX)
    ):
        if not isinstance(sid, str) or not sid:
            continue
        token = ":".join(str(v) for v in (updated, *moved))
        rows.append(
            SessionRow(
                rank=int(rank),
                id=sid,
                parent=parent if isinstance(parent, str) and parent else None,
                title=title if isinstance(title, str) else None,
                created_at=_number(created),
                updated_at=_number(updated),
                token=token,
                summary_id=summary if isinstance(summary, str) and summary else None,
            )
        )
    return rows


def messages(conn: sqlite3.Connection, session_id: str) -> list[MessageRow]:
    """A session's messages in the order Crush lists them (by creation, then row)."""
    pick = foreign_db.picker(foreign_db.columns(conn, "messages"))
    query = (
        f"SELECT {pick('id')}, role, parts, {pick('model')}, {pick('created_at')}, "
        f"{pick('is_summary_message')} FROM messages WHERE session_id = ? "
        f"ORDER BY {pick('created_at')}, rowid"
    )
    return [
        MessageRow(
            id=mid if isinstance(mid, str) else None,
            role=role if isinstance(role, str) else None,
            parts=parts,
            model=model if isinstance(model, str) else None,
            created_at=_number(created),
            summary=bool(summary),
        )
        for mid, role, parts, model, created, summary in conn.execute(query, (session_id,))
    ]


def parent_by_call(conn: sqlite3.Connection, session_id: str) -> str | None:
    """The session that started a sub-agent whose row names no parent: its id is the
    tool call's (`<message id>$$<call id>` in newer Crush, the call id alone before)."""
    if "$$" in session_id:
        return session_of_message(conn, session_id.split("$$", 1)[0])
    if _looks_like_uuid(session_id):
        return None  # a session the person started
    return session_of_call(conn, session_id)


def session_of_message(conn: sqlite3.Connection, message_id: str) -> str | None:
    """The session a message belongs to (a sub-agent's id names the message whose tool
    call started it, `<message id>$$<tool call id>`)."""
    row = conn.execute(
        "SELECT session_id FROM messages WHERE id = ? LIMIT 1", (message_id,)
    ).fetchone()
    return row[0] if row and isinstance(row[0], str) else None


def session_of_call(conn: sqlite3.Connection, call_id: str) -> str | None:
    """The session whose assistant message holds the tool call `call_id` (older Crush
    named a sub-agent's session by that call's id alone, and may leave its parent out)."""
    needle = '"' + call_id.replace('"', "") + '"'
    row = conn.execute(
        "SELECT session_id FROM messages WHERE role = 'assistant' AND instr(parts, ?) > 0 LIMIT 1",
        (needle,),
    ).fetchone()
    return row[0] if row and isinstance(row[0], str) else None


def _looks_like_uuid(value: str) -> bool:
    parts = value.split("-")
    return len(parts) == 5 and [len(p) for p in parts] == [8, 4, 4, 4, 12]


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None
