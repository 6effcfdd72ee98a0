"""The MCP server's background indexer: keeps the index fresh while the agent works.

A search never waits for it and never sees "database is locked": it writes through its
own connection, and WAL readers do not block on the writer.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

from findsession.api import Findsession, Root

#: Seconds between background index runs.
REFRESH_SECONDS = 30.0


class BackgroundIndexer(threading.Thread):
    """Index changed files every `interval` seconds on its own connection, quietly.

    Failures are kept for the next search's notes rather than raised: a broken file
    or a busy database must never cost an agent its search.
    """

    def __init__(self, db_path: Path, roots: list[Root], interval: float) -> None:
        super().__init__(daemon=True, name="findsession-indexer")
        self.db_path, self.roots, self.interval = db_path, roots, interval
        self.last_error: str | None = None

    def run(self) -> None:
        while True:
            try:
                # Opened each round: the config is read again (the user may edit it).
                with Findsession.open(self.db_path) as fs:
                    fs.index([r for r in self.roots if r.path.exists()])
                    fs.embed()  # without a model keyword search still works; search says why
                self.last_error = None
            except Exception as exc:  # noqa: BLE001 - never let the thread die
                self.last_error = str(exc)
            time.sleep(self.interval)
