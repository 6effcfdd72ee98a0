"""The connection: opening, transactions that take the write lock up front, settings."""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, nullcontext, suppress
from pathlib import Path
from typing import Any, Self

import apsw

from findsession.errors import DatabaseError, IndexBusy, IndexFull
from findsession.paths import expand
from findsession.storage.sql.connection import SqlConnection
from findsession.storage.sqlite.dialect import SqliteDialect
from findsession.storage.sqlite.migrations import migrate
from findsession.storage.sqlite.opening import (
    BUSY_TIMEOUT_MS,
    PATH_HINT,
    check_current,
    claim,
    connect,
    make_private,
    prepare_path,
    register_functions,
    use_wal,
    writable,
)

#: How long a search waits for the write lock to remember its list. An index run
#: commits about every half second, so this is ample; a `forget` compacting the file
#: can hold the lock for longer, and a search must not wait that out.
BRIEF_BUSY_MS = 2_000


class Connection(SqliteDialect, SqlConnection):
    """The SQLite connection under every part of the store."""

    def __init__(self, db: apsw.Connection, path: Path) -> None:
        self.db = db
        self.path = path
        #: Opened read-only: the file, its folder or its mount cannot be written.
        self.read_only = False
        #: The number of units and the database state it was counted at (`unit_count`).
        self.unit_count_at: tuple[tuple[int, int], int] | None = None

    @classmethod
    def open(cls, path: Path) -> Self:
        """Open or create the index at `path`, upgrading its schema if it is older.

        An index that cannot be written (a read-only file, folder or mount) is opened
        read-only: search, read and status work, and anything that writes says why not.
        """
        path = expand(path)
        prepare_path(path)
        read_only = not writable(path)
        try:
            db = connect(path, read_only)
            db.set_busy_timeout(BUSY_TIMEOUT_MS)
            if not read_only:
                use_wal(db)
                db.execute("PRAGMA synchronous=NORMAL")
                # Deleted text (a session marked private, a forgotten one) is overwritten,
                # not left readable in free pages.
                db.execute("PRAGMA secure_delete=ON")
            db.execute("PRAGMA foreign_keys=ON")
            register_functions(db)
            if read_only:
                check_current(db, path)
            else:
                migrate(db)
        except (apsw.NotADBError, apsw.CorruptError) as exc:
            raise DatabaseError(
                f"{path} is not a findsession index (or is corrupt); it can be set aside and"
                " the index built again from the transcripts",
                cli_hint="run `findsession index --rebuild`, or pass another --db",
            ) from exc
        except (apsw.CantOpenError, apsw.ReadOnlyError, apsw.IOError) as exc:
            raise DatabaseError(
                f"cannot open the index at {path} ({exc}); use an index file that can be read",
                cli_hint=PATH_HINT,
            ) from exc
        if not read_only:
            make_private(path)
        store = cls(db, path)
        store.read_only = read_only
        return store

    @staticmethod
    def set_aside(path: Path) -> Path | None:
        """Move an index (and its WAL) out of the way, for a rebuild; return where to.

        Each set-aside file gets a name of its own: two rebuilds in one second once
        replaced the first set-aside index with the second (an empty one). A name is
        claimed with a hard link, which fails rather than overwrite.
        """
        path = expand(path)
        if not path.exists():
            return None
        stamp = time.strftime("%Y%m%d-%H%M%S")
        sides = [s for s in ("-wal", "-shm") if Path(f"{path}{s}").exists()]
        for n in itertools.count():
            target = path.with_name(f"{path.name}.broken-{stamp}" + (f"-{n}" if n else ""))
            taken = [Path(f"{target}{s}") for s in ("", "-wal", "-shm")]
            if any(t.exists() or t.is_symlink() for t in taken):
                continue
            try:
                claim(path, target)
            except FileExistsError:
                continue
            break
        for side in sides:
            claim(Path(f"{path}{side}"), Path(f"{target}{side}"))
        for side in sides:
            Path(f"{path}{side}").unlink(missing_ok=True)
        path.unlink(missing_ok=True)
        return target

    @staticmethod
    def forgotten_in(path: Path) -> list[str] | None:
        """The ids on the never-index-again list of another index file (one set aside
        by a rebuild), or None when that file cannot be read."""
        try:
            db = apsw.Connection(str(path), flags=apsw.SQLITE_OPEN_READONLY)
            try:
                return [r[0] for r in db.execute("SELECT id FROM private_sessions")]
            finally:
                db.close()
        except apsw.Error:
            return None

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """All or nothing: a crash inside leaves the database as it was before.

        The outermost transaction takes the write lock up front (BEGIN IMMEDIATE). A
        deferred one that read first and then wrote would fail at once with "database is
        locked" when another process (the MCP server's indexer, say) had committed in
        between: SQLite cannot wait that conflict out, but it can wait for the lock.
        A full disk surfaces as `IndexFull`, after the rollback.
        """
        try:
            if self.db.in_transaction:
                with self.db:  # nested: a savepoint inside the outer transaction
                    yield
                return
            self.begin()
            try:
                yield
            except BaseException:
                self.db.execute("ROLLBACK")
                raise
            self.db.execute("COMMIT")
        except apsw.FullError as exc:
            raise IndexFull(f"the disk or database is full ({exc})") from exc

    @property
    def in_transaction(self) -> bool:
        return self.db.in_transaction

    def end_open_transaction(self, commit: bool) -> None:
        """Commit (or roll back) a transaction left open by `begin`, if there is one."""
        if not self.db.in_transaction:
            return
        with suppress(apsw.Error) if not commit else nullcontext():
            self.db.execute("COMMIT" if commit else "ROLLBACK")

    def begin(self) -> None:
        """Take the write lock (BEGIN IMMEDIATE), waiting up to the busy timeout for it."""
        self.require_writable()
        try:
            self.db.execute("BEGIN IMMEDIATE")
        except apsw.BusyError as exc:
            raise IndexBusy(
                f"the index stayed locked by another findsession process for"
                f" {BUSY_TIMEOUT_MS // 1000} s; try again when it is done"
            ) from exc

    def commit(self) -> None:
        try:
            self.db.execute("COMMIT")
        except apsw.FullError as exc:
            raise IndexFull(f"the disk or database is full ({exc})") from exc

    def require_writable(self) -> None:
        """Raise a message that says what to do when this index cannot be written."""
        if self.read_only:
            raise DatabaseError(
                f"the index at {self.path} is read-only (the file, its folder or its disk"
                " cannot be written): searching works; to change it, make it writable or"
                " use another index file"
            )

    @contextmanager
    def brief_transaction(self) -> Iterator[None]:
        """A transaction that waits `BRIEF_BUSY_MS` at most for the write lock."""
        self.db.set_busy_timeout(BRIEF_BUSY_MS)
        try:
            with self.transaction():
                yield
        except (IndexBusy, apsw.BusyError) as exc:
            raise IndexBusy("another findsession process is writing the index") from exc
        finally:
            self.db.set_busy_timeout(BUSY_TIMEOUT_MS)

    def query(self, sql: str, params: Any = ()) -> list[tuple[Any, ...]]:
        return list(self.db.execute(sql, params))

    def execute(self, sql: str, params: Any = ()) -> int:
        self.db.execute(sql, params)
        return int(self.db.changes())

    def many(self, sql: str, rows: Iterable[Any]) -> None:
        self.db.executemany(sql, rows)

    def schema_version(self) -> int:
        return int(self.scalar("PRAGMA user_version"))

    def scrub_wal(self) -> None:
        """Fold the write-ahead log into the file and empty it: old page images in it
        still hold text that was since deleted. Best effort while others read."""
        if self.read_only:
            return
        with suppress(apsw.BusyError, apsw.LockedError):
            self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def size_bytes(self) -> int:
        """The bytes of the index file (its WAL is folded in by `reclaim_space`)."""
        return self.path.stat().st_size

    def location(self) -> str:
        return str(self.path)

    def status_bytes(self) -> int:
        """The file and its write-ahead log, which holds what was written since the
        last checkpoint."""
        sides = (self.path, Path(f"{self.path}-wal"))
        return sum(side.stat().st_size for side in sides if side.exists())

    def reclaim_space(self) -> None:
        """Give the pages freed by deletions back to the file system."""
        self.scrub_wal()
        self.db.execute("VACUUM")
        self.scrub_wal()
