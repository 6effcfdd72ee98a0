"""The one SQLite file: text, keyword index and vectors, kept consistent together.

Opened through apsw because it can load SQLite extensions on every platform and ships a
recent SQLite with FTS5. WAL mode lets searches read while an index run writes. `Store`
is the statements both backends share (findsession.storage.sql), one part per concern,
over this package's connection, with what only SQLite does: FTS5 and its CJK bigram
table, the vector scan and its pack, and what a push reads from the file.
"""

from __future__ import annotations

from pathlib import Path

from findsession.storage.base import FileState, TitleWrite, UnitRow, protocol_methods
from findsession.storage.push import PushSource, push_methods
from findsession.storage.sql.connection import carry_over
from findsession.storage.sql.statements import SharedStatements
from findsession.storage.sqlite.boundary import map_errors
from findsession.storage.sqlite.chunks import VectorsMixin
from findsession.storage.sqlite.cjk_index import CjkIndexMixin
from findsession.storage.sqlite.connection import Connection
from findsession.storage.sqlite.keyword_index import KeywordMixin
from findsession.storage.sqlite.opening import BUSY_TIMEOUT_MS
from findsession.storage.sqlite.push_source import PushSourceMixin
from findsession.storage.sqlite.titles import title_writes_in
from findsession.storage.sqlite.vector_search import VectorSearchMixin


class Store(
    KeywordMixin,
    VectorsMixin,
    VectorSearchMixin,
    PushSourceMixin,
    CjkIndexMixin,
    SharedStatements,
    Connection,
):
    """A findsession index database (`findsession.storage.base.Storage`); use
    `Store.open`, and close it when done."""

    title_writes_in = staticmethod(title_writes_in)


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
            titles = title_writes_in(aside)
            if titles is None:
                notes.append(
                    "warning: the old index is too damaged to tell which titles findsession"
                    " wrote: they can no longer be taken back by findsession"
                )
    store = Store.open(path)
    carry_over(store, forgotten, titles)
    return store, notes


__all__ = ["BUSY_TIMEOUT_MS", "FileState", "Store", "UnitRow", "open_index"]
