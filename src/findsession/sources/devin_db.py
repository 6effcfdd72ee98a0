"""The questions findsession asks Devin CLI's `sessions.db`, read-only, and nothing else.

The store, as other tools' readers of real ones found it (docs/sources.md, "Devin CLI"):

- `sessions(id, working_directory, backend_type, model, agent_mode, created_at,
  last_activity_at, title, main_chain_id, shell_last_seen_index, cogs_json,
  workspace_dirs, hidden, metadata)`, times in Unix seconds;
- `message_nodes(row_id, session_id, node_id, parent_node_id, chat_message, created_at,
  metadata)`: a tree of chat messages per session, each node's `chat_message` one JSON
  message (`{message_id, role, content, thinking?, tool_calls?, tool_call_id?,
  metadata}`), the node's own `metadata` JSON saying where it sits (`summarized_from`,
  `compact/prior_node_ids`). `main_chain_id` names the last node of the chain the
  person saw; a retried reply, a summarizer's own messages and an abandoned branch are
  nodes off it;
- `tool_call_state(session_id, tool_call_id, tool_call_json, tool_call_update_json)`:
  each tool call's last state as the CLI showed it (Agent Client Protocol's `tool_call`
  and `tool_call_update`), a failed one `status: failed`;
- `subagent_heads(session_id, agent_id, chain_node_id, updated_at)` (schema 17): the
  last node of each subagent's chain. A subagent runs in its parent's `message_nodes`,
  in a tree of its own.

Columns came and went between the CLI's versions (`tool_call_state` is later than the
tree), so each query asks only for what the file has (`foreign_db.columns`). The only
connection is the one `foreign_db.reading` opens; `devin_records` makes the records.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from findsession.sources import foreign_db

Conn = sqlite3.Connection


@dataclass(frozen=True, slots=True)
class SessionRow:
    """One session as its row holds it, with the change token of its nodes."""

    rank: int
    id: str
    cwd: str | None
    title: str | None
    created_at: float | None
    head: int | None
    token: str


@dataclass(frozen=True, slots=True)
class Node:
    """One message node: `message` the JSON text of `chat_message` (parsed by the
    caller), `placement` that of the node's own `metadata` column."""

    row_id: int
    node_id: int
    parent: int | None
    message: str | None
    created_at: float | None
    placement: str | None


def missing_tables(conn: Conn) -> str | None:
    """Why the file is not a Devin CLI store this reader knows, or None when it is."""
    sessions = foreign_db.columns(conn, "sessions")
    nodes = foreign_db.columns(conn, "message_nodes")
    if not {"id"} <= sessions or not {"session_id", "node_id", "chat_message"} <= nodes:
        return "no sessions and message_nodes tables of the shape Devin CLI writes"
    return None


def sessions(conn: Conn) -> list[SessionRow]:
    """Every session the store lists (hidden ones too), each with one token that moves
    whenever its row, any of its nodes or any of its tool calls' states changes: nodes
    are only added, a call's state is written again in place as the call goes on."""
    pick = foreign_db.picker(foreign_db.columns(conn, "sessions"), "s.")
    states = ""
    if {"session_id", "tool_call_update_json"} <= foreign_db.columns(conn, "tool_call_state"):
        states = (
            ", (SELECT count(*) || '/' || total(length(t.tool_call_update_json))"
            " FROM tool_call_state t WHERE t.session_id = s.id)"
        )
    query = (
        f"SELECT s.rowid, s.id, {pick('working_directory')}, {pick('title')}, "
        f"{pick('created_at')}, {pick('main_chain_id')}, {pick('last_activity_at')}, "
        f"{pick('hidden')}, (SELECT count(*) || '/' || max(n.row_id) FROM message_nodes n "
        f"WHERE n.session_id = s.id){states} FROM sessions s ORDER BY s.rowid"
    )
    rows = []
    for rank, sid, cwd, title, created, head, *moved in conn.execute(query):
        if not isinstance(sid, str) or not sid:
            continue
        rows.append(
            SessionRow(
                rank=int(rank),
                id=sid,
                cwd=cwd if isinstance(cwd, str) and cwd else None,
                title=title if isinstance(title, str) else None,
                created_at=_number(created),
                head=head if isinstance(head, int) and not isinstance(head, bool) else None,
                token=":".join(str(v) for v in (foreign_db.text_digest(title), head, *moved)),
            )
        )
    return rows


def nodes(conn: Conn, session_id: str) -> list[Node]:
    """Every node of a session, in the order they were written."""
    have = foreign_db.columns(conn, "message_nodes")
    pick = foreign_db.picker(have)
    order = "row_id" if "row_id" in have else "rowid"
    query = (
        f"SELECT {order}, node_id, {pick('parent_node_id')}, chat_message, "
        f"{pick('created_at')}, {pick('metadata')} FROM message_nodes "
        f"WHERE session_id = ? ORDER BY {order}"
    )
    found = []
    for row_id, node_id, parent, message, created, placement in conn.execute(
        query, (session_id,)
    ):
        if not isinstance(node_id, int) or isinstance(node_id, bool):
            continue
        found.append(
            Node(
                row_id=int(row_id),
                node_id=node_id,
                parent=parent if isinstance(parent, int) and not isinstance(parent, bool) else None,
                message=message if isinstance(message, str) else None,
                created_at=_number(created),
                placement=placement if isinstance(placement, str) else None,
            )
        )
    return found


def tool_states(conn: Conn, session_id: str) -> dict[str, tuple[str | None, str | None]]:
    """Each tool call's `(tool_call_json, tool_call_update_json)`, by its id; empty for
    a store from before `tool_call_state`."""
    have = foreign_db.columns(conn, "tool_call_state")
    if not {"session_id", "tool_call_id"} <= have:
        return {}
    call = "tool_call_json" if "tool_call_json" in have else "NULL"
    update = "tool_call_update_json" if "tool_call_update_json" in have else "NULL"
    query = (
        f"SELECT tool_call_id, {call}, {update} FROM tool_call_state WHERE session_id = ?"
    )
    return {
        cid: (c if isinstance(c, str) else None, u if isinstance(u, str) else None)
        for cid, c, u in conn.execute(query, (session_id,))
        if isinstance(cid, str)
    }


def subagent_heads(conn: Conn, session_id: str) -> dict[str, int]:
    """The last node of each subagent's chain by the subagent's id, as `subagent_heads`
    keeps it; empty for a store from before it."""
    if not {"session_id", "agent_id", "chain_node_id"} <= foreign_db.columns(
        conn, "subagent_heads"
    ):
        return {}
    query = (
        "SELECT agent_id, chain_node_id FROM subagent_heads WHERE session_id = ? "
        "ORDER BY agent_id"
    )
    return {
        agent: node
        for agent, node in conn.execute(query, (session_id,))
        if isinstance(agent, str) and agent and isinstance(node, int)
        and not isinstance(node, bool)
    }


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None
