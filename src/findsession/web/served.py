"""The page served by the resident service: started on the first `findsession ui`, the
same URL for every later one while the service lives.

It reads the service's warm index under the service's search lock, so a page search
costs what a forwarded CLI search costs, and the two never run at once on one
connection.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from findsession.api import Findsession
from findsession.service.resident import Resident
from findsession.web.server import PageServer, PortUnavailable

_started = threading.Lock()
_page: PageServer | None = None


def page_for(resident: Resident, port: int = 0) -> dict:
    """`{"ok", "url", "reused"}`: the service's page, started now if it was not yet
    (on `port`, 0 for any free one); a later call gets the same page whatever its port.
    `{"ok": false, "error", "hint"}` when that port cannot be listened on."""
    global _page
    with _started:
        if _page is not None:
            return {"ok": True, "url": _page.url, "reused": True}

        @contextmanager
        def index() -> Iterator[Findsession]:
            with resident.lock:
                yield resident.current()

        page = PageServer(index, port=port)
        try:
            url = page.start()
        except PortUnavailable as exc:
            return {"ok": False, "error": str(exc), "hint": exc.cli_hint}
        _page = page
        return {"ok": True, "url": url, "reused": False}


def stop_page() -> None:
    """End the service's page, if one runs (the service is stopping)."""
    global _page
    with _started:
        if _page is not None:
            _page.stop()
            _page = None
