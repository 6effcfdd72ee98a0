"""The page's secrets: where it lives, the links that let a browser in, the sessions.

Browsers send a cookie of 127.0.0.1 to every port of 127.0.0.1, so any other local user
who runs a server on the loopback and gets the browser to load anything from it would
receive a cookie scoped by host alone. Three secrets keep the page to its own browser:

- the page lives under a random path (`/<prefix>/`) and its cookie is scoped to that
  path: the browser sends it to no URL outside it, on any port, and nobody else can
  name one inside it;
- a link (what `findsession ui` prints or opens) lets a browser in once, within
  `LINK_SECONDS`: exchanged for a session at the first visit, it is dead after, so a
  link seen in a terminal's scrollback or a browser's history opens nothing;
- a session (the cookie) ends after `IDLE_SECONDS` without a request; when no session
  and no link is left, the next link comes with a new prefix, so the page of a
  long-running service does not keep one secret for its whole life.

A link opened by the browser goes through a file only this user can read (`link_file`),
never on the browser's command line, which every user sees in the process list.
"""

from __future__ import annotations

import hmac
import os
import secrets
import threading
import time
from dataclasses import dataclass
from pathlib import Path

#: A link not used within this is dead (the browser takes seconds; a person pasting it, minutes).
LINK_SECONDS = 600.0
#: A session with no request for this long is over; `findsession ui` gives a new link.
IDLE_SECONDS = 4 * 3600.0


def _secret() -> str:
    return secrets.token_urlsafe(32)  # 256 bits


@dataclass
class _Link:
    expires: float
    file: Path | None = None


class Keys:
    """The prefix, the pending links and the live sessions of one page server. Called
    from the server's thread and the one handing out links, so every method locks."""

    def __init__(self, clock: object = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self.prefix = secrets.token_urlsafe(16)  # 128 bits: a path segment
        self._links: dict[str, _Link] = {}
        self._sessions: dict[str, float] = {}  # session -> last request

    def _now(self) -> float:
        return float(self._clock())  # type: ignore[operator]

    def new_link(self) -> tuple[str, str]:
        """(prefix, token) of a fresh one-time link; a new prefix when nothing is live."""
        with self._lock:
            self._expire()
            if not self._links and not self._sessions:
                self.prefix = secrets.token_urlsafe(16)
            token = _secret()
            self._links[token] = _Link(self._now() + LINK_SECONDS)
            return self.prefix, token

    def attach(self, token: str, file: Path) -> None:
        """Remember the file that holds `token`: it goes when the link is used or dies."""
        with self._lock:
            link = self._links.get(token)
            if link is not None:
                link.file = file
            else:
                file.unlink(missing_ok=True)

    def redeem(self, token: str) -> str | None:
        """A new session for a live link, which dies now; None for any other token."""
        with self._lock:
            self._expire()
            found = next((t for t in self._links if same(t, token)), None)
            if found is None:
                return None
            _remove(self._links.pop(found))
            session = _secret()
            self._sessions[session] = self._now()
            return session

    def session(self, offered: str) -> bool:
        """Whether `offered` is a live session; a request keeps it alive."""
        if not offered:
            return False
        with self._lock:
            self._expire()
            found = next((s for s in self._sessions if same(s, offered)), None)
            if found is None:
                return False
            self._sessions[found] = self._now()
            return True

    def in_page(self, path: str) -> str | None:
        """`path` under the page's prefix, with the prefix taken off; None outside it."""
        head = f"/{self.prefix}"
        if not same(path[: len(head)], head):
            return None
        rest = path[len(head) :]
        return rest if rest.startswith("/") or not rest else None

    def close(self) -> None:
        """The page stops: every link's file goes, every session ends."""
        with self._lock:
            for link in self._links.values():
                _remove(link)
            self._links.clear()
            self._sessions.clear()

    def _expire(self) -> None:
        now = self._now()
        for token in [t for t, link in self._links.items() if link.expires <= now]:
            _remove(self._links.pop(token))
        for session in [s for s, seen in self._sessions.items() if now - seen >= IDLE_SECONDS]:
            del self._sessions[session]


def same(secret: str, offered: str) -> bool:
    """`offered` is `secret`, compared in constant time. As bytes: a path, token or
    cookie may hold any character (`hmac.compare_digest` refuses two strings that are not
    ASCII, and the page answered 500)."""
    return hmac.compare_digest(
        secret.encode("utf-8", "surrogatepass"), offered.encode("utf-8", "surrogatepass")
    )


def _remove(link: _Link) -> None:
    if link.file is not None:
        link.file.unlink(missing_ok=True)


def link_file(folder: Path, url: str) -> Path:
    """A page only this user can read that sends the browser on to `url`: the browser
    is started with this file's name, so the link never shows in a process list."""
    name = f"open-{secrets.token_hex(8)}.html"
    path = folder / name
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    body = (
        '<!doctype html>\n<meta charset="utf-8">\n<meta name="referrer" content="no-referrer">\n'
        f'<meta http-equiv="refresh" content="0;url={url}">\n<title>findsession</title>\n'
        f'<p><a href="{url}">Open findsession</a></p>\n'
    )
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(body)
    return path
