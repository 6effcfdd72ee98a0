"""The service's listener: a Unix socket only its user can reach, one thread per client.

It sleeps in `select` on the socket and a wake-up pipe, with no timeout: a service with
nothing to do uses no CPU. The lock file is held for the whole life of the process, so a
second service for the same index (two clients replacing a dead one at once) waits for
it briefly and then leaves.
"""

from __future__ import annotations

import logging
import os
import selectors
import socket
import threading
import time
from collections.abc import Callable, Mapping
from contextlib import suppress

from findsession.protocol.peer import same_user
from findsession.protocol.place import Place
from findsession.protocol.wire import WireError, identity, receive, send

log = logging.getLogger("findsession.service")

#: How long a new service waits for an old one (of another version, stopping) to go.
LOCK_WAIT_SECONDS = 10.0
#: A client that connects and then says nothing is dropped after this.
READ_SECONDS = 10.0

Handler = Callable[[dict], dict]
#: Takes a connection over after its first message (the MCP server's session) and
#: speaks its own protocol on it until the client leaves.
Stream = Callable[[dict, socket.socket], None]


class AlreadyRunning(Exception):
    """Another service holds this index's lock."""


class Server:
    """Answers requests for one index until `stop()`; `handle` answers every request
    whose `op` the server does not answer itself (`ping`, `service`, `stop`), and
    `streams` take over the connections whose first message names theirs."""

    def __init__(
        self,
        place: Place,
        handle: Handler,
        status: Callable[[], dict],
        streams: Mapping[str, Stream] | None = None,
    ) -> None:
        self.place, self.handle, self.status = place, handle, status
        self.streams = dict(streams or {})
        self.started = time.time()
        self.answered = 0
        self._counting = threading.Lock()
        self._lock_fd: int | None = None
        self._listener: socket.socket | None = None
        self._wake_r, self._wake_w = os.pipe()
        self._stopping = threading.Event()

    def take_lock(self, wait: float = LOCK_WAIT_SECONDS) -> None:
        """Hold the index's service lock for life: taken before warming up, so no client
        starts a second service meanwhile."""
        import fcntl

        fd = os.open(self.place.lock, os.O_RDWR | os.O_CREAT, 0o600)
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError:
                if time.monotonic() >= deadline:
                    os.close(fd)
                    raise AlreadyRunning(f"a service already runs for {self.place.db}") from None
                time.sleep(0.05)
        self._lock_fd = fd
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())

    def listen(self) -> None:
        """Clear a dead service's socket and listen on a fresh one, 0600 from birth."""
        assert self._lock_fd is not None, "take_lock() first"
        self.place.socket.unlink(missing_ok=True)  # a dead service's; we hold the lock
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old = os.umask(0o177)  # born 0600: no moment in which another user could connect
        try:
            listener.bind(str(self.place.socket))
        finally:
            os.umask(old)
        os.chmod(self.place.socket, 0o600)
        listener.listen(16)
        self._listener = listener

    def serve(self, before_release: Callable[[], None] | None = None) -> None:
        """Accept until `stop()`; then close the socket, run `before_release` (what else
        the service must stop: its page, its index), and only then let the lock go: a
        `service stop` waits on the lock, so when it returns nothing of this service
        answers any more."""
        assert self._listener is not None, "listen() first"
        try:
            with selectors.DefaultSelector() as sel:
                sel.register(self._listener, selectors.EVENT_READ, "accept")
                sel.register(self._wake_r, selectors.EVENT_READ, "wake")
                while not self._stopping.is_set():
                    for key, _ in sel.select():
                        if key.data == "accept":
                            self._accept()
        finally:
            try:
                if self._listener is not None:
                    self._listener.close()
                    self._listener = None
                    self.place.socket.unlink(missing_ok=True)
                if before_release is not None:
                    before_release()
            finally:
                self.close()

    def stop(self) -> None:
        self._stopping.set()
        with suppress(OSError):
            os.write(self._wake_w, b"x")

    def close(self) -> None:
        if self._listener is not None:
            self._listener.close()
            self._listener = None
            self.place.socket.unlink(missing_ok=True)
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None

    def _accept(self) -> None:
        assert self._listener is not None
        try:
            conn, _ = self._listener.accept()
        except OSError:
            return
        threading.Thread(target=self._serve_one, args=(conn,), daemon=True).start()

    def _serve_one(self, conn: socket.socket) -> None:
        with conn:
            if not same_user(conn):
                log.warning("refused a connection from another user")
                return
            conn.settimeout(READ_SECONDS)
            try:
                request = receive(conn)
                stream = self.streams.get(str(request.get("op")))
                if stream is not None and request.get("v") == identity():
                    send(conn, {"ok": True, "pid": os.getpid()})
                    conn.settimeout(None)  # a session lasts as long as its client
                    try:
                        stream(request, conn)
                    except Exception:  # noqa: BLE001 - one session must not end the service
                        log.exception("a %s session failed", request.get("op"))
                    return
                send(conn, self._answer(request))
            except (OSError, WireError) as exc:
                log.info("a client left early: %s", exc)
                return
        if request.get("op") == "stop" or request.get("v") != identity():
            self.stop()

    def _answer(self, request: dict) -> dict:
        if request.get("v") != identity():
            log.info("a client of version %s asked; stopping for it", request.get("v"))
            return {"error": "version", "version": identity()}
        op = request.get("op")
        if op == "ping":
            return {"ok": True, "pid": os.getpid()}
        if op == "service":
            return {
                "ok": True,
                "pid": os.getpid(),
                "version": identity(),
                "db": str(self.place.db),
                "uptime_seconds": round(time.time() - self.started, 1),
                "answered": self.answered,
                **self.status(),
            }
        if op == "stop":
            return {"ok": True, "pid": os.getpid()}
        try:
            reply = self.handle(request)
        except Exception as exc:  # noqa: BLE001 - one bad request must not end the service
            log.exception("request failed")
            return {"error": "internal", "message": str(exc)}
        with self._counting:
            self.answered += 1
        return reply
