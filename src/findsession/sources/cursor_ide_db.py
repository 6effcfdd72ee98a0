"""The queries that read a VS Code-style `state.vscdb` (the Cursor IDE's, Windsurf's).

Two key-value tables hold the chats: `cursorDiskKV(key, value)`, where current Cursor
builds keep each composer (`composerData:<id>`) and each of its messages
(`bubbleId:<composer id>:<bubble id>`) as a row of JSON; and `ItemTable(key, value)`,
where older builds and Windsurf kept whole chat lists under one key. Both tables have a
unique index on `key`, so every lookup here is a range of that index (`key >= prefix AND
key < prefix-with-its-last-character-bumped`): a `LIKE` would read the whole table.

Only reads: the connection comes from `foreign_db.reading`. Values are returned as the
database holds them (text or bytes); the caller decodes them.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

KV = "cursorDiskKV"
ITEMS = "ItemTable"
COMPOSER = "composerData:"
BUBBLE = "bubbleId:"
#: What precedes a composer's last-update time in its JSON.
UPDATED = '"lastUpdatedAt":'

#: One row per composer: its id, its row's id (the table replaces a row on every write,
#: so a new row id means the value was written again), the characters after
#: `"lastUpdatedAt":`, and `<count>:<highest row id>` of its message rows. The messages
#: are counted with one range of the key index per composer (no value is read, no
#: grouping sort: twice as fast as grouping every message key by its composer, see
#: `bench/cursor_tokens.py`); the composer's value is only searched for its update time,
#: not parsed.
_TOKENS = f"""
SELECT substr(c.key, {len(COMPOSER) + 1}), c.rowid,
       substr(c.value, nullif(instr(c.value, '{UPDATED}'), 0) + {len(UPDATED)}, 16),
       (SELECT count(*) || ':' || coalesce(max(b.rowid), 0) FROM {KV} AS b
        WHERE b.key >= '{BUBBLE}' || substr(c.key, {len(COMPOSER) + 1}) || ':'
          AND b.key < '{BUBBLE}' || substr(c.key, {len(COMPOSER) + 1}) || ';')
FROM {KV} AS c
WHERE c.key >= 'composerData:' AND c.key < 'composerData;'
"""


def tables(conn: sqlite3.Connection) -> set[str]:
    """The tables the database has."""
    return {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def composer_tokens(conn: sqlite3.Connection) -> list[tuple[str, int, str | None, str]]:
    """Every composer: `(id, row id, text after "lastUpdatedAt":, "<messages>:<last
    message row id>")`, in one statement."""
    return [
        (str(cid), int(at), _text(updated), str(bubbles))
        for cid, at, updated, bubbles in conn.execute(_TOKENS)
        if cid
    ]


def composer_ids(conn: sqlite3.Connection) -> list[str]:
    """Every composer's id, from the key index alone."""
    return [
        str(row[0])
        for row in conn.execute(
            f"SELECT substr(key, {len(COMPOSER) + 1}) FROM {KV}"
            " WHERE key >= 'composerData:' AND key < 'composerData;'"
        )
    ]


def composer_value(conn: sqlite3.Connection, composer_id: str) -> object | None:
    """A composer's value, or None when it has no row (any more)."""
    row = conn.execute(
        f"SELECT value FROM {KV} WHERE key = ?", (COMPOSER + composer_id,)
    ).fetchone()
    return row[0] if row else None


def bubble_values(conn: sqlite3.Connection, composer_id: str) -> list[tuple[str, object]]:
    """A composer's message rows: `(bubble id, value)`, in key order."""
    prefix = f"{BUBBLE}{composer_id}:"
    return [
        (str(key)[len(prefix) :], value)
        for key, value in conn.execute(
            f"SELECT key, value FROM {KV} WHERE key >= ? AND key < ? AND value IS NOT NULL",
            (prefix, _after(prefix)),
        )
    ]


def item_values(conn: sqlite3.Connection, keys: Iterable[str]) -> dict[str, object]:
    """The `ItemTable` values under `keys` that exist."""
    wanted = list(keys)
    marks = ",".join("?" * len(wanted))
    return {
        str(key): value
        for key, value in conn.execute(
            f"SELECT key, value FROM {ITEMS} WHERE key IN ({marks}) AND value IS NOT NULL", wanted
        )
    }


def _after(prefix: str) -> str:
    """The smallest string above every string that starts with `prefix`."""
    return prefix[:-1] + chr(ord(prefix[-1]) + 1)


def _text(value: object) -> str | None:
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return value if isinstance(value, str) else None
