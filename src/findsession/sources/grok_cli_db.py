"""The questions findsession asks Grok CLI's `grok.db`, read-only, and nothing else.

The store (superagent-ai's `grok-dev` 1.0 and later, its `src/storage/`):

- `sessions(id, workspace_id, title, recap_text, recap_model, recap_updated_at, model,
  mode, cwd_at_start, cwd_last, status, created_at, updated_at)`, ids twelve hex
  characters, times ISO 8601 texts in UTC; `recap_*` came with the store's version 3.
- `messages(session_id, seq, role, message_json, created_at)`: each message the agent
  sent or got, one AI SDK `ModelMessage` as JSON, `seq` counting up from 1 in each
  session. A turn is written whole when it ends, so its messages share one time.
- `tool_calls` and `tool_results` copy each call and its result out of those messages
  (for the agent's own display), `compactions` holds each compaction's summary (the
  messages it summarised stay), `workspaces` the project folders, `usage_events` token
  counts: none of these is needed to read a conversation.

The only connection is the one `foreign_db.reading` opens; `grok_cli_records` makes
the records.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from findsession.sources import foreign_db

Conn = sqlite3.Connection


@dataclass(frozen=True, slots=True)
class SessionRow:
    """One session as its row holds it, with the change token of its messages."""

    rank: int
    id: str
    cwd: str | None
    title: str | None
    token: str


@dataclass(frozen=True, slots=True)
class MessageRow:
    """One message: `message` the JSON text of `message_json`, parsed by the caller."""

    seq: int
    role: str | None
    message: str | None
    created_at: str | None


def missing_tables(conn: Conn) -> str | None:
    """Why the file is not a Grok CLI store this reader knows, or None when it is."""
    sessions = foreign_db.columns(conn, "sessions")
    messages = foreign_db.columns(conn, "messages")
    if "id" not in sessions or not {"session_id", "seq", "message_json"} <= messages:
        return "no sessions and messages tables of the shape Grok CLI writes"
    return None


def sessions(conn: Conn) -> list[SessionRow]:
    """Every session with a message, each with a token that moves whenever its row or
    its messages change (messages are only added; a title or the time is set in place)."""
    pick = foreign_db.picker(foreign_db.columns(conn, "sessions"), "s.")
    query = (
        f"SELECT s.rowid, s.id, {pick('cwd_at_start')}, {pick('cwd_last')}, {pick('title')}, "
        f"{pick('updated_at')}, m.n, m.last FROM sessions s JOIN (SELECT session_id, "
        "count(*) AS n, max(seq) AS last FROM messages GROUP BY session_id) m "
        "ON m.session_id = s.id ORDER BY s.rowid"
    )
    rows = []
    for rank, sid, start, last, title, updated, count, top in conn.execute(query):
        if not isinstance(sid, str) or not sid:
            continue
        cwd = start if isinstance(start, str) and start else last
        rows.append(
            SessionRow(
                rank=int(rank),
                id=sid,
                cwd=cwd if isinstance(cwd, str) and cwd else None,
                title=title if isinstance(title, str) else None,
                token=f"{foreign_db.text_digest(title)}:{updated}:{count}:{top}",
            )
        )
    return rows


def messages(conn: Conn, session_id: str) -> list[MessageRow]:
    """A session's messages in the order they were said."""
    have = foreign_db.columns(conn, "messages")
    role = "role" if "role" in have else "NULL"
    when = "created_at" if "created_at" in have else "NULL"
    query = (
        f"SELECT seq, {role}, message_json, {when} FROM messages "
        "WHERE session_id = ? ORDER BY seq"
    )
    found = []
    for seq, kind, message, created in conn.execute(query, (session_id,)):
        if not isinstance(seq, int) or isinstance(seq, bool):
            continue
        found.append(
            MessageRow(
                seq=seq,
                role=kind if isinstance(kind, str) else None,
                message=message if isinstance(message, str) else None,
                created_at=created if isinstance(created, str) else None,
            )
        )
    return found
