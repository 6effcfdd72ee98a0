"""The questions findsession asks Warp's `warp.sqlite`, read-only, and nothing else.

Warp keeps its agent's conversations in two tables of its one SQLite store
(`crates/persistence/migrations` and `app/src/persistence/agent.rs` in warpdotdev/warp):
`agent_conversations(id, conversation_id, conversation_data, last_modified_at,
summary)`, one row per conversation, `conversation_data` a JSON object (the parent
conversation of a child agent among it), and `agent_tasks(id, conversation_id, task_id,
task, last_modified_at)`, one row per task of a conversation, `task` the task's
protocol buffer (`warp_records`). A save upserts the conversation's row and each of its
tasks' rows (a trigger moves `last_modified_at` on every update), and deletes the tasks
it no longer holds. A conversation's change token is its row's id, time and size and
its tasks' count, total size and latest time, as a digest. The only connection is the one
`foreign_db.reading` opens. A store from before agent conversations keeps its exchanges
in `ai_queries` and the answers kept in `ai_blocks` (`warp_queries` reads them).
"""

from __future__ import annotations

import hashlib
import sqlite3
from dataclasses import dataclass, field
from typing import Any

from findsession.sources import foreign_db

CONVERSATIONS = "agent_conversations"
QUERIES = "ai_queries"
BLOCKS = "ai_blocks"
_QUERY_NEEDS = {"exchange_id", "conversation_id", "input"}
TASKS = "agent_tasks"
_NEEDS = {CONVERSATIONS: {"conversation_id", "conversation_data"},
          TASKS: {"conversation_id", "task_id", "task"}}  # fmt: skip


@dataclass(frozen=True, slots=True)
class Conversation:
    """One conversation's row, without its tasks."""

    key: str
    rank: int  # the row id: unique in the file, orders line numbers
    modified: str | None
    token: str


def missing_table(conn: sqlite3.Connection) -> str | None:
    """Why the file is not a Warp store this reader knows, or None when it is."""
    for table, needs in _NEEDS.items():
        lacking = needs - foreign_db.columns(conn, table)
        if lacking:
            return f"no {table} table with {', '.join(sorted(lacking))}"
    return None


def conversations(conn: sqlite3.Connection) -> list[Conversation]:
    """Every conversation with its change token, in one query."""
    have = foreign_db.columns(conn, CONVERSATIONS)
    modified = "c.last_modified_at" if "last_modified_at" in have else "NULL"
    task_time = "max(last_modified_at)" if "last_modified_at" in foreign_db.columns(
        conn, TASKS) else "NULL"  # fmt: skip
    rows = conn.execute(
        f"SELECT c.conversation_id, c.rowid, {modified}, length(c.conversation_data),"
        " t.n, t.size, t.latest"
        f" FROM {CONVERSATIONS} c LEFT JOIN (SELECT conversation_id, count(*) AS n,"
        f" total(length(task)) AS size, {task_time} AS latest FROM {TASKS}"
        " GROUP BY conversation_id) t ON t.conversation_id = c.conversation_id"
        " ORDER BY c.rowid"
    )
    found = []
    for key, rank, when, size, count, total, latest in rows:
        if not isinstance(key, str) or not key:
            continue
        # A digest: the index keeps tokens as they are, and a column's text is not ours
        # to keep (a time column is text, and may hold anything).
        own = f"{rank}:{when}:{size}:{count or 0}:{int(total or 0)}:{latest}"
        token = hashlib.blake2b(own.encode("utf-8", "replace"), digest_size=8).hexdigest()
        found.append(Conversation(key, int(rank), when if isinstance(when, str) else None, token))
    return found


def data(conn: sqlite3.Connection, rank: int) -> object:
    """A conversation's `conversation_data`, as the row holds it."""
    row = conn.execute(
        f"SELECT conversation_data FROM {CONVERSATIONS} WHERE rowid = ?", (rank,)
    ).fetchone()
    return row[0] if row else None


def tasks(conn: sqlite3.Connection, key: str) -> list[tuple[object, object]]:
    """A conversation's tasks, `(task_id, task)` in the order they were first saved."""
    return list(
        conn.execute(
            f"SELECT task_id, task FROM {TASKS} WHERE conversation_id = ? ORDER BY rowid", (key,)
        )
    )


@dataclass
class Exchanges:
    """The exchanges of each conversation, in row order, and each one's token."""

    rows: dict[str, list[tuple[Any, ...]]] = field(default_factory=dict)
    tokens: dict[str, str] = field(default_factory=dict)


def is_older_store(conn: sqlite3.Connection) -> bool:
    """Whether the store keeps its exchanges in `ai_queries`, as Warp did before June
    2025 (`warp_queries`)."""
    return foreign_db.columns(conn, QUERIES) >= _QUERY_NEEDS


def exchanges(conn: sqlite3.Connection) -> Exchanges:
    """Every exchange, with the answer kept for it, grouped by conversation."""
    have = foreign_db.columns(conn, QUERIES)
    when = "q.start_ts" if "start_ts" in have else "NULL"
    folder = "q.working_directory" if "working_directory" in have else "NULL"
    answer = "NULL"
    if {"exchange_id", "output"} <= foreign_db.columns(conn, BLOCKS):
        answer = "(SELECT b.output FROM ai_blocks b WHERE b.exchange_id = q.exchange_id LIMIT 1)"
    found = Exchanges()
    rows = conn.execute(
        f"SELECT q.rowid, q.conversation_id, {when}, q.input, {folder}, {answer}"
        f" FROM {QUERIES} q ORDER BY q.rowid"
    )
    for row in rows:
        if isinstance(row[1], str) and row[1]:
            found.rows.setdefault(row[1], []).append(row)
    for key, listed in found.rows.items():
        own = ";".join(f"{r[0]}:{len(str(r[3]))}:{len(str(r[5] or ''))}" for r in listed)
        found.tokens[key] = hashlib.blake2b(own.encode(), digest_size=8).hexdigest()
    return found
