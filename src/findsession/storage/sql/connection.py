"""What every backend's connection gives the statements written once.

A statement here is SQL with `?` for each value, as SQLite takes it and as the DB-API
calls `qmark`; the PostgreSQL connection turns the marks into psycopg's own before
sending. `query` returns rows, `scalar` the first value, `execute` runs a statement
for the rows it changes, `many` runs one statement per row of values.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any, Self

from findsession.storage.sql.dialect import Dialect
from findsession.storage.types import TitleWrite


class SqlConnection(Dialect):
    """One backend's connection, as the shared statements use it."""

    db: Any
    path: Path
    read_only: bool

    def query(self, sql: str, params: Any = ()) -> list[tuple[Any, ...]]:
        """The rows of a statement that returns rows (`SELECT`, `... RETURNING`)."""
        raise NotImplementedError

    def scalar(self, sql: str, params: Any = ()) -> Any:
        """The first value of the first row, or None."""
        rows = self.query(sql, params)
        return rows[0][0] if rows else None

    def execute(self, sql: str, params: Any = ()) -> int:
        """Run a statement that returns no rows; how many rows it changed."""
        raise NotImplementedError

    def many(self, sql: str, rows: Iterable[Any]) -> None:
        """Run one statement once per row of values."""
        raise NotImplementedError

    def transaction(self) -> AbstractContextManager[None]:
        """All or nothing; nested, a savepoint."""
        raise NotImplementedError

    #: How a backend starts a transaction that only reads (SQLite's takes no write lock).
    BEGIN_SNAPSHOT = "BEGIN"

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """Several reads that see one state of the index (inside a transaction: its own)."""
        if self.in_transaction:
            yield
            return
        self.db.execute(self.BEGIN_SNAPSHOT)
        try:
            yield
        finally:
            self.db.execute("COMMIT")

    def brief_transaction(self) -> AbstractContextManager[None]:
        """A transaction that waits only briefly for the writers' lock, else raises
        `IndexBusy`: a search remembering its list must not wait out an index run."""
        raise NotImplementedError

    @property
    def in_transaction(self) -> bool:
        raise NotImplementedError

    def location(self) -> str:
        """Where the index is, as `status` names it (a file, a server's URL)."""
        raise NotImplementedError

    def size_bytes(self) -> int:
        raise NotImplementedError

    def status_bytes(self) -> int:
        """The space the index takes as `status` reports it."""
        return self.size_bytes()

    def schema_version(self) -> int:
        raise NotImplementedError

    def pushed(self) -> list[dict[str, Any]]:
        """Where the sessions came from, per owner and machine, on a server people push
        to (`IndexStatus.pushed`); nothing in a local index."""
        return []

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def setting(self, key: str) -> str | None:
        return self.scalar("SELECT value FROM settings WHERE key = ?", (key,))

    def set_setting(self, key: str, value: str) -> None:
        self.execute(
            "INSERT INTO settings (key, value) VALUES (?, ?)"
            f" ON CONFLICT {self.key('settings')} DO UPDATE SET value = excluded.value",
            (key, value),
        )

    def keep_forgotten(self, ids: Iterable[str]) -> None:
        """Put `ids` on the never-index-again list (carried over from a set-aside index)."""
        with self.transaction():
            self.many(
                "INSERT INTO private_sessions (id, marked_at) VALUES (?, now_iso())"
                " ON CONFLICT DO NOTHING",
                [(i,) for i in ids],
            )


def conditions(*pairs: tuple[str, object]) -> tuple[str, list[object]]:
    """The conditions (each with one `?`) whose value is given, AND-ed, and their values;
    `true` when none is."""
    kept = [(condition, value) for condition, value in pairs if value]
    return " AND ".join(c for c, _ in kept) or "true", [v for _, v in kept]


def carry_over(store: Any, forgotten: list[str] | None, titles: list[TitleWrite] | None) -> None:
    """What a rebuilt index keeps of the one set aside: the sessions forgotten (never
    indexed again) and the titles findsession wrote (so `titles --undo` still can)."""
    if forgotten:
        store.keep_forgotten(forgotten)
    if titles:
        with store.transaction():
            for write in titles:
                store.record_title_write(write)
