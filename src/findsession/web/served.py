"""The page served by the resident service: started on the first `findsession ui`, the
same page (port and prefix) for every later one while the service lives, each `ui`
given links of its own (see `keys`: a link lets one browser in, once).

It reads the service's warm index under the service's search lock, so a page search
costs what a forwarded CLI search costs, and the two never run at once on one
connection.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from findsession.api import Findsession
from findsession.service.resident import Resident
from findsession.web.server import PageServer, PortUnavailable

_started = threading.Lock()
_page: PageServer | None = None


def page_for(resident: Resident, port: int = 0, folder: Path | None = None) -> dict:
    """`{"ok", "url", "open", "reused"}`: the service's page, started now if it was not
    yet (on `port`, 0 for any free one; a later call gets the same page whatever its
    port), with a fresh link to print (`url`) and, given the service's own `folder`, a
    second one in a file there for the browser to open (`open`, its path).
    `{"ok": false, "error", "hint"}` when that port cannot be listened on."""
    global _page
    with _started:
        reused = _page is not None
        if _page is None:

            @contextmanager
            def index() -> Iterator[Findsession]:
                with resident.lock:
                    yield resident.current()

            page = PageServer(index, port=port)
            try:
                page.start()
            except PortUnavailable as exc:
                return {"ok": False, "error": str(exc), "hint": exc.cli_hint}
            _page = page
        opened = str(_page.link_file(folder)) if folder is not None else None
        return {"ok": True, "url": _page.link(), "open": opened, "reused": reused}


def stop_page() -> None:
    """End the service's page, if one runs (the service is stopping)."""
    global _page
    with _started:
        if _page is not None:
            _page.stop()
            _page = None
