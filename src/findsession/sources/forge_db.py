"""The questions findsession asks Forge's `.forge.db`, read-only, and nothing else.

The store (antinomyhq/forge, `crates/forge_repo`: its Diesel migrations and
`conversation_record.rs`) has one table that matters:

- `conversations(conversation_id, title, workspace_id, context, created_at, updated_at,
  metrics)`: one row per conversation, ids UUIDs. `context` is the whole conversation
  as one JSON text, written again whole each time the agent saves it (the row is
  upserted; `created_at` stays). `workspace_id` is a hash of the folder Forge ran in,
  which cannot be turned back into the folder: the folder is read from the system
  prompt in `context`. Times are Diesel's `NaiveDateTime` texts, in UTC, no zone.
  `updated_at` is NULL on a conversation that holds no messages yet.
- `metrics` is JSON too: the files touched and `started_at`, when the last request
  began.

A subagent (Forge's `sage`, a `task`) is a conversation of its own, its `context`
its `initiator` "agent"; its parent names it only in the tool result that
carries the subagent's answer (`aI.conversation_id`), saved after the subagent's own
row. So each subagent's parent is looked up here on every survey, and is part of its
change token: a subagent read before its parent's result was saved is read again, and
linked, once it is.

The only connection is the one `foreign_db.reading` opens; `forge_records` makes the
records.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from findsession.sources import foreign_db

Conn = sqlite3.Connection

#: How far into a context its `initiator` is looked for (`ContextRecord`'s fields in
#: their order: the conversation id, then the initiator), so that only a subagent's
#: context is parsed to read it.
_HEAD = 200


@dataclass(frozen=True, slots=True)
class ConversationRow:
    """One conversation as its row holds it, without its context, and its change token."""

    rank: int
    id: str
    title: str | None
    created_at: str | None
    updated_at: str | None
    parent: str | None
    token: str


def missing_tables(conn: Conn) -> str | None:
    """Why the file is not a Forge store this reader knows, or None when it is."""
    if not {"conversation_id", "context"} <= foreign_db.columns(conn, "conversations"):
        return "no conversations table of the shape Forge writes"
    return None


def conversations(conn: Conn) -> list[ConversationRow]:
    """Every conversation with a context, each with a token that moves whenever its row
    is saved again (the context is rewritten whole; its length and `updated_at` move)
    or, for a subagent, when its parent is first found."""
    pick = foreign_db.picker(foreign_db.columns(conn, "conversations"))
    query = (
        f"SELECT rowid, conversation_id, {pick('title')}, {pick('created_at')}, "
        f"{pick('updated_at')}, length(context), "
        f"CASE WHEN instr(substr(context, 1, {_HEAD}), '\"initiator\"') > 0 "
        "AND json_valid(context) THEN json_extract(context, '$.initiator') = 'agent' END "
        "FROM conversations WHERE context IS NOT NULL ORDER BY rowid"
    )
    found = list(conn.execute(query))
    parents = _parents(conn) if any(row[6] for row in found) else {}
    rows = []
    for rank, cid, title, created, updated, size, is_agent in found:
        if not isinstance(cid, str) or not cid:
            continue
        parent = parents.get(cid) if is_agent else None
        rows.append(
            ConversationRow(
                rank=int(rank),
                id=cid,
                title=title if isinstance(title, str) else None,
                created_at=_text(created),
                updated_at=_text(updated),
                parent=parent,
                # Texts only as digests: the index keeps tokens as they are.
                token=":".join(
                    [foreign_db.text_digest(title), foreign_db.text_digest(updated), str(size)]
                    + [parent or ""]
                ),
            )
        )
    return rows


def _parents(conn: Conn) -> dict[str, str]:
    """Each subagent conversation's parent: the conversation whose tool result carries
    its answer. Only the contexts that hold such a result are parsed; one that is no
    JSON is passed over (its own reading reports it)."""
    query = (
        "SELECT p.conversation_id, json_extract(v.value, '$.aI.conversation_id') "
        "FROM conversations p, json_each(CASE WHEN instr(p.context, '\"aI\"') > 0 "
        "AND json_valid(p.context) THEN p.context ELSE '{}' END, '$.messages') m, "
        "json_each(CASE WHEN m.type = 'object' THEN coalesce("
        "json_extract(m.value, '$.message.tool.output.values'), "
        "json_extract(m.value, '$.tool.output.values'), '[]') ELSE '[]' END) v "
        "WHERE (CASE WHEN v.type = 'object' THEN json_type(v.value, '$.aI') END) = 'object' "
        "ORDER BY p.rowid"
    )
    parents: dict[str, str] = {}
    try:
        for parent, child in conn.execute(query):
            if isinstance(child, str) and child and child != parent:
                parents.setdefault(child, parent)
    except sqlite3.Error:  # a context this SQLite's JSON functions cannot take
        return {}
    return parents


def context(conn: Conn, cid: str) -> tuple[str | None, str | None]:
    """The context and metrics JSON texts of the conversation `cid`."""
    metrics = "metrics" if "metrics" in foreign_db.columns(conn, "conversations") else "NULL"
    query = f"SELECT context, {metrics} FROM conversations WHERE conversation_id = ?"
    row = conn.execute(query, (cid,)).fetchone()
    return (None, None) if row is None else (_text(row[0]), _text(row[1]))


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None
