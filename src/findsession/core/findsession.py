"""`Findsession`: one index opened with its settings, every method of the core API on it.

The methods live in this package, one group per module (a mixin over `base.Core`); this
module assembles them into the one class `findsession.api` offers.
"""

from __future__ import annotations

from pathlib import Path

from findsession import config
from findsession.config import Config
from findsession.core.archiving import ArchivingMixin
from findsession.core.auditing import AuditingMixin
from findsession.core.blaming import BlamingMixin
from findsession.core.forgetting import ForgettingMixin
from findsession.core.going_back import GoingBackMixin
from findsession.core.handing_off import HandingOffMixin
from findsession.core.indexing import IndexingMixin
from findsession.core.pushing import PushingMixin, choose_backend
from findsession.core.reading import ReadingMixin
from findsession.core.sharing import SharingMixin
from findsession.core.titling import TitlingMixin
from findsession.storage import (
    Storage,
    open_storage,
)


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
