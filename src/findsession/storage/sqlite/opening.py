"""Opening the index file safely: the path checked, the file private, WAL, read-only
when it cannot be written, and set aside (never overwritten) for a rebuild."""

from __future__ import annotations

import os
import stat
import time
from contextlib import suppress
from datetime import UTC, datetime
from pathlib import Path

import apsw

from findsession.errors import DatabaseError
from findsession.projects import in_project
from findsession.storage.sqlite.migrations import SCHEMA_VERSION

#: How long a writer or reader waits for another writer before giving up.
BUSY_TIMEOUT_MS = 30_000
PATH_HINT = "pass --db PATH (or set FINDSESSION_DB) to an index file in a folder you can write"


def prepare_path(path: Path) -> None:
    """Refuse paths that cannot hold an index, with what to do; create a missing folder."""
    if path.exists() and not path.is_file():
        raise DatabaseError(
            f"{path} is not a regular file, so it cannot hold the index", cli_hint=PATH_HINT
        )
    parent = path.parent
    if parent.exists() and not parent.is_dir():
        raise DatabaseError(
            f"{parent} is not a folder, so {path} cannot be created", cli_hint=PATH_HINT
        )
    if not parent.exists():
        try:
            parent.mkdir(parents=True, mode=0o700, exist_ok=True)
        except OSError as exc:
            reason = exc.strerror or str(exc)
            raise DatabaseError(
                f"cannot create the folder {parent} for the index ({reason})",
                cli_hint=PATH_HINT,
            ) from exc
    if not path.exists() and os.access(parent, os.W_OK):
        # Created here, mode 0600, so SQLite's -wal and -shm files (which copy the main
        # file's mode) are private from their first byte. An empty file is a new database.
        with suppress(FileExistsError):
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))


def writable(path: Path) -> bool:
    """True when SQLite can write the index: the file, and the folder for -wal/-shm."""
    if path.exists() and not os.access(path, os.W_OK):
        return False
    sides = [Path(f"{path}{s}") for s in ("-wal", "-shm")]
    folder_ok = os.access(path.parent, os.W_OK)
    return folder_ok or all(s.exists() and os.access(s, os.W_OK) for s in sides)


def connect(path: Path, read_only: bool) -> apsw.Connection:
    if not read_only:
        return apsw.Connection(str(path))
    if not path.exists():
        raise DatabaseError(
            f"there is no index at {path} and its folder cannot be written",
            cli_hint=PATH_HINT,
        )
    flags = apsw.SQLITE_OPEN_READONLY | apsw.SQLITE_OPEN_URI
    try:
        db = apsw.Connection(f"file:{path}?mode=ro", flags=flags)
        db.execute("SELECT count(*) FROM sqlite_schema").fetchone()
        return db
    except apsw.CantOpenError:
        # A WAL index whose -shm cannot be created: read the main file as it stands.
        return apsw.Connection(f"file:{path}?immutable=1", flags=flags)


def use_wal(db: apsw.Connection) -> None:
    """Switch a new index to WAL (the mode is stored in the file, so once is enough).

    The switch needs every other connection gone and SQLite does not wait for that with
    the busy timeout: two processes opening a brand-new index at once saw "database is
    locked". It is retried here for as long as the busy timeout would wait.
    """
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            if db.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                db.execute("PRAGMA journal_mode=WAL")
            return
        except apsw.BusyError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def check_current(db: apsw.Connection, path: Path) -> None:
    version = db.execute("PRAGMA user_version").fetchone()[0]
    if version != SCHEMA_VERSION:
        raise DatabaseError(
            f"the index at {path} is read-only and was written by another findsession"
            f" version (schema {version}, this one uses {SCHEMA_VERSION}): make it"
            " writable once so it can be upgraded"
        )


def make_private(path: Path) -> None:
    """The index and its side files are readable by their owner alone."""
    for suffix in ("", "-wal", "-shm"):
        side = Path(f"{path}{suffix}")
        with suppress(OSError):
            if side.exists() and stat.S_IMODE(side.stat().st_mode) != 0o600:
                os.chmod(side, 0o600)


def claim(source: Path, target: Path) -> None:
    """Give `source` the name `target` too, failing (never replacing) if it is taken."""
    try:
        os.link(source, target)
    except FileExistsError:
        raise
    except OSError:
        # No hard links on this file system: rename, after checking the name is free.
        if target.exists():
            raise FileExistsError(target) from None
        source.rename(target)


def register_functions(db: apsw.Connection) -> None:
    """SQL functions every query may use, as the PostgreSQL schema defines them too:
    `in_project(cwd, project)` (see projects.py) and `now_iso()`, the time now in UTC as
    `YYYY-MM-DDTHH:MM:SSZ` (in statements only: a trigger or default naming it would
    leave the file unwritable by any other program)."""
    db.create_scalar_function(
        "in_project", lambda cwd, root: int(in_project(cwd, root)), 2, deterministic=True
    )
    db.create_scalar_function("now_iso", now_iso, 0, deterministic=False)


def now_iso() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
