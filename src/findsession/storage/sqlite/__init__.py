"""The one SQLite file: text, keyword index and vectors, kept consistent together.

Opened through apsw because it can load SQLite extensions on every platform and ships a
recent SQLite with FTS5. WAL mode lets searches read while an index run writes. Only
this package writes SQL that changes data; `Store` is assembled from one part per
concern (files, records, sessions, units, vectors) over one connection.
"""

from __future__ import annotations

from pathlib import Path

from findsession.storage.base import TitleWrite, protocol_methods
from findsession.storage.push import PushSource, push_methods
from findsession.storage.sqlite.audit import AuditMixin
from findsession.storage.sqlite.boundary import map_errors
from findsession.storage.sqlite.chunks import VectorsMixin
from findsession.storage.sqlite.file_writes import FileWritesMixin
from findsession.storage.sqlite.files import FilesMixin
from findsession.storage.sqlite.keyword_index import KeywordMixin
from findsession.storage.sqlite.opening import BUSY_TIMEOUT_MS
from findsession.storage.sqlite.push_source import PushSourceMixin
from findsession.storage.sqlite.records import RecordsMixin
from findsession.storage.sqlite.rows import FileState, UnitRow
from findsession.storage.sqlite.runs import RunsMixin
from findsession.storage.sqlite.sessions import SessionsMixin
from findsession.storage.sqlite.shown import ShownMixin
from findsession.storage.sqlite.status import StatusMixin
from findsession.storage.sqlite.titles import TitlesMixin
from findsession.storage.sqlite.vector_index import VectorSearchMixin


class Store(
    FilesMixin,
    RecordsMixin,
    SessionsMixin,
    KeywordMixin,
    VectorsMixin,
    VectorSearchMixin,
    RunsMixin,
    StatusMixin,
    AuditMixin,
    ShownMixin,
    TitlesMixin,
    PushSourceMixin,
    FileWritesMixin,
):
    """A findsession index database (`findsession.storage.base.Storage`); use
    `Store.open`, and close it when done."""


# Every method the storage protocols name maps SQLite's errors (see `boundary`).
map_errors(Store, [*protocol_methods(), *push_methods(PushSource)])


def open_index(path: Path, *, rebuild: bool = False) -> tuple[Store, list[str]]:
    """Open the index file at `path`; `rebuild` first sets the existing file aside
    (under a name of its own) and starts a new one that keeps its forgotten sessions."""
    notes: list[str] = []
    forgotten: list[str] | None = []
    titles: list[TitleWrite] | None = []
    if rebuild:
        aside = Store.set_aside(path)
        if aside:
            notes.append(f"set the old index aside as {aside}; indexing from scratch")
            forgotten = Store.forgotten_in(aside)
            if forgotten is None:
                notes.append(
                    "warning: the old index is too damaged to tell which sessions were"
                    " forgotten: forget them again after this run"
                )
            titles = Store.title_writes_in(aside)
            if titles is None:
                notes.append(
                    "warning: the old index is too damaged to tell which titles findsession"
                    " wrote: they can no longer be taken back by findsession"
                )
    store = Store.open(path)
    if forgotten:
        store.keep_forgotten(forgotten)
    if titles:
        with store.transaction():
            for write in titles:
                store.record_title_write(write)
    return store, notes


__all__ = ["BUSY_TIMEOUT_MS", "FileState", "Store", "UnitRow", "open_index"]
