"""The questions findsession asks Kiro CLI's database (and Amazon Q Developer CLI's,
the same store under its former name), read-only, and nothing else.

Kiro CLI keeps its conversations in `data.sqlite3`, table `conversations_v2(key,
conversation_id, value, created_at, updated_at)`: `key` is the directory the conversation
ran in, `value` the whole conversation as JSON, times in milliseconds. One conversation
may sit under several keys (continued from another directory); the row updated last is
the conversation. Before it (Amazon Q Developer CLI 1.10 to 1.19, Kiro CLI up to 1.22)
the table was `conversations(key, value)`: one conversation per directory, replaced
whole on every write (a new row, so the row id moves each time), its id only
inside the value. Kiro CLI's migration 008 copies that table into `conversations_v2` and
leaves it behind, stale: where both are, the newer one is read. The only connection is
the one `foreign_db.reading` opens; this module holds queries, `kiro_records` makes
records.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from findsession.sources import foreign_db

TABLE = "conversations_v2"
#: The one-per-directory table before it.
LEGACY = "conversations"
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
    if _table(conn) is not None:
        return None
    have = foreign_db.columns(conn, TABLE) or foreign_db.columns(conn, LEGACY)
    if not have and all(foreign_db.columns(conn, table) for table in OWN_TABLES):
        return None
    return f"not a Kiro CLI database (no {TABLE} or {LEGACY} table of the known shape)"


def _table(conn: sqlite3.Connection) -> str | None:
    """The conversations table to read: the newer one when it has the known shape, else
    the one-per-directory table; None when neither has."""
    if {"key", "conversation_id", "value"} <= foreign_db.columns(conn, TABLE):
        return TABLE
    if {"key", "value"} <= foreign_db.columns(conn, LEGACY):
        return LEGACY
    return None


def conversations(conn: sqlite3.Connection) -> list[Conversation]:
    """Each conversation once, as its newest row, with that row's time as its token."""
    table = _table(conn)
    if table is None:
        return []  # before the first conversation
    have = foreign_db.columns(conn, table)
    updated = "updated_at" if "updated_at" in have else "NULL"
    created = "created_at" if "created_at" in have else "NULL"
    # A row of the older table has its id only in its value (the directory when the value
    # names none); it is replaced whole on each write, so its row id and length move.
    cid = "conversation_id" if table == TABLE else _LEGACY_ID
    size = "0" if table == TABLE else "length(CAST(value AS BLOB))"
    # The newest row of each id: ordered so the first one met per id is the one kept.
    query = (
        f"SELECT rowid, {cid} AS cid, key, {created}, {updated}, {size} FROM {table} "
        f"ORDER BY cid, {updated} DESC, rowid DESC"
    )
    found: dict[str, Conversation] = {}
    for rank, cid, key, made, moved, length in conn.execute(query):
        if not isinstance(cid, str) or not cid or cid in found:
            continue
        found[cid] = Conversation(
            rank=int(rank),
            id=cid,
            key=key if isinstance(key, str) and key else None,
            created_at=_number(made),
            updated_at=_number(moved) if table == TABLE else None,
            token=f"{moved}:{rank}" if table == TABLE else f"{length}:{rank}",
        )
    return sorted(found.values(), key=lambda c: c.rank)


def value(conn: sqlite3.Connection, rank: int) -> object:
    """The JSON text of one row."""
    table = _table(conn)
    if table is None:
        return None
    row = conn.execute(f"SELECT value FROM {table} WHERE rowid = ?", (rank,)).fetchone()
    return row[0] if row else None


def holds(conn: sqlite3.Connection, conversation_id: str) -> bool:
    """Whether any row holds this conversation."""
    if _table(conn) != TABLE:
        return any(c.id == conversation_id for c in conversations(conn))
    row = conn.execute(
        f"SELECT 1 FROM {TABLE} WHERE conversation_id = ? LIMIT 1", (conversation_id,)
    ).fetchone()
    return row is not None


#: The conversation id inside an older row's value, without failing the query on a value
#: that is not JSON (which is then read, and reported, as its directory's).
_LEGACY_ID = (
    "coalesce(CASE WHEN json_valid(value) THEN json_extract(value, '$.conversation_id') END, key)"
)


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None
