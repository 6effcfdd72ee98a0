"""Secrets found by a function, not a pattern alone: private key blocks and JWTs.

Both can be long, so str.find (in C) first checks that the rest of the secret is there
before a regex runs over it.
"""

from __future__ import annotations

import re

#: A key block's header, when key material (or PEM headers) follows: a regex that names
#: the header is not a key, and must not hide the rest of the text.
_KEY_HEAD = re.compile(
    r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"
    r"(?=(?:\s|\\+[nr]){0,8}(?:[A-Za-z0-9+/=]{16}|[A-Za-z\-]+:))"
)
_KEY_TAIL = re.compile(r"-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----")
#: Where key material stops when the END line is missing (the text was cut).
_KEY_BODY = re.compile(r"(?:[A-Za-z0-9+/=\s:,]|-(?!----)|\\+[nr])*")
#: The longest key block looked for (a 4096-bit RSA key is 3.3 KB, PGP blocks more).
_KEY_REACH = 32_000
_JWT = re.compile(
    r"eyJ[A-Za-z0-9_\-]{8,16384}+\.eyJ[A-Za-z0-9_\-]{8,65536}+\.[A-Za-z0-9_\-]{8,16384}+"
)


def private_key(text: str, at: int, anchor: str) -> tuple[int, int, str] | None:
    """A key block from its header to its END line, found with str.find."""
    head = _KEY_HEAD.match(text, at)
    if not head:
        return None
    end = text.find("-----END ", head.end(), head.end() + _KEY_REACH)
    while end >= 0:
        tail = _KEY_TAIL.match(text, end)
        if tail:
            return at, tail.end(), "private-key"
        end = text.find("-----END ", end + 1, head.end() + _KEY_REACH)
    body = _KEY_BODY.match(text, head.end(), head.end() + _KEY_REACH)
    return at, body.end() if body else head.end(), "private-key"


def jwt(text: str, at: int, anchor: str) -> tuple[int, int, str] | None:
    """A JWT; the regex runs only if a second part starts close enough (found in C)."""
    if text.find(".eyJ", at + 11, at + 16_400) < 0:
        return None
    match = _JWT.match(text, at)
    return (at, match.end(), "jwt") if match else None
