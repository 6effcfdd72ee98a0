"""Who may read the page: the browser a link of this start let in, through 127.0.0.1.

Any local user can connect to a port on 127.0.0.1, and any web page the person visits
can make their browser send requests to it. So every request must name the server by
its loopback address in `Host` (a DNS-rebinding page names its own host), ask for a
path under the page's random prefix, and carry a live session: the cookie a one-time
link set, scoped to that prefix, or the same value in a header (see `keys`). Every
answer carries headers that forbid inline scripts, framing, and sniffing: a
transcript's `<script>` could not run even if some text reached the DOM as markup.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import parse_qs

from findsession.web.keys import Keys

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

#: No script but our own files, no inline code, no frames, no form posts, no plugins.
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:;"
    " connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
#: The session's cookie; its path is the page's prefix, which keeps it apart from any
#: other page (and any other server) on the loopback.
COOKIE = "findsession"
#: The header a script (or a test) may send the session in instead of the cookie.
TOKEN_HEADER = "x-findsession-token"
#: Cookies of our name looked at in one request, at most: another page of 127.0.0.1 may
#: set any number of them.
MAX_COOKIES = 8
SECURITY_HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
]


class Guard:
    """ASGI middleware: refuse (403, no index data) a request with a Host that is not
    127.0.0.1/localhost on our port, a path outside the page's prefix, or no live
    session; add the security headers to every answer; `/<prefix>/?token=…` (a link)
    sets the session's cookie and sends the browser on to `/<prefix>/`."""

    def __init__(self, app: ASGIApp, keys: Keys) -> None:
        self.app = app
        self.keys = keys
        #: Set once the socket is bound (port 0 becomes a real port).
        self.port = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            if scope["type"] == "lifespan":
                await self.app(scope, receive, send)
            return
        headers = _headers(scope)
        if not self._host_ok(headers.get("host", "")):
            await _refuse(send, b"forbidden: this page answers on its loopback address only")
            return
        inside = self.keys.in_page(scope["path"])
        if inside is None:
            await _refuse(send, b"forbidden: no page here")
            return
        prefix = f"/{self.keys.prefix}/"
        signed_in = self.keys.session(headers.get(TOKEN_HEADER, "")) or any(
            self.keys.session(value) for value in _cookies(headers)[:MAX_COOKIES]
        )
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        offered = (query.get("token") or [""])[0]
        if inside in ("", "/") and offered:
            session = self.keys.redeem(offered)
            if session is None and not signed_in:
                await _refuse(
                    send,
                    b"forbidden: that link was used already, is too old or is from another"
                    b" start; run `findsession ui` for a new one",
                )
                return
            await _enter(send, prefix, session)
            return
        if not signed_in:
            await _refuse(
                send,
                b"forbidden: this page's session is over or was never opened; run"
                b" `findsession ui` for a new link",
            )
            return
        if inside == "":
            await _enter(send, prefix, None)
            return

        async def secured(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *SECURITY_HEADERS]
            await send(message)

        raw = scope.get("raw_path") or scope["path"].encode("utf-8", "surrogateescape")
        inner = dict(scope, path=inside, raw_path=raw[len(prefix) - 1 :])
        await self.app(inner, receive, secured)

    def _host_ok(self, host: str) -> bool:
        return host in (f"127.0.0.1:{self.port}", f"localhost:{self.port}")



async def _enter(send: Send, prefix: str, session: str | None) -> None:
    """Send the browser on to the page, setting the cookie of a new `session`: the link
    leaves the address bar at once. A page of ours does it (a refresh), not a redirect:
    a link opened from a file (see `keys.link_file`) is a navigation another site
    started, and a browser sends no `SameSite=Strict` cookie along a redirect of it."""
    body = (
        '<!doctype html>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="refresh" content="0;url={prefix}">\n<title>findsession</title>\n'
        f'<p><a href="{prefix}">Open findsession</a></p>\n'
    ).encode()
    headers = [
        (b"content-type", b"text/html; charset=utf-8"),
        (b"content-length", str(len(body)).encode()),
        (b"cache-control", b"no-store"),
        *SECURITY_HEADERS,
    ]
    if session is not None:
        cookie = f"{COOKIE}={session}; HttpOnly; SameSite=Strict; Path={prefix}"
        headers.append((b"set-cookie", cookie.encode()))
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def _cookies(headers: dict[str, str]) -> list[str]:
    """Every value the `Cookie` header holds under our name, in its order. Any page of
    127.0.0.1 can set `findsession=junk; Path=/`, which the browser sends beside the
    page's own; reading one value (the standard library's jar kept the last, and read
    nothing past a malformed pair) locked the person out until they cleared cookies."""
    values = []
    for pair in headers.get("cookie", "").split(";"):
        name, equals, value = pair.partition("=")
        if equals and name.strip() == COOKIE:
            values.append(value.strip())
    return values


def _headers(scope: Scope) -> dict[str, str]:
    return {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}


async def _refuse(send: Send, why: bytes) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": 403,
            "headers": [
                (b"content-type", b"text/plain; charset=utf-8"),
                (b"content-length", str(len(why) + 1).encode()),
                (b"cache-control", b"no-store"),
                *SECURITY_HEADERS,
            ],
        }
    )
    await send({"type": "http.response.body", "body": why + b"\n"})
