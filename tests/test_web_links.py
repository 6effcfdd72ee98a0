"""The page's secrets stay with the page they were made for: its cookie goes to no other
port of 127.0.0.1, its links work once, and no link is ever on a command line.

Browsers send a cookie of 127.0.0.1 to every port of 127.0.0.1, so another local user's
server on the loopback would receive a cookie scoped by host alone; a process list shows
every user the browser's command line. Checked in a real Chromium (Debian's, driven by
Playwright) over the real `findsession ui`, and over real HTTP.
"""

from __future__ import annotations

import contextlib
import http.server
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI
from test_web import ARGS, chromium
from web_page import LINK, Page, hostile_transcripts, served

from findsession.web import keys as page_keys
from findsession.web.keys import Keys

SAMPLE = Path(__file__).resolve().parents[1] / "src" / "findsession" / "sample" / "claude"


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


def get(url: str, headers: dict[str, str] | None = None) -> tuple[int, Any, bytes]:
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.build_opener(_NoRedirect).open(request, timeout=30) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers, exc.read()


def test_a_link_lets_a_browser_in_once(cli: CLI, tmp_path: Path) -> None:
    cli.env["FINDSESSION_NO_SERVICE"] = "1"
    cli.env["XDG_RUNTIME_DIR"] = tempfile.mkdtemp(prefix="fs-")
    cli.run("index", str(SAMPLE / "projects"), "--no-embed")
    with served(cli) as page:
        status, headers, body = get(page.url)
        # On to the page by a page of its own (a refresh, not a redirect: see guard).
        assert status == 200 and f'content="0;url={page.base}"'.encode() in body
        cookie = headers["Set-Cookie"]
        session = cookie.split(";")[0].split("=", 1)[1]
        attributes = {a.strip() for a in cookie.split(";")[1:]}
        assert attributes == {"HttpOnly", "SameSite=Strict", f"Path={page.base}"}
        assert session not in page.url  # the cookie is not the link

        assert get(page.url)[0] == 403  # used: dead without the session
        status, headers, _ = get(page.url, {"Cookie": f"findsession={session}"})
        assert status == 200 and "Set-Cookie" not in headers  # a reload: in, no new session
        root = f"http://127.0.0.1:{page.port}"
        assert get(root + page.base, {"Cookie": f"findsession={session}"})[0] == 200
        assert get(root + "/", {"Cookie": f"findsession={session}"})[0] == 403


def test_links_sessions_and_the_folder_have_a_lifetime(tmp_path: Path) -> None:
    now = [1000.0]
    keys = Keys(clock=lambda: now[0])
    prefix, token = keys.new_link()
    file = page_keys.link_file(tmp_path, f"http://127.0.0.1:1/{prefix}/?token={token}")
    keys.attach(token, file)
    assert file.stat().st_mode & 0o777 == 0o600 and token in file.read_text()
    session = keys.redeem(token)
    assert session and keys.session(session) and not file.exists()  # used: the file goes
    assert keys.redeem(token) is None

    _, late = keys.new_link()
    now[0] += page_keys.LINK_SECONDS
    assert keys.redeem(late) is None  # too old
    now[0] += page_keys.IDLE_SECONDS - page_keys.LINK_SECONDS - 1
    assert keys.session(session)  # a request keeps it alive...
    now[0] += page_keys.IDLE_SECONDS
    assert not keys.session(session)  # ...and an idle one ends
    again, _ = keys.new_link()
    assert again != prefix  # nothing was live: the page moved to a new folder
    assert keys.in_page(f"/{again}/api/search") == "/api/search"
    assert keys.in_page(f"/{prefix}/api/search") is None
    assert keys.in_page(f"/{again}x/api/search") is None


def _chromium_or_skip() -> str:
    path = chromium()
    if path is None:
        pytest.skip("needs Chromium at /usr/bin/chromium (`apt-get install chromium`)")
    pytest.importorskip("playwright.sync_api", reason="needs the playwright package")
    return path


