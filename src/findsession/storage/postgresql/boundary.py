"""The storage boundary for errors: no psycopg exception leaves the PostgreSQL package.

Anything the server or the network raises inside a protocol method (a server restarted
mid-search, a full disk, a role without the right to write, a lock held too long) is
mapped here into a `DatabaseError` that says what to do, as the SQLite package does for
its own errors.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeVar

import psycopg
from psycopg import errors

from findsession.errors import DatabaseError, IndexBusy, IndexFull
from findsession.storage.sql import boundary

T = TypeVar("T", bound=type)


def database_error(exc: psycopg.Error, where: str) -> DatabaseError:
    """The `DatabaseError` for a server failure, saying what the person can do."""
    said = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
    if isinstance(exc, errors.DiskFull | errors.OutOfMemory):
        return IndexFull(f"the server of {where} is out of space ({said}); free some and run again")
    if isinstance(exc, errors.LockNotAvailable | errors.DeadlockDetected):
        return IndexBusy(f"{where} is busy with another findsession process; try again shortly")
    if isinstance(exc, errors.InsufficientPrivilege):
        return DatabaseError(
            f"this role may not do that in {where} ({said}): ask the database's owner"
        )
    if isinstance(exc, psycopg.OperationalError):
        return DatabaseError(
            f"the connection to {where} failed ({said}); check that the server is up"
        )
    return DatabaseError(f"{where} failed ({type(exc).__name__}: {said})")


def map_errors(cls: T, names: Iterable[str]) -> T:
    """Wrap each named method of `cls` so psycopg errors leave it as `DatabaseError`s."""
    return boundary.map_errors(
        cls,
        names,
        psycopg.Error,
        lambda exc, store: database_error(exc, f"the index at {store.url}"),
    )
