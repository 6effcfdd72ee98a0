"""Every concern whose statements both backends run as written here, in one class: what
a backend's `Store` is made of besides its connection and its own parts (a backend that
adds to a concern, as the server's records and units do, lists its part first)."""

from __future__ import annotations

from findsession.storage.sql.audit import AuditMixin
from findsession.storage.sql.file_writes import FileWritesMixin
from findsession.storage.sql.files import FilesMixin
from findsession.storage.sql.records import RecordsMixin
from findsession.storage.sql.sessions import SessionsMixin
from findsession.storage.sql.shown import ShownMixin
from findsession.storage.sql.status import StatusMixin
from findsession.storage.sql.titles import TitlesMixin
from findsession.storage.sql.units import UnitsMixin


class SharedStatements(
    FilesMixin,
    RecordsMixin,
    SessionsMixin,
    UnitsMixin,
    StatusMixin,
    AuditMixin,
    ShownMixin,
    TitlesMixin,
    FileWritesMixin,
):
    """Files, records, sessions, units, status and runs, the audit, the lists shown,
    titles, the files written."""