class _Recorder(http.server.BaseHTTPRequestHandler):
    """Another local user's server on the loopback: keeps every request's headers, and
    answers a page whose script asks this server for the page's paths, cookies allowed."""

    seen: list[tuple[str, str]] = []

    def do_GET(self) -> None:  # noqa: N802 - the standard library's name
        self.seen.append((self.path, self.headers.get("Cookie", "")))
        body = (
            b"<!doctype html><script>for (const p of ['/', '/api/search?q=x', '/static/app.js'])"
            b" fetch(p, {credentials: 'include'});</script>"
        )
        _answer(self, body)

    def log_message(self, *args: Any) -> None:
        pass


def _answer(handler: http.server.BaseHTTPRequestHandler, body: bytes, *headers: str) -> None:
    """An HTML page as another local server answers it, with these `name: value` headers."""
    handler.send_response(200)
    for header in headers:
        handler.send_header(*header.split(": ", 1))
    handler.send_header("content-type", "text/html")
    handler.send_header("content-length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Page]:
    tmp = tmp_path_factory.mktemp("links")
    cli = CLI(tmp, tmp / "index" / "findsession.db")
    cli.env["FINDSESSION_NO_SERVICE"] = "1"
    cli.env["XDG_RUNTIME_DIR"] = tempfile.mkdtemp(prefix="fs-")
    hostile_transcripts(tmp / "hostile" / "projects")
    cli.run("index", str(SAMPLE / "projects"), str(tmp / "hostile" / "projects"), "--no-embed")
    with served(cli) as running:
        yield running


def test_the_cookie_goes_to_no_other_port(page: Page, tmp_path: Path) -> None:
    path = _chromium_or_skip()
    from playwright.sync_api import sync_playwright

    other = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    threading.Thread(target=other.serve_forever, daemon=True).start()
    elsewhere = f"http://127.0.0.1:{other.server_address[1]}"
    try:
        with sync_playwright() as p:
            context = p.chromium.launch_persistent_context(
                str(tmp_path / "profile"), executable_path=path, headless=True, args=ARGS
            )
            tab = context.new_page()
            tab.goto(page.url)
            tab.wait_for_selector("#q")
            cookies = [c for c in context.cookies() if c["name"] == "findsession"]
            assert [c["path"] for c in cookies] == [page.base], cookies
            session = cookies[0]["value"]
            for where in ("/", "/api/search?q=deploy", "/static/app.js"):
                tab.goto(elsewhere + where)
            tab.wait_for_timeout(500)  # the other page's own requests
            context.close()
    finally:
        other.shutdown()
    assert len(_Recorder.seen) >= 6, _Recorder.seen
    leaked = [(p, c) for p, c in _Recorder.seen if session in c or "findsession" in c]
    assert not leaked, f"the page's cookie went to another port: {leaked}"



class _Squatter(http.server.BaseHTTPRequestHandler):
    """Another page of 127.0.0.1 that sets a cookie of the page's name on every path."""

    def do_GET(self) -> None:  # noqa: N802 - the standard library's name
        page = b"<!doctype html><p>another local page</p>"
        _answer(self, page, "set-cookie: findsession=junk; Path=/")

    def log_message(self, *args: Any) -> None:
        pass


def test_a_cookie_another_local_page_sets_locks_nobody_out(page: Page, tmp_path: Path) -> None:
    path = _chromium_or_skip()
    from playwright.sync_api import sync_playwright

    other = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Squatter)
    threading.Thread(target=other.serve_forever, daemon=True).start()
    try:
        with sync_playwright() as p, served(page.cli) as fresh:
            context = p.chromium.launch_persistent_context(
                str(tmp_path / "profile"), executable_path=path, headless=True, args=ARGS
            )
            tab = context.new_page()
            tab.goto(f"http://127.0.0.1:{other.server_address[1]}/")
            tab.goto(fresh.url)
            tab.wait_for_selector("#q")
            paths = sorted(c["path"] for c in context.cookies() if c["name"] == "findsession")
            assert paths == sorted(["/", fresh.base]), paths  # the browser sends both
            assert tab.evaluate("fetch('api/sessions').then(r => r.status)") == 200
            context.close()
    finally:
        other.shutdown()

