"""`findsession ui`: the web page, opened in the person's browser.

When a service runs for this index (or can be started again, where `service start` was
said), it serves the page from its warm index (started on the first `ui`, the same page
for every later one); otherwise this process serves it until Ctrl-C. Either way the page
answers on 127.0.0.1 only, under a random path, to the browser a one-time link let in
(see findsession.web.keys). The link is printed (stdout: a script reads it there); the
browser is handed a second one through a file only this user can read, so no link ever
shows in the process list.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
import tempfile
import threading
import webbrowser
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from rich.console import Console

from findsession.api import Findsession
from findsession.errors import FindsessionError
from findsession.protocol.context import Context
from findsession.protocol.operations import answer
from findsession.protocol.requests import Answer, Request
from findsession.render.console import say

#: What a link of ours looks like; anything else from a service is not shown or opened.
_LINK = re.compile(r"http://127\.0\.0\.1:\d{1,5}/[\w-]+/\?token=[\w-]+")


def ui(args: argparse.Namespace, ctx: Context) -> int:
    fs, err = ctx.fs, ctx.err
    opening = not args.no_open and _has_display()
    served = _from_service(fs, args.port, opening)
    if served is not None:
        url, file, reused = served
        say(err, "the service serves this page" + (" (already open)" if reused else ""))
        _show(url, file, err)
        return 0
    from findsession.web.server import PageServer

    lock = threading.Lock()  # one connection: the page's requests take turns on it

    def ask(request: Request) -> Answer:
        with lock:
            return answer(fs, request)

    page = PageServer(ask, port=args.port or 0)
    page.start()
    with _link_folder(fs) as folder:
        _show(page.link(), page.link_file(folder) if opening else None, err)
        say(err, "serving the page from this process until Ctrl-C (no service runs)")
        try:
            page.wait()
        except KeyboardInterrupt:
            pass
        finally:
            page.stop()
    return 0


def _from_service(fs: Findsession, port: int | None, opening: bool) -> tuple | None:
    """The service's link, the file holding the browser's link (or None), and whether
    the page was already open; None when no service answers (served here then)."""
    if os.environ.get("FINDSESSION_NO_SERVICE") or sys.platform == "win32":
        return None
    from findsession.protocol.client import Unavailable, ask, wake
    from findsession.protocol.place import NoPlace, Place

    message = {"op": "page", "port": port or 0, "open": opening}
    try:
        place = Place.for_index(fs.path)
        try:
            reply = ask(place, message, timeout=15.0)
        except Unavailable as why:  # started again where `service start` was said
            if not wake(place, why):
                return None
            reply = ask(place, message, timeout=15.0)
    except (NoPlace, OSError, Unavailable):
        return None
    if reply.get("error") and reply.get("ok") is False:
        # The service answered and could not serve the page (the port is taken):
        # serving it here instead would fail the same way.
        raise FindsessionError(str(reply["error"]), cli_hint=reply.get("hint"))
    url = reply.get("url")
    if not reply.get("ok") or not isinstance(url, str) or not _LINK.fullmatch(url):
        return None
    file = reply.get("open")
    ours = isinstance(file, str) and Path(file).parent == place.folder
    return url, Path(file) if ours else None, bool(reply.get("reused"))


@contextmanager
def _link_folder(fs: Findsession) -> Iterator[Path]:
    """Where the browser's link file goes: the service's private runtime folder, else
    a fresh 0700 folder of our own, removed at the end."""
    from findsession.protocol.place import NoPlace, Place

    try:
        private = Place.for_index(fs.path).folder
    except (NoPlace, OSError):
        private = None
    if private is not None:
        yield private
        return
    folder = Path(tempfile.mkdtemp(prefix="findsession-"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _show(url: str, file: Path | None, err: Console) -> None:
    """Print the link (stdout: a script reads it there) and open the page in a browser
    through `file`, unless there is none (--no-open, no display)."""
    print(url, flush=True)
    if file is None:
        return
    try:
        webbrowser.open(file.as_uri())
    except webbrowser.Error as exc:
        say(err, f"note: could not open a browser ({exc}); open the link above")


def _has_display() -> bool:
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
