"""The one SQLite file: text, keyword index and vectors, kept consistent together.

Opened through apsw because it can load SQLite extensions on every platform and ships a
recent SQLite with FTS5. WAL mode lets searches read while an index run writes. Only
this package writes SQL that changes data; `Store` is assembled from one part per
concern (files, records, sessions, units, vectors) over one connection.
"""

from __future__ import annotations

from findsession.storage.sqlite.chunks import VectorsMixin
from findsession.storage.sqlite.files import FilesMixin
from findsession.storage.sqlite.opening import BUSY_TIMEOUT_MS
from findsession.storage.sqlite.records import RecordsMixin
from findsession.storage.sqlite.rows import FileState, UnitRow
from findsession.storage.sqlite.runs import RunsMixin
from findsession.storage.sqlite.sessions import SessionsMixin
from findsession.storage.sqlite.units import UnitsMixin


class Store(FilesMixin, RecordsMixin, SessionsMixin, UnitsMixin, VectorsMixin, RunsMixin):
    """A findsession index database. Use `Store.open`; close it when done."""


__all__ = ["BUSY_TIMEOUT_MS", "FileState", "Store", "UnitRow"]
