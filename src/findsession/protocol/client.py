"""Asking the service, and starting one when the person wants it and it is gone.

A client never waits on a dead service: a socket nobody listens on refuses at once, a
missing socket is a missing file, and a service that accepted but does not answer gets
`REPLY_SECONDS` before the caller searches in-process instead.
"""

from __future__ import annotations

import os
import socket
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from findsession.protocol.peer import peer_uid
from findsession.protocol.place import Place
from findsession.protocol.wire import WireError, identity, receive, send

if TYPE_CHECKING:  # the requests bring the core API's types: the relay never needs them
    import subprocess

    from findsession.protocol.requests import Answer, Request

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


def connect(place: Place, *, timeout: float = REPLY_SECONDS) -> socket.socket:
    """A connection to the service, its peer checked to be this user before a byte is
    sent; `Unavailable` when there is none to be had."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
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
    except BaseException:
        sock.close()
        raise
    return sock


def ask(
    place: Place, message: dict, *, timeout: float = REPLY_SECONDS, me: str | None = None
) -> dict:
    """Send one request and return the reply; `me` stands in for this client's identity."""
    mine = me or identity()
    with connect(place, timeout=timeout) as sock:
        try:
            send(sock, {"v": mine, **message})
            reply = receive(sock)
        except (OSError, WireError) as exc:
            raise Unavailable(f"the service did not answer ({exc})", dead=True) from None
    if reply.get("error") == "version":
        theirs = str(reply.get("version"))
        raise Unavailable(f"the service runs {theirs}, this is {mine}", other_version=theirs)
    return reply


def ask_operation(place: Place, request: Request, *, timeout: float | None = None) -> Answer:
    """The service's answer to one operation. An error of the operation (a session not
    found, a bad option) is raised as the `FindsessionError` it was, for the caller to
    show as if it ran here; `Unavailable` when the service could not answer at all."""
    from findsession.protocol.requests import Answer, error_from

    message = {"op": request.op, "request": request.to_wire()}
    reply = ask(place, message, timeout=timeout or request.patience)
    result, error = reply.get("result"), reply.get("error")
    if reply.get("ok") is True and isinstance(result, dict):
        return Answer(result, float(reply.get("ms") or 0.0))
    if isinstance(error, dict):
        raise error_from(error)
    raise Unavailable(f"the service could not answer ({str(reply.get('message'))[:200]})")


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
    import subprocess  # only here: a client that finds its service answering needs none
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


#: How long a client waits for a service it started (the model and vectors loading)
#: before it answers in-process instead.
WAKE_SECONDS = 30.0


def wake(place: Place, why: Unavailable, wait: float = WAKE_SECONDS) -> bool:
    """After `why`, start a replacement where one is wanted (`replace_if_wanted`) and
    wait until it answers; True if it does within `wait` seconds."""
    if not replace_if_wanted(place, why):
        return False
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        try:
            ask(place, {"op": "ping"}, timeout=1.0)
            return True
        except Unavailable as again:
            if again.foreign or again.other_version:
                return False
            time.sleep(0.1)
    return False
