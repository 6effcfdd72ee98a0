"""The page keeps the index to its user: no session, no data; a path outside the page's
random folder, no data; a foreign Host, no data; every answer forbids inline scripts and
framing. Over real HTTP to the real CLI. (How a link becomes a session, and what the
browser does with its cookie: test_web_links.)"""

from __future__ import annotations

import json
import socket
import urllib.error
import urllib.request
from email.message import Message
from typing import TYPE_CHECKING, Any

import pytest
from conftest import CLI

if TYPE_CHECKING:
    from web_page import Page

#: The `page` fixture: the real `findsession ui` over a real index.
pytest_plugins = ("web_page",)

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:;"
    " connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


def fetch(
    page: Page, path: str, headers: dict[str, str] | None = None, *, outside: bool = False
) -> tuple[int, Message, bytes]:
    """Status, headers (looked up in any case) and body of `path` in the page's folder
    (or, `outside`, at the server's root), redirects not followed."""
    where = path if outside else page.base + path.lstrip("/")
    request = urllib.request.Request(f"http://127.0.0.1:{page.port}{where}", headers=headers or {})
    opener = urllib.request.build_opener(_NoRedirect)
    try:
        with opener.open(request, timeout=30) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers, exc.read()


def token(page: Page) -> dict[str, str]:
    return {"X-Findsession-Token": page.session}


@pytest.mark.parametrize("path", ["/", "/api/search?q=deploy", "/api/sessions", "/static/app.js"])
def test_a_request_without_a_session_is_refused_with_no_index_data(page: Page, path: str) -> None:
    for status, headers, body in (fetch(page, path), fetch(page, path, token(page), outside=True)):
        assert status == 403
        assert b"deploy" not in body and b"webshop" not in body
        assert headers["Content-Security-Policy"] == CSP


def test_a_wrong_session_or_link_is_refused(page: Page) -> None:
    assert fetch(page, "/api/search?q=deploy", {"X-Findsession-Token": "x" * 43})[0] == 403
    assert fetch(page, "/?token=" + "x" * 43)[0] == 403
    assert fetch(page, "/api/sessions", {"Cookie": f"findsession={'x' * 43}"})[0] == 403
    assert fetch(page, "/api/sessions", {"Cookie": f"findsession={page.session}"})[0] == 200


def test_a_foreign_host_is_refused_even_with_the_token(page: Page) -> None:
    """A DNS-rebinding page reaches 127.0.0.1 under its own name: the Host says so."""
    for host in ("evil.example", f"evil.example:{page.port}", "127.0.0.1:1"):
        status, _, body = fetch(page, "/api/search?q=deploy", {**token(page), "Host": host})
        assert status == 403, host
        assert b"deploy" not in body
    assert fetch(page, "/api/sessions", {**token(page), "Host": f"localhost:{page.port}"})[0] == 200


def test_every_answer_carries_the_security_headers(page: Page) -> None:
    for path in ("/", "/static/app.js", "/api/search?q=deploy", "/api/session/7c1e4a52"):
        status, headers, _ = fetch(page, path, token(page))
        assert status == 200, path
        assert headers["Content-Security-Policy"] == CSP
        assert headers["X-Content-Type-Options"] == "nosniff"
        assert headers["Referrer-Policy"] == "no-referrer"
    assert fetch(page, "/api/search?q=deploy", token(page))[1]["Cache-Control"] == "no-store"


def test_the_page_answers_with_the_clis_json(page: Page) -> None:
    """The same object as `search --json`: the page and the command line cannot drift."""
    _, _, body = fetch(page, "/api/search?q=deploy+health+check&top=5", token(page))
    served = json.loads(body)
    cli = page.cli.json("search", "deploy health check", "--top", "5")
    assert served["schema"] == cli["schema"] == "findsession.search/1"
    assert [r["session"]["id"] for r in served["results"]] == [
        r["session"]["id"] for r in cli["results"]
    ]
    assert served["results"][0]["why"].startswith(("keyword", "best keyword", "holds", "no "))


