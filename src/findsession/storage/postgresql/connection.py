"""The connection to the server: opening, transactions that serialise writers, settings.

One psycopg connection in autocommit mode: a read outside a transaction sees the latest
committed state, as a search should. A write transaction takes a transaction-level
advisory lock first, so two index runs against one database take turns the way two
writers of the SQLite file do (`sync_units` reads a session's units, then writes them:
two runs interleaving there would both insert the same unit).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any, Self

import psycopg
from psycopg import errors, pq
from psycopg.types.string import StrDumperUnknown

from findsession.errors import DatabaseError, IndexBusy
from findsession.storage.postgresql.dialect import PostgresDialect, native
from findsession.storage.postgresql.migrations import SCHEMA, migrate
from findsession.storage.sql.connection import SqlConnection

#: How long a writer waits for another writer before giving up, as on SQLite.
LOCK_TIMEOUT_MS = 30_000
#: How long a search waits for the writers' lock to remember its list: it must not wait
#: out an index run's whole commit group, let alone a `forget`.
BRIEF_WAIT_MS = 2_000
#: The advisory lock every write transaction holds (any number, fixed for this schema).
WRITE_LOCK = 0x66696E64
URL_HINT = "check [storage] url (or FINDSESSION_STORAGE_URL): postgresql://user@host:port/database"


def display_url(url: str) -> str:
    """The URL without its password: what status and errors may show."""
    info = psycopg.conninfo.conninfo_to_dict(url)
    info.pop("password", None)
    host = info.get("host", "")
    port = f":{info['port']}" if info.get("port") else ""
    user = f"{info['user']}@" if info.get("user") else ""
    where = host if host and not host.startswith("/") else f"[{host}]" if host else ""
    return f"postgresql://{user}{where}{port}/{info.get('dbname', '')}"


class Connection(PostgresDialect, SqlConnection):
    """The PostgreSQL connection under every part of the store."""

    BEGIN_SNAPSHOT = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"

    def __init__(self, db: psycopg.Connection[Any], url: str, path: Path) -> None:
        self.db = db
        #: The server and database, password left out.
        self.url = display_url(url)
        #: Where this machine keeps its own files for the index (the audit key beside
        #: it, the service's socket named after it): the local index path it was opened by.
        self.path = path
        #: A server index is never opened read-only: the server's roles decide.
        self.read_only = False
        self._savepoints = itertools.count()
        self._conninfo = url
        self._beside: Connection | None = None

    @classmethod
    def open(cls, url: str, path: Path) -> Self:
        """Connect to `url`, create or upgrade the schema, and use it."""
        try:
            db = psycopg.connect(url, autocommit=True, connect_timeout=10)
        except psycopg.Error as exc:
            raise DatabaseError(
                f"cannot reach the PostgreSQL index at {display_url(url)} ({_first_line(exc)})",
                cli_hint=URL_HINT,
            ) from exc
        db.adapters.register_dumper(str, _TextWithoutNul)
        try:
            # psycopg prepares a statement run five times, and the server may then keep
            # one plan for it made from the tables as they were: a push into an empty
            # server planned its lookups as scans of tables it then filled. Each run
            # is planned for the tables as they are (a fraction of a millisecond).
            db.execute("SET plan_cache_mode = force_custom_plan")
            migrate(db)
        except psycopg.Error as exc:
            db.close()
            raise DatabaseError(
                f"cannot prepare the index at {display_url(url)} ({_first_line(exc)})"
            ) from exc
        except BaseException:
            db.close()
            raise
        return cls(db, url, path)

    def beside(self) -> Connection | None:
        """A second connection to the index as the same role, made on first use and
        kept: for a statement that can run on the server while this one runs another
        (a search's second keyword list, on the server's second core). None when the
        server refuses one (its connections, or the role's, are all taken): the work
        then runs on this connection, one statement after another."""
        if self._beside is None or self._beside.db.closed or self._beside.db.broken:
            if self._beside is not None:
                self._beside.db.close()
                self._beside = None
            try:
                self._beside = Connection.open(self._conninfo, self.path)
            except DatabaseError:
                return None
        return self._beside

    def close(self) -> None:
        if self._beside is not None:
            self._beside.db.close()
        self.db.close()

    @property
    def in_transaction(self) -> bool:
        """Inside BEGIN ... COMMIT. A statement running on another thread (a search loads
        the model beside its keyword query, over the same connection) is not one."""
        status = self.db.info.transaction_status
        return status in (pq.TransactionStatus.INTRANS, pq.TransactionStatus.INERROR)

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """All or nothing; nested, a savepoint inside the outer transaction."""
        if self.in_transaction:
            name = f"s{next(self._savepoints)}"
            self.db.execute(f"SAVEPOINT {name}")
            try:
                yield
            except BaseException:
                with suppress(psycopg.Error):
                    self.db.execute(f"ROLLBACK TO SAVEPOINT {name}")
                    self.db.execute(f"RELEASE SAVEPOINT {name}")
                raise
            self.db.execute(f"RELEASE SAVEPOINT {name}")
            return
        self.begin()
        try:
            yield
        except BaseException:
            with suppress(psycopg.Error):
                self.db.execute("ROLLBACK")
            raise
        self.commit()

    def begin(self) -> None:
        """Start a write transaction holding the writers' lock, waiting for it as long as
        SQLite's busy timeout would."""
        self.begin_waiting(LOCK_TIMEOUT_MS)

    def begin_waiting(self, wait_ms: int) -> None:
        """Start a write transaction holding the writers' lock, waiting up to `wait_ms`."""
        self.db.execute("BEGIN")
        try:
            self.db.execute(f"SET LOCAL lock_timeout = {int(wait_ms)}")
            self.db.execute("SELECT pg_advisory_xact_lock(%s)", (WRITE_LOCK,))
        except errors.LockNotAvailable as exc:
            self.db.execute("ROLLBACK")
            raise IndexBusy(
                f"another findsession process held the index at {self.url} for"
                f" {wait_ms // 1000} s; try again when it is done"
            ) from exc

    def commit(self) -> None:
        self.db.execute("COMMIT")

    def end_open_transaction(self, commit: bool) -> None:
        """Commit (or roll back) a transaction left open by `begin`, if there is one."""
        if not self.in_transaction:
            return
        if commit:
            self.db.execute("COMMIT")
        else:
            with suppress(psycopg.Error):
                self.db.execute("ROLLBACK")

    def require_writable(self) -> None:
        """Nothing to check here: a role that may not write gets the server's refusal."""

    @contextmanager
    def brief_transaction(self) -> Iterator[None]:
        """A write transaction that waits `BRIEF_WAIT_MS` at most for the writers' lock."""
        self.begin_waiting(BRIEF_WAIT_MS)
        try:
            yield
        except BaseException:
            self.end_open_transaction(commit=False)
            raise
        self.commit()

    def query(self, sql: str, params: Any = ()) -> list[tuple[Any, ...]]:
        return self.db.execute(native(sql), params).fetchall()

    def execute(self, sql: str, params: Any = ()) -> int:
        return int(self.db.execute(native(sql), params).rowcount)

    def many(self, sql: str, rows: Iterable[Any]) -> None:
        batch = list(rows)
        if batch:
            with self.db.cursor() as cursor:
                cursor.executemany(native(sql), batch)

    def schema_version(self) -> int:
        return int(self.setting("schema_version") or 0)

    def location(self) -> str:
        return self.url

    def pushed(self) -> list[dict[str, Any]]:
        return [
            {"owner": owner, "machine": machine, "sessions": n, "yours": yours}
            for owner, machine, n, yours in self.query(
                "SELECT owner, machine, count(*), owner = current_user FROM sessions"
                " WHERE machine <> '' GROUP BY owner, machine"
                " ORDER BY owner = current_user DESC, owner, machine"
            )
        ]

    def scrub_wal(self) -> None:
        """The server's write-ahead log is its own to recycle: nothing to do here."""

    def reclaim_space(self) -> None:
        """Let the server reuse (and overwrite) the space deleted rows held."""
        if not self.in_transaction:
            self.db.execute("VACUUM")

    def size_bytes(self) -> int:
        """The bytes this index's tables and their indexes take on the server."""
        return int(
            self.scalar(
                "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c"
                " JOIN pg_namespace n ON n.oid = c.relnamespace"
                " WHERE n.nspname = ? AND c.relkind IN ('r', 'm')",
                (SCHEMA,),
            )
        )


class _TextWithoutNul(StrDumperUnknown):
    """Text as sent to the server, NUL characters replaced: PostgreSQL's text cannot
    hold them, and a transcript (a tool's binary output) sometimes does."""

    def dump(self, obj: str) -> Any:
        return super().dump(obj.replace("\x00", "\ufffd") if "\x00" in obj else obj)


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]
