"""The service's wire format: length-prefixed JSON over a Unix socket.

JSON, not pickle: a message is read before the versions are compared, and a client of
another version must be able to read "other version" and nothing more.
"""

from __future__ import annotations

import json
import socket
import struct

#: Bumped when a message's shape changes; part of the identity both sides compare.
PROTOCOL = 3
#: No message is larger; a longer header is a confused peer, not a big answer.
MAX_MESSAGE = 64 << 20
_HEADER = struct.Struct(">I")


class WireError(Exception):
    """The peer closed early or sent something that is not a message."""


def identity() -> str:
    """What both sides must share: the release and the protocol."""
    from findsession import __version__

    return f"{__version__}/{PROTOCOL}"


def send(sock: socket.socket, message: dict) -> None:
    data = json.dumps(message, ensure_ascii=False).encode("utf-8")
    sock.sendall(_HEADER.pack(len(data)) + data)


def receive(sock: socket.socket) -> dict:
    (size,) = _HEADER.unpack(_exactly(sock, _HEADER.size))
    if size > MAX_MESSAGE:
        raise WireError(f"a message of {size} bytes is over the limit")
    try:
        message = json.loads(_exactly(sock, size))
    except (ValueError, RecursionError) as exc:
        raise WireError(f"not a message: {exc}") from None
    if not isinstance(message, dict):
        raise WireError("not a message: expected an object")
    return message


def _exactly(sock: socket.socket, size: int) -> bytes:
    chunks, left = [], size
    while left:
        chunk = sock.recv(min(left, 1 << 20))
        if not chunk:
            raise WireError("the connection closed mid-message")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)
