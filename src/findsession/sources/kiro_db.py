"""The questions findsession asks Kiro CLI's database, read-only, and nothing else.

Kiro CLI keeps its conversations in `data.sqlite3`, table `conversations_v2(key,
conversation_id, value, created_at, updated_at)`: `key` is the directory the conversation
ran in, `value` the whole conversation as JSON, times in milliseconds. One conversation
may sit under several keys (continued from another directory); the row updated last is
the conversation. The only connection is the one `foreign_db.reading` opens; this module
holds queries, `kiro_records` makes records.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from findsession.sources import foreign_db

TABLE = "conversations_v2"
#: Tables Kiro CLI makes in `data.sqlite3` from its first start (its schema migrations
#: and settings state; `history` and `auth_kv` come with them): a store holding them and
#: no conversations table yet is Kiro's, before its first conversation.
OWN_TABLES = {"migrations", "state"}


@dataclass(frozen=True, slots=True)
class Conversation:
    """The newest row of one conversation; `rank` is that row's id."""

    rank: int
    id: str
    key: str | None
    created_at: float | None
    updated_at: float | None
    token: str


def missing_tables(conn: sqlite3.Connection) -> str | None:
    """Why the file is not a Kiro CLI store this reader knows, or None when it is (an
    empty one included: `conversations` then finds none)."""
    have = foreign_db.columns(conn, TABLE)
    if not have and all(foreign_db.columns(conn, table) for table in OWN_TABLES):
        return None
    if not {"key", "conversation_id", "value"} <= have:
        return f"not a Kiro CLI database (no {TABLE} table of the known shape)"
    return None


def conversations(conn: sqlite3.Connection) -> list[Conversation]:
    """Each conversation once, as its newest row, with that row's time as its token."""
    have = foreign_db.columns(conn, TABLE)
    if not have:
        return []  # before the first conversation
    updated = "updated_at" if "updated_at" in have else "0"
    created = "created_at" if "created_at" in have else "NULL"
    # The newest row of each id: ordered so the first one met per id is the one kept.
    query = (
        f"SELECT rowid, conversation_id, key, {created}, {updated} FROM {TABLE} "
        f"ORDER BY conversation_id, {updated} DESC, rowid DESC"
    )
    found: dict[str, Conversation] = {}
    for rank, cid, key, made, moved in conn.execute(query):
        if not isinstance(cid, str) or not cid or cid in found:
            continue
        found[cid] = Conversation(
            rank=int(rank),
            id=cid,
            key=key if isinstance(key, str) and key else None,
            created_at=_number(made),
            updated_at=_number(moved),
            token=f"{moved}:{rank}",
        )
    return sorted(found.values(), key=lambda c: c.rank)


def value(conn: sqlite3.Connection, rank: int) -> object:
    """The JSON text of one row."""
    row = conn.execute(f"SELECT value FROM {TABLE} WHERE rowid = ?", (rank,)).fetchone()
    return row[0] if row else None


def holds(conn: sqlite3.Connection, conversation_id: str) -> bool:
    """Whether any row holds this conversation."""
    if not foreign_db.columns(conn, TABLE):
        return False  # before the first conversation
    row = conn.execute(
        f"SELECT 1 FROM {TABLE} WHERE conversation_id = ? LIMIT 1", (conversation_id,)
    ).fetchone()
    return row is not None


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None