def test_a_bad_filter_is_refused_in_words(page: Page) -> None:
    status, _, body = fetch(page, "/api/search?q=deploy&speaker=robot", token(page))
    assert status == 400 and "speaker" in json.loads(body)["error"]
    status, _, body = fetch(page, "/api/session/nosuchsession", token(page))
    assert status == 404 and "nosuchsession" in json.loads(body)["error"]


def test_a_port_in_use_is_one_line_not_a_traceback(cli: CLI) -> None:
    cli.env["FINDSESSION_NO_SERVICE"] = "1"
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        out = cli.run("ui", "--no-open", "--port", str(port), check=False)
    assert out.returncode == 1, out
    assert "Traceback" not in out.stderr
    assert out.stderr.count("\n") == 1, out.stderr
    assert f"127.0.0.1:{port}" in out.stderr and "in use" in out.stderr
    assert "--port" in out.stderr  # what to do about it


def raw_status(page: Page, target: bytes, headers: dict[bytes, bytes] | None = None) -> int:
    """The status of a request sent as raw bytes: what a browser or another program may
    send and urllib will not (bytes that are not ASCII in the path or a header)."""
    host = f"Host: 127.0.0.1:{page.port}\r\nConnection: close\r\n".encode()
    extra = b"".join(k + b": " + v + b"\r\n" for k, v in (headers or {}).items())
    with socket.create_connection(("127.0.0.1", page.port), timeout=30) as conn:
        conn.sendall(b"GET " + target + b" HTTP/1.1\r\n" + host + extra + b"\r\n")
        data = b""
        while chunk := conn.recv(65536):
            data += chunk
    return int(data.split(b" ", 2)[1])


def test_a_path_token_or_header_that_is_not_ascii_is_refused_not_a_server_error(
    page: Page,
) -> None:
    base, session = page.base.encode(), page.session.encode()
    signed = {b"X-Findsession-Token": session}
    # A byte that is not ASCII in the request line: the HTTP parser's own 400, or ours.
    any4xx = range(400, 500)
    for target, headers, expected in (
        (b"/%E6%97%A5/api/sessions", {}, [403]),
        (b"/\xe6\x97\xa5/api/sessions", {}, any4xx),
        (base[:-1] + b"%C3%A9/api/sessions", signed, [403]),
        (base[:-1] + b"\xc3\xa9/api/sessions", signed, any4xx),
        (base + b"api/session/%E6%97%A5", signed, [404]),
        (base + b"api/session/\xe6\x97\xa5", signed, any4xx),
        (base + b"api/sessions", {b"X-Findsession-Token": b"\xc3\xa9" * 20}, [403]),
        (base + b"api/sessions", {b"Cookie": b"findsession=\xc3\xa9\xe2\x80\x94"}, [403]),
        (base + b"?token=%C3%A9%E2%80%94", {}, [403]),
        (base + b"?token=\xc3\xa9", {}, any4xx),
    ):
        assert raw_status(page, target, headers) in expected, (target, headers)
    assert raw_status(page, base + b"api/sessions", signed) == 200  # still up


def test_a_cookie_of_the_same_name_from_another_page_locks_nobody_out(page: Page) -> None:
    """Any page of 127.0.0.1 may set `findsession=junk; Path=/`: the browser sends it
    beside the page's own (the longer path first), and the page must find its own."""
    session = page.session
    for cookie in (
        f"findsession={session}; findsession=junk",
        f"findsession=junk; findsession={session}",
        f'other=1; findsession="unclosed; findsession={session}; x=\\"',
        f"findsession=; findsession={'j' * 43}; findsession={session}",
    ):
        status, _, body = fetch(page, "/api/sessions", {"Cookie": cookie})
        assert status == 200 and json.loads(body)["sessions"], (cookie, status, body)
    for cookie in ("findsession=junk", "findsession=junk; findsession=" + "x" * 43):
        assert fetch(page, "/api/sessions", {"Cookie": cookie})[0] == 403
