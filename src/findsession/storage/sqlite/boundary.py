"""The storage boundary for errors: no apsw exception leaves the SQLite package.

Opening and the write lock map their own errors with the most specific advice (see
`connection`); anything SQLite raises later (a disk that fails mid-search, a file
damaged under a running server, a full disk inside a write) is mapped here, on every
method of the storage protocols, into a `DatabaseError` that says what to do. An
interface then prints one line instead of a traceback, and an agent gets a tool error it
can read.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TypeVar

import apsw

from findsession.errors import DatabaseError, IndexBusy, IndexFull
from findsession.storage.sql import boundary

T = TypeVar("T", bound=type)


def database_error(exc: apsw.Error, path: Path | None) -> DatabaseError:
    """The `DatabaseError` for an SQLite failure, saying what the person can do."""
    where = f"the index at {path}" if path else "the index"
    if isinstance(exc, apsw.FullError):
        return IndexFull(f"the disk or database is full ({exc}): free some space and run again")
    if isinstance(exc, apsw.BusyError | apsw.LockedError):
        return IndexBusy(f"{where} is locked by another findsession process; try again shortly")
    if isinstance(exc, apsw.CorruptError | apsw.NotADBError):
        return DatabaseError(
            f"{where} is damaged ({exc}); it can be set aside and built again from the transcripts",
            cli_hint="run `findsession index --rebuild`",
        )
    if isinstance(exc, apsw.ReadOnlyError):
        return DatabaseError(
            f"{where} cannot be written ({exc}): make the file and its folder writable"
        )
    if isinstance(exc, apsw.IOError):
        return DatabaseError(f"the disk failed while using {where} ({exc}); check the disk")
    return DatabaseError(f"{where} failed ({type(exc).__name__}: {exc})")


def map_errors(cls: T, names: Iterable[str]) -> T:
    """Wrap each named method of `cls` so apsw errors leave it as `DatabaseError`s."""
    return boundary.map_errors(
        cls, names, apsw.Error, lambda exc, store: database_error(exc, getattr(store, "path", None))
    )
