"""The questions findsession asks Zed's `threads.db`, read-only, and nothing else.

Zed's agent keeps every thread in one SQLite file, table `threads(id, summary,
updated_at, data_type, data)`, to which later versions added `parent_id` (a subagent's
thread names the thread that started it), `folder_paths` and `folder_paths_order` (the
project's folders, newline-separated in lexicographic order, with the order they were
opened in as comma-separated indexes) and `created_at` (RFC 3339, like `updated_at`).
`data` is the whole thread as JSON, zstd-compressed when `data_type` is `zstd` (every
save since the store began) or plain when it is `json`. A save replaces the row, so a
thread's change token is its row id, its `updated_at`, the size of its data and a digest
of its other columns. The only connection is the one `foreign_db.reading` opens.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from findsession.sources import foreign_db

TABLE = "threads"
_NEEDS = {"id", "summary", "updated_at", "data_type", "data"}
#: Optional columns, in the order `Thread` takes them.
_OPTIONAL = ("parent_id", "folder_paths", "folder_paths_order", "created_at")


@dataclass(frozen=True, slots=True)
class Thread:
    """One thread's row, without its data."""

    key: str
    rank: int  # the row id: unique in the file, orders line numbers
    summary: str | None
    updated_at: str | None
    parent: str | None
    folder_paths: str | None
    folder_order: str | None
    created_at: str | None
    token: str


def missing_table(conn: sqlite3.Connection) -> str | None:
    """Why the file is not a Zed threads store this reader knows, or None when it is."""
    lacking = _NEEDS - foreign_db.columns(conn, TABLE)
    if lacking:
        return f"no {TABLE} table with {', '.join(sorted(lacking))}"
    return None


def threads(conn: sqlite3.Connection) -> list[Thread]:
    """Every thread with its change token, in one query."""
    have = foreign_db.columns(conn, TABLE)
    optional = ", ".join(c if c in have else "NULL" for c in _OPTIONAL)
    rows = conn.execute(
        f"SELECT id, rowid, summary, updated_at, length(data), {optional}"
        f" FROM {TABLE} ORDER BY rowid"
    )
    found = []
    for key, rank, summary, updated, size, parent, folders, order, created in rows:
        if not isinstance(key, str) or not key:
            continue
        own = "\x1f".join(str(v) for v in (summary, parent, folders, order, created))
        digest = foreign_db.text_digest(own)
        found.append(
            Thread(
                key=key,
                rank=int(rank),
                summary=_text(summary),
                updated_at=_text(updated),
                parent=_text(parent),
                folder_paths=_text(folders),
                folder_order=_text(order),
                created_at=_text(created),
                token=f"{rank}:{updated}:{size}:{digest}",
            )
        )
    return found


def data(conn: sqlite3.Connection, rank: int) -> tuple[object, object]:
    """A thread's `data_type` and `data`, as the row holds them."""
    row = conn.execute(f"SELECT data_type, data FROM {TABLE} WHERE rowid = ?", (rank,)).fetchone()
    return (row[0], row[1]) if row else (None, None)


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None
