"""findsession's public face: index, embed, search, read, resume, list, title, forget,
status.

Every interface (the CLI, the MCP server, and the service and web page to come) calls
only this: arguments in, rendering out. What each of them used to do on its own (choose
the roots, index then embed, scope a project, look a session up, list recent sessions,
forget) happens here once, so the interfaces cannot drift apart. The methods live in
`findsession.core`, one group per module; this module assembles them into the one class
the interfaces import, with the names they use beside it.

    with Findsession.open() as fs:
        fs.index(fs.roots())
        fs.embed()
        response = fs.search("the deploy that lied about being live")
"""

from __future__ import annotations

from pathlib import Path

from findsession import config
from findsession.audit import Auditor
from findsession.config import Config
from findsession.core.archiving import ArchivingMixin, RestoreReport
from findsession.core.auditing import AuditingMixin
from findsession.core.blaming import BlamingMixin
from findsession.core.forgetting import ForgetReport, ForgettingMixin
from findsession.core.going_back import GoingBackMixin
from findsession.core.handing_off import HandingOffMixin
from findsession.core.indexing import IndexingMixin
from findsession.core.indexing import Say as Say
from findsession.core.pushing import BATCH, PushingMixin, PushReport, choose_backend
from findsession.core.reading import ReadingMixin
from findsession.core.sharing import Share, SharingMixin
from findsession.core.titling import TitlingMixin
from findsession.domain import AuditRecord, Root, SourceReport
from findsession.projects import bounded
from findsession.roots import RootChoice
from findsession.search.filters import (
    KINDS,
    MAX_TOP,
    MODES,
    SPEAKERS,
    BadOption,
    SearchOptions,
    parse_when,
)
from findsession.storage import (
    Storage,
    add_person,
    init_server,
    open_storage,
    remove_person,
    server_status,
)
from findsession.storage.push import PushCounts
from findsession.storage.team import Person, ServerStatus
from findsession.titles.report import TitlesReport, UndoReport


class Findsession(
    IndexingMixin,
    ReadingMixin,
    GoingBackMixin,
    HandingOffMixin,
    BlamingMixin,
    AuditingMixin,
    TitlingMixin,
    ForgettingMixin,
    PushingMixin,
    SharingMixin,
    ArchivingMixin,
):
    """One index, opened once; close it (or use `with`) when done."""

    def __init__(self, store: Storage, settings: Config) -> None:
        self.store = store
        self.settings = settings
        #: Things the person should know about how the index was opened.
        self.notes: list[str] = []

    @classmethod
    def open(
        cls, db: str | Path | None = None, *, rebuild: bool = False, backend: str | None = None
    ) -> Findsession:
        """Open the index at `db` (else `FINDSESSION_DB`, else the user data folder).

        `rebuild` sets the existing file aside first (under a name of its own) and
        starts a new one that keeps the old one's list of forgotten sessions. `backend`
        replaces the config's: `sqlite` (the local file even when the config names a
        server), `postgresql` (the config's `[storage] url`) or a server's URL.
        """
        path = config.db_path(str(db) if db is not None else None)
        settings = config.load_config()  # read once; everything below is passed it
        kind, url = choose_backend(settings, backend)
        store, notes = open_storage(path, backend=kind, rebuild=rebuild, url=url)
        fs = cls(store, settings)
        fs.notes = notes
        return fs

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> Findsession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def configured_server() -> str | None:
    """The config's `[storage] url` (or `FINDSESSION_STORAGE_URL`): the team's server."""
    return config.load_config().storage_url


__all__ = [
    "configured_server",
    "BATCH",
    "PushCounts",
    "KINDS",
    "AuditRecord",
    "Auditor",
    "MAX_TOP",
    "MODES",
    "SPEAKERS",
    "BadOption",
    "Findsession",
    "ForgetReport",
    "Person",
    "PushReport",
    "RestoreReport",
    "Root",
    "RootChoice",
    "SearchOptions",
    "ServerStatus",
    "Share",
    "SourceReport",
    "TitlesReport",
    "UndoReport",
    "add_person",
    "bounded",
    "init_server",
    "parse_when",
    "remove_person",
    "server_status",
]
