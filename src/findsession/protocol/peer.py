"""Who is on the other end of a Unix socket: only the service's own user is answered,
and a client talks only to a service of its own user.

The socket file is 0600 in a 0700 folder already; the peer's uid is checked as well, so
a mistake in either (a shared runtime folder, a permissive umask) does not open the
index to another user. The kernel answers for both ends: on the service's side the
connecting process, on the client's side the process that listens.
"""

from __future__ import annotations

import os
import socket
import struct
import sys

#: macOS: SOL_LOCAL and LOCAL_PEERCRED from <sys/un.h>; the reply is a struct xucred.
_SOL_LOCAL, _LOCAL_PEERCRED, _XUCRED_SIZE = 0, 1, 76


def peer_uid(conn: socket.socket) -> int | None:
    """The uid of the process at the other end of `conn`; None where the platform
    cannot say."""
    so_peercred = getattr(socket, "SO_PEERCRED", None)
    if so_peercred is not None:  # Linux
        creds = conn.getsockopt(socket.SOL_SOCKET, so_peercred, struct.calcsize("3i"))
        return struct.unpack("3i", creds)[1]
    if sys.platform == "darwin":
        creds = conn.getsockopt(_SOL_LOCAL, _LOCAL_PEERCRED, _XUCRED_SIZE)
        return struct.unpack_from("Ii", creds)[1]
    return None


def same_user(conn: socket.socket) -> bool:
    uid = peer_uid(conn)
    return uid is None or uid == os.getuid()
