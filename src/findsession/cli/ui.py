"""`findsession ui`: the web page, opened in the person's browser.

When a service runs for this index, it serves the page from its warm index (started on
the first `ui`, the same URL for every later one); otherwise this process serves it
until Ctrl-C. Either way the page answers on 127.0.0.1 only, behind a token made for
this start (see findsession.web.guard).
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import webbrowser
from collections.abc import Iterator
from contextlib import contextmanager

from rich.console import Console

from findsession.api import Findsession
from findsession.cli.console import say
from findsession.errors import FindsessionError


def ui(args: argparse.Namespace, fs: Findsession, out: Console, err: Console) -> int:
    served = _from_service(fs, args.port)
    if served is not None:
        url, reused = served
        say(err, "the service serves this page" + (" (already open)" if reused else ""))
        _show(url, args.no_open, err)
        return 0
    from findsession.web.server import PageServer

    lock = threading.Lock()

    @contextmanager
    def index() -> Iterator[Findsession]:
        with lock:
            yield fs

    page = PageServer(index, port=args.port or 0)
    url = page.start()
    _show(url, args.no_open, err)
    say(err, "serving the page from this process until Ctrl-C (no service runs)")
    try:
        page.wait()
    except KeyboardInterrupt:
        page.stop()
    return 0


def _from_service(fs: Findsession, port: int | None) -> tuple[str, bool] | None:
    """The service's page URL and whether it was already open; None when no service
    answers (the page is then served here)."""
    if os.environ.get("FINDSESSION_NO_SERVICE") or sys.platform == "win32":
        return None
    from findsession.service.client import Unavailable, ask
    from findsession.service.place import NoPlace, Place

    try:
        place = Place.for_index(fs.path)
        reply = ask(place, {"op": "ui", "port": port or 0}, timeout=15.0)
    except (NoPlace, OSError, Unavailable):
        return None
    if reply.get("error") and reply.get("ok") is False:
        # The service answered and could not serve the page (the port is taken):
        # serving it here instead would fail the same way.
        raise FindsessionError(str(reply["error"]), cli_hint=reply.get("hint"))
    if not reply.get("ok") or not reply.get("url"):
        return None
    return str(reply["url"]), bool(reply.get("reused"))


def _show(url: str, no_open: bool, err: Console) -> None:
    """Print the URL (stdout: a script reads it there) and open it unless asked not to,
    or where no browser could show it (no display)."""
    print(url, flush=True)
    if no_open or not _has_display():
        return
    try:
        webbrowser.open(url)
    except webbrowser.Error as exc:
        say(err, f"note: could not open a browser ({exc}); open the link above")


def _has_display() -> bool:
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
