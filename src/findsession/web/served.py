"""The page served by the resident service: started on the first `findsession ui`, the
same page (port and prefix) for every later one while the service lives, each `ui`
given links of its own (see `keys`: a link lets one browser in, once).

Its questions go to the service's warm index as the CLI's do, each on a connection of
its own for as long as it takes: a page search costs what a CLI search through the
service costs.
"""

from __future__ import annotations

import threading
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Protocol

from findsession.api import Findsession
from findsession.protocol.operations import answer
from findsession.protocol.requests import Answer, Request
from findsession.web.server import PageServer, PortUnavailable


class Warm(Protocol):
    """The service's warm index, as the page needs it: a connection per question."""

    def index(self) -> AbstractContextManager[Findsession]: ...


_started = threading.Lock()
_page: PageServer | None = None


def page_for(resident: Warm, port: int = 0, folder: Path | None = None) -> dict:
    """`{"ok", "url", "open", "reused"}`: the service's page, started now if it was not
    yet (on `port`, 0 for any free one; a later call gets the same page whatever its
    port), with a fresh link to print (`url`) and, given the service's own `folder`, a
    second one in a file there for the browser to open (`open`, its path).
    `{"ok": false, "error", "hint"}` when that port cannot be listened on."""
    global _page
    with _started:
        reused = _page is not None
        if _page is None:

            def ask(request: Request) -> Answer:
                with resident.index() as fs:
                    return answer(fs, request)

            page = PageServer(ask, port=port)
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
