"""Asking the service, and starting one when the person wants it and it is gone.

A client never waits on a dead service: a socket nobody listens on refuses at once, a
missing socket is a missing file, and a service that accepted but does not answer gets
`REPLY_SECONDS` before the caller searches in-process instead.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

from findsession.protocol.peer import peer_uid
from findsession.protocol.place import Place
from findsession.protocol.wire import WireError, identity, receive, send

#: Connecting to a live local socket takes microseconds; a full backlog is a stuck one.
CONNECT_SECONDS = 0.5
#: A warm search answers in well under a second; past this the caller does it itself.
REPLY_SECONDS = 5.0


class Unavailable(Exception):
    """No answer from the service. `dead` when one was there and is gone or stuck, so
    a replacement is worth starting; `other_version` names the version that answered."""

    def __init__(
        self,
        why: str,
        *,
        dead: bool = False,
        other_version: str | None = None,
        foreign: bool = False,
    ):
        super().__init__(why)
        self.dead = dead
        self.other_version = other_version
        #: Another user's process answers on our socket's path: never asked, never replaced.
        self.foreign = foreign


def ask(
    place: Place, message: dict, *, timeout: float = REPLY_SECONDS, me: str | None = None
) -> dict:
    """Send one request and return the reply; `me` stands in for this client's identity."""
    mine = me or identity()
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(CONNECT_SECONDS)
        try:
            sock.connect(str(place.socket))
        except FileNotFoundError:
            raise Unavailable("no service is running") from None
        except (ConnectionRefusedError, TimeoutError) as exc:
            raise Unavailable(f"the service is gone ({exc})", dead=True) from None
        except OSError as exc:
            raise Unavailable(f"cannot reach the service ({exc})", dead=True) from None
        # Before a byte is sent: the query, the folder and the terminal are ours to keep.
        uid = peer_uid(sock)
        if uid is not None and uid != os.getuid():
            raise Unavailable(
                f"the socket {place.socket} is answered by another user's process"
                f" (uid {uid}); nothing was sent to it",
                foreign=True,
            )
        sock.settimeout(timeout)
        try:
            send(sock, {"v": mine, **message})
            reply = receive(sock)
        except (OSError, WireError) as exc:
            raise Unavailable(f"the service did not answer ({exc})", dead=True) from None
    if reply.get("error") == "version":
        theirs = str(reply.get("version"))
        raise Unavailable(f"the service runs {theirs}, this is {mine}", other_version=theirs)
    return reply


def running(place: Place) -> bool:
    """Whether a service holds this index's lock (running, or starting and not yet
    listening). Where flock is missing, say no: the caller may start one, which exits
    at once if another runs."""
    try:
        import fcntl
    except ImportError:
        return False
    try:
        fd = os.open(place.lock, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)  # closing drops a lock we got
    return False


def start(place: Place, *, python: str | None = None) -> subprocess.Popen:
    """Start a service in the background, detached from this terminal and its signals;
    its output goes to the place's log. It exits by itself if another one runs."""
    with open(place.log, "ab", buffering=0) as log:
        os.chmod(place.log, 0o600)
        return subprocess.Popen(
            [
                python or sys.executable,
                "-m",
                "findsession",
                "service",
                "run",
                "--db",
                str(place.db),
            ],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            start_new_session=True,
            close_fds=True,
            env={**os.environ, "FINDSESSION_CONFIG": str(place.config)},
            cwd=str(Path.home()) if Path.home().is_dir() else "/",
        )


def replace_if_wanted(place: Place, why: Unavailable) -> bool:
    """After `why`, start a replacement: always for a service of another version (it is
    stopping), else when one died or is wanted, unless one still holds the lock (alive
    but busy, or starting). True if one was started."""
    if why.foreign:
        return False
    if why.other_version is None and (not (why.dead or place.wanted.exists()) or running(place)):
        return False
    start(place)
    return True
