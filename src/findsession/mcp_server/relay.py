"""`findsession serve` beside a resident service: the agent's stdio relayed, line by line,
to an MCP session the service runs on its warm index.

A small process: the standard library and the service's client, never the MCP SDK, the
model or the index; several agents' servers cost little more than one service.

Should the service go away mid-session (`service stop`, a crash), the session goes on
in a server of this relay's own, started in-process as `findsession serve` would start
without a service: the agent's `initialize` is replayed to it (its answer kept from the
agent, which had one), then every request the service had not answered. That server
is a new connection: the audit names it by an id of its own and its evidence budget
starts afresh.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from typing import IO, Any

from findsession.mcp_server.stdin import repaired
from findsession.protocol.client import Unavailable, connect
from findsession.protocol.place import Place
from findsession.protocol.wire import WireError, identity, receive, send

#: How much of a message is read at a time.
_CHUNK = 1 << 16


class _Session:
    """What the relay remembers of the agent's session to carry it to another server."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.opening: list[bytes] = []  # `initialize` and `notifications/initialized`
        self.initialize_id: Any = None
        self.pending: dict[str, bytes] = {}  # requests not answered yet, by id
        self.swallow: set[str] = set()  # ids whose answer the agent must not see again

    def from_agent(self, line: bytes) -> None:
        message = _parsed(line)
        if not isinstance(message, dict):
            return
        method = message.get("method")
        with self.lock:
            if method == "initialize":
                self.opening = [line]
                self.initialize_id = message.get("id")
            elif method == "notifications/initialized":
                self.opening.append(line)
            elif "id" in message and method:
                self.pending[_key(message["id"])] = line

    def to_agent(self, line: bytes) -> bool:
        """Whether `line` goes on to the agent (an answer to a replayed `initialize`
        does not)."""
        message = _parsed(line)
        if not isinstance(message, dict) or "method" in message or "id" not in message:
            return True
        key = _key(message["id"])
        with self.lock:
            self.pending.pop(key, None)
            if key in self.swallow:
                self.swallow.discard(key)
                return False
        return True

    def replay(self) -> list[bytes]:
        """What a new server is sent first: the opening, then what is still pending."""
        with self.lock:
            if self.initialize_id is not None:
                self.swallow.add(_key(self.initialize_id))
            return [*self.opening, *self.pending.values()]


class _Backend:
    """Where the session's messages go: the service's socket, or a server process."""

    def __init__(self, sock: socket.socket | None = None, proc: subprocess.Popen | None = None):
        self.sock, self.proc = sock, proc

    def write(self, data: bytes) -> None:
        if self.sock is not None:
            self.sock.sendall(data)
        else:
            assert self.proc is not None and self.proc.stdin is not None
            self.proc.stdin.write(data)
            self.proc.stdin.flush()

    def lines(self) -> Iterator[bytes]:
        stream: IO[bytes] = (
            self.sock.makefile("rb") if self.sock is not None else self.proc.stdout  # type: ignore[union-attr,assignment]
        )
        yield from iter(stream.readline, b"")

    def end_input(self) -> None:
        try:
            if self.sock is not None:
                self.sock.shutdown(socket.SHUT_WR)
            elif self.proc is not None and self.proc.stdin is not None:
                self.proc.stdin.close()
        except OSError:
            pass


def open_session(place: Place, opening: dict[str, Any]) -> socket.socket:
    """A connection to the service that it has taken for an MCP session (`opening`:
    the scope the agent is in); `Unavailable` when it cannot, before anything was read
    from the agent."""
    sock = connect(place)
    try:
        send(sock, {"v": identity(), "op": "mcp", **opening})
        ack = receive(sock)
    except (OSError, WireError) as exc:
        sock.close()
        raise Unavailable(f"the service did not answer ({exc})", dead=True) from None
    if ack.get("ok") is not True:
        sock.close()
        if ack.get("error") == "version":
            theirs = str(ack.get("version"))
            raise Unavailable(f"the service runs {theirs}", other_version=theirs)
        raise Unavailable("the service cannot hold an MCP session")
    sock.settimeout(None)
    return sock


def relay(sock: socket.socket, local_argv: list[str]) -> int:
    """Relay stdin and stdout to the session on `sock` until the agent closes stdin;
    `local_argv` starts a server of our own if the service goes away meanwhile."""
    session = _Session()
    backend = _Backend(sock=sock)
    agent_done = threading.Event()
    switching = threading.Lock()

    def pump_in() -> None:
        for raw in iter(sys.stdin.buffer.readline, b""):
            line = repaired(raw)  # a lone surrogate: the SDK would leave it unanswered
            with switching:  # recorded and sent together: a replay never sends it twice
                session.from_agent(line)
                # A service gone: what is pending is replayed to the next server.
                with contextlib.suppress(OSError):
                    backend.write(line)
        agent_done.set()
        with switching:
            backend.end_input()

    threading.Thread(target=pump_in, name="findsession-relay", daemon=True).start()
    out = sys.stdout.buffer
    while True:
        try:
            for line in backend.lines():
                if session.to_agent(line):
                    out.write(line)
                    out.flush()
        except OSError:
            pass
        if agent_done.is_set():
            return 0
        if backend.proc is not None:  # our own server ended: nothing is left to carry on
            return backend.proc.wait()
        with switching:  # the service went away mid-session: carry on in our own server
            backend = _Backend(proc=_local_server(local_argv))
            try:
                for line in session.replay():
                    backend.write(line)
            except OSError:
                return 1


def _local_server(argv: list[str]) -> subprocess.Popen:
    """`findsession serve` run in-process, in a process of its own, talking on pipes."""
    return subprocess.Popen(
        [sys.executable, "-m", "findsession", *argv],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env={**os.environ, "FINDSESSION_NO_SERVICE": "1"},
    )


def _parsed(line: bytes) -> Any:
    try:
        return json.loads(line)
    except ValueError:
        return None


def _key(request_id: Any) -> str:
    return json.dumps(request_id)
