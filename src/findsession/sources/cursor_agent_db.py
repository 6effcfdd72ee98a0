"""The query that reads cursor-agent's own store of one chat.

cursor-agent keeps each chat's state in `~/.cursor/chats/<md5 of the folder>/<chat
id>/store.db`, a SQLite file it holds open while the chat runs. Its `meta` table has
one row, key `'0'`, whose value is the chat's metadata as JSON written out in hex
(`{agentId, name, createdAt, mode, lastUsedModel, latestRootBlobId}`); the chat's
messages are content-addressed blobs beside it (`blobs(id, data)`), which the
transcript, where there is one, already holds.

Only reads: the connection comes from `foreign_db.reading`.
"""

from __future__ import annotations

import sqlite3

from findsession.sources.foreign_db import columns


def meta_value(conn: sqlite3.Connection) -> object | None:
    """The `meta` row `'0'`'s value as stored (hex text, or bytes); None when the store
    has no such table or row."""
    if not {"key", "value"} <= columns(conn, "meta"):
        return None
    row = conn.execute("SELECT value FROM meta WHERE key = '0'").fetchone()
    return row[0] if row else None


def has_blobs(conn: sqlite3.Connection) -> bool:
    """Whether the store has its `blobs(id, data)` table."""
    return {"id", "data"} <= columns(conn, "blobs")


def blob(conn: sqlite3.Connection, blob_id: str, limit: int) -> bytes | None:
    """The blob `blob_id`'s bytes; None when there is none, or it is over `limit`."""
    row = conn.execute(
        "SELECT data FROM blobs WHERE id = ? AND length(data) <= ?", (blob_id, limit)
    ).fetchone()
    if row is None or row[0] is None:
        return None
    return row[0].encode("utf-8") if isinstance(row[0], str) else bytes(row[0])