def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _command_lines() -> dict[int, str]:
    found = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                found[int(entry.name)] = (entry / "cmdline").read_bytes().replace(b"\0", b" ")
            except OSError:
                continue
    return {pid: line.decode("utf-8", "replace") for pid, line in found.items()}


@pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="reads the process list")
def test_the_browser_is_opened_with_no_link_on_its_command_line(tmp_path: Path) -> None:
    path = _chromium_or_skip()
    from playwright.sync_api import sync_playwright

    cli = CLI(tmp_path, tmp_path / "index" / "findsession.db")
    runtime = Path(tempfile.mkdtemp(prefix="fs-"))
    cli.run("index", str(SAMPLE / "projects"), "--no-embed")
    debug, profile = _free_port(), tmp_path / "profile"
    browser = tmp_path / "browser"
    browser.write_text(
        "#!/bin/sh\n"
        f"nohup {path} {' '.join(ARGS)} --remote-debugging-port={debug}"
        f' --user-data-dir={profile} "$@" >/dev/null 2>&1 &\n'
    )
    browser.chmod(0o755)
    env = {
        **cli.env,
        "FINDSESSION_NO_SERVICE": "1",
        "XDG_RUNTIME_DIR": str(runtime),
        "BROWSER": str(browser),
        "DISPLAY": os.environ.get("DISPLAY", ":99"),
    }
    ui = subprocess.Popen(
        [sys.executable, "-m", "findsession", "ui"], env=env, stdout=subprocess.PIPE, text=True
    )
    chromes: list[int] = []
    try:
        assert ui.stdout is not None
        printed = LINK.fullmatch(ui.stdout.readline().strip())
        assert printed, "no link printed"
        port, base = printed.groups()
        with sync_playwright() as p:
            connected = _connect(p, debug)
            deadline, page = time.monotonic() + 30, f"http://127.0.0.1:{port}{base}"
            while not any(_href(t) == page for t in _tabs(connected)):
                assert time.monotonic() < deadline, [_href(t) for t in _tabs(connected)]
                time.sleep(0.1)
            tab = next(t for t in _tabs(connected) if _href(t) == page)
            tab.wait_for_selector("#q")  # in: the page is there, searching works
            lines = _command_lines()
            chromes = [pid for pid, line in lines.items() if str(profile) in line]
            assert chromes, "the browser was not started through BROWSER"
            opened = [line for pid, line in lines.items() if pid in chromes and ".html" in line]
            assert opened and all(str(runtime / "findsession") in line for line in opened)
            secret = base.strip("/")
            leaking = {p: line for p, line in lines.items() if secret in line or "token=" in line}
            assert not leaking, f"a link is on a command line: {leaking}"
            assert not list((runtime / "findsession").glob("open-*.html"))  # used, removed
            connected.close()
    finally:
        ui.terminate()
        ui.wait(10)
        for _ in range(3):  # the browser and every helper it started (they name tmp_path)
            for pid, line in _command_lines().items():
                if str(tmp_path) in line and pid != os.getpid():
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(pid, 9)
            time.sleep(0.2)


def _connect(p: Any, port: int) -> Any:
    deadline = time.monotonic() + 30
    while True:
        try:
            return p.chromium.connect_over_cdp(f"http://127.0.0.1:{port}")
        except Exception:  # noqa: BLE001 - not listening yet
            assert time.monotonic() < deadline, "the browser never listened for the test"
            time.sleep(0.2)


def _tabs(browser: Any) -> list[Any]:
    return [t for c in browser.contexts for t in c.pages]


def _href(tab: Any) -> str:
    """Where a tab is. Asked of the page itself: a tab attached to while it was being
    sent on from the file keeps the URL it had then in Playwright's `url`."""
    try:
        return str(tab.evaluate("location.href"))
    except Exception:  # noqa: BLE001 - between two documents
        return ""
