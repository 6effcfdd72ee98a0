"""What the MCP server reads: its standard input, a line (one JSON-RPC message) at a time,
each half of a surrogate pair that stands alone replaced before the SDK parses it.

JSON lets a string hold `\\ud800` alone, and an agent may send one (a file name's byte
that is not UTF-8, text cut between the two halves of an emoji). The SDK's parser refuses
the whole line, and the SDK then answers nothing: the client waited for ever on that
request. Each such escape becomes `\\ufffd` (the replacement character), so the request
is read and answered like any other.
"""

from __future__ import annotations

import io
import os
import re
import sys
from typing import BinaryIO

#: A `\uXXXX` escape with the backslashes before it (an even run is text, not an escape).
_ESCAPE = re.compile(rb"(\\+)u([0-9a-fA-F]{4})")
_REPLACEMENT = rb"\ufffd"


def repaired(line: bytes) -> bytes:
    """`line` with every `\\uD800`-`\\uDFFF` escape that is not half of a pair replaced."""
    escapes = [m for m in _ESCAPE.finditer(line) if len(m.group(1)) % 2]
    lone: list[re.Match[bytes]] = []
    for n, m in enumerate(escapes):
        code = int(m.group(2), 16)
        if not 0xD800 <= code <= 0xDFFF:
            continue
        after = escapes[n + 1] if n + 1 < len(escapes) else None
        before = escapes[n - 1] if n else None
        if code <= 0xDBFF:
            paired = after is not None and after.start() == m.end() and _low(after)
        else:
            paired = before is not None and before.end() == m.start() and _high(before)
        if not paired:
            lone.append(m)
    if not lone:
        return line
    out, at = [], 0
    for m in lone:
        start = m.start() + len(m.group(1)) - 1  # the escape's own backslash
        out += [line[at:start], _REPLACEMENT]
        at = m.end()
    return b"".join([*out, line[at:]])


def _high(m: re.Match[bytes]) -> bool:
    return 0xD800 <= int(m.group(2), 16) <= 0xDBFF


def _low(m: re.Match[bytes]) -> bool:
    return 0xDC00 <= int(m.group(2), 16) <= 0xDFFF


class _Repairing(io.RawIOBase):
    """The wire, a line at a time, each line `repaired`."""

    def __init__(self, source: BinaryIO) -> None:
        self._source = source
        self._pending = b""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        if not self._pending:
            self._pending = repaired(self._source.readline())
        n = min(len(buffer), len(self._pending))
        buffer[:n] = self._pending[:n]
        self._pending = self._pending[n:]
        return n


def take_stdin() -> None:
    """From now on `sys.stdin` reads the wire through `repaired`, and file descriptor 0
    reads nothing (as the SDK leaves it while it serves), so no child process can take
    a request meant for the server. Call once, before the server runs."""
    wire = os.dup(0)
    nothing = os.open(os.devnull, os.O_RDONLY)
    os.dup2(nothing, 0)
    os.close(nothing)
    source = os.fdopen(wire, "rb")
    sys.stdin = io.TextIOWrapper(
        io.BufferedReader(_Repairing(source)), encoding="utf-8", errors="replace"
    )
