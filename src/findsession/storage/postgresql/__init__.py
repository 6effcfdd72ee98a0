"""A findsession index on a PostgreSQL server: text, full-text search and pgvector.

The same tables as the SQLite file, one schema (`findsession`) in the database the URL
names, created or upgraded on open. `Store` is the statements both backends share
(findsession.storage.sql), one part per concern, over this package's connection, with
what only the server does: keyword search on `tsvector` columns (see `schema`), vector
search on pgvector's HNSW index (see `vectors`), every filter inside both statements;
pushes received, projects shared, a pushed session read from its units. Nothing outside
this package sees psycopg.
"""

from __future__ import annotations

import time
from pathlib import Path

from findsession.paths import db_path
from findsession.storage.base import TitleWrite, protocol_methods
from findsession.storage.postgresql.boundary import map_errors
from findsession.storage.postgresql.connection import Connection
from findsession.storage.postgresql.keyword_words import KeywordMixin
from findsession.storage.postgresql.migrations import SCHEMA
from findsession.storage.postgresql.push_target import PushTargetMixin
from findsession.storage.postgresql.records import RecordsMixin
from findsession.storage.postgresql.roles import (
    add_person,
    init_server,
    remove_person,
    server_status,
)
from findsession.storage.postgresql.sharing import SharingMixin
from findsession.storage.postgresql.units import UnitsMixin
from findsession.storage.postgresql.vectors import VectorsMixin
from findsession.storage.push import PushTarget, Sharing, push_methods
from findsession.storage.sql.connection import carry_over
from findsession.storage.sql.statements import SharedStatements


class Store(
    PushTargetMixin,
    SharingMixin,
    KeywordMixin,
    VectorsMixin,
    RecordsMixin,
    UnitsMixin,
    SharedStatements,
    Connection,
):
    """A findsession index on a PostgreSQL server (`findsession.storage.base.Storage`);
    use `open_index`, and close it when done."""


# Every method the storage protocols name maps psycopg's errors (see `boundary`).
map_errors(Store, [*protocol_methods(), *push_methods(PushTarget), *push_methods(Sharing)])


def open_index(
    location: str, *, rebuild: bool = False, local: Path | None = None
) -> tuple[Store, list[str]]:
    """Open the index in the database at the URL `location`; `local` is where this
    machine keeps its own files for it (the local index path, by default the usual one).

    `rebuild` sets the existing schema aside under a name of its own (nothing is
    deleted) and starts a new one that keeps its forgotten sessions and title log.
    """
    notes: list[str] = []
    forgotten: list[str] = []
    titles: list[TitleWrite] = []
    if rebuild:
        old = Store.open(location, local or db_path())
        forgotten = sorted(old.private_sessions())
        titles = old.title_writes()
        aside = f"{SCHEMA}_aside_{time.strftime('%Y%m%d_%H%M%S')}"
        with old.transaction():
            old.execute(f"ALTER SCHEMA {SCHEMA} RENAME TO {aside}")
        old.close()
        notes.append(
            f"set the old index aside as schema {aside} (drop it when no longer wanted);"
            " indexing from scratch"
        )
    store = Store.open(location, local or db_path())
    carry_over(store, forgotten, titles)
    return store, notes


__all__ = [
    "Connection",
    "Store",
    "add_person",
    "init_server",
    "open_index",
    "remove_person",
    "server_status",
]
