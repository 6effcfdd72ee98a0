"""Who may read the page: the holder of this start's token, through 127.0.0.1 only.

Any local user can connect to a port on 127.0.0.1, and any web page the person visits
can make their browser send requests to it. So every request must carry the random
token of this start (in the cookie the first visit sets, or in a header), and name the
server by its loopback address in `Host` (a DNS-rebinding page names its own host).
Every answer carries headers that forbid inline scripts, framing, and sniffing: a
transcript's `<script>` could not run even if some text reached the DOM as markup.
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Awaitable, Callable, MutableMapping
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import parse_qs

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
#: The header a script (or a test) may send instead of the cookie.
TOKEN_HEADER = "x-findsession-token"
SECURITY_HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
]


def new_token() -> str:
    """A fresh secret for one start of the page server (256 bits)."""
    return secrets.token_urlsafe(32)


class Guard:
    """ASGI middleware: refuse (403, no index data) a request without this start's token
    or with a Host that is not 127.0.0.1/localhost on our port; add the security headers
    to every answer; `/?token=…` sets the cookie and sends the browser on to `/`."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.token = token
        #: Set once the socket is bound (port 0 becomes a real port).
        self.port = 0

    @property
    def cookie_name(self) -> str:
        # Cookies are shared across ports of one host: one name per server, so two
        # pages (two indexes) open side by side do not log each other out.
        return f"findsession_{self.port}"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            if scope["type"] == "lifespan":
                await self.app(scope, receive, send)
            return
        headers = _headers(scope)
        if not self._host_ok(headers.get("host", "")):
            await _refuse(send, b"forbidden: this page answers on its loopback address only")
            return
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        offered = (query.get("token") or [""])[0]
        if scope["path"] == "/" and offered:
            if not self._same(offered):
                await _refuse(send, b"forbidden: that link is from another start; run it again")
                return
            await self._enter(send)
            return
        if not (self._same(headers.get(TOKEN_HEADER, "")) or self._same(self._cookie(headers))):
            await _refuse(
                send, b"forbidden: open the link `findsession ui` printed (it holds the token)"
            )
            return

        async def secured(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *SECURITY_HEADERS]
            await send(message)

        await self.app(scope, receive, secured)

    def _host_ok(self, host: str) -> bool:
        return host in (f"127.0.0.1:{self.port}", f"localhost:{self.port}")

    def _same(self, offered: str) -> bool:
        return bool(offered) and hmac.compare_digest(offered.encode(), self.token.encode())

    def _cookie(self, headers: dict[str, str]) -> str:
        jar: SimpleCookie = SimpleCookie()
        try:
            jar.load(headers.get("cookie", ""))
        except Exception:  # noqa: BLE001 - a malformed cookie is no cookie
            return ""
        morsel = jar.get(self.cookie_name)
        return morsel.value if morsel else ""

    async def _enter(self, send: Send) -> None:
        """Set the cookie and send the browser to `/`: the token leaves the address bar
        (and the history) at once."""
        cookie = f"{self.cookie_name}={self.token}; HttpOnly; SameSite=Strict; Path=/"
        await send(
            {
                "type": "http.response.start",
                "status": 303,
                "headers": [
                    (b"location", b"/"),
                    (b"set-cookie", cookie.encode()),
                    (b"cache-control", b"no-store"),
                    (b"content-length", b"0"),
                    *SECURITY_HEADERS,
                ],
            }
        )
        await send({"type": "http.response.body", "body": b""})


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
