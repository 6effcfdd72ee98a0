"""The query that reads cursor-agent's own store of one chat.

cursor-agent keeps each chat's state in `~/.cursor/chats/<md5 of the folder>/<chat
id>/store.db`, a SQLite file it holds open while the chat runs. Its `meta` table has
one row, key `'0'`, whose value is the chat's metadata as JSON written out in hex
(`{agentId, name, createdAt, mode, lastUsedModel, latestRootBlobId}`); the chat's
messages are content-addressed blobs beside it, which the transcript already holds.

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
