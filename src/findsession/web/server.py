"""Run the page on 127.0.0.1: a socket bound first (port 0 becomes a real port, known
before the first request), uvicorn serving it on a thread of its own.

The same server runs inside the resident service (beside its Unix socket) or in the
`findsession ui` process when no service runs.
"""

from __future__ import annotations

import asyncio
import socket
import threading
from dataclasses import dataclass, field
from pathlib import Path

from findsession.errors import FindsessionError
from findsession.web.app import Ask, build_app
from findsession.web.guard import Guard
from findsession.web.keys import Keys, link_file

HOST = "127.0.0.1"


class PortUnavailable(FindsessionError):
    """The port asked for cannot be listened on (another program holds it)."""


@dataclass
class PageServer:
    """One start of the page: its port, its keys, and the links that let a browser in."""

    ask: Ask
    port: int = 0
    keys: Keys = field(default_factory=Keys)
    _thread: threading.Thread | None = None
    _server: object | None = None

    def link(self) -> str:
        """A one-time link into the page (see `keys`)."""
        prefix, token = self.keys.new_link()
        return f"http://{HOST}:{self.port}/{prefix}/?token={token}"

    def link_file(self, folder: Path) -> Path:
        """A one-time link in a file only this user can read, for the browser to open:
        removed when the link is used or dies, or the page stops."""
        prefix, token = self.keys.new_link()
        path = link_file(folder, f"http://{HOST}:{self.port}/{prefix}/?token={token}")
        self.keys.attach(token, path)
        return path

    def start(self) -> None:
        """Bind and start serving on a thread; return once it answers."""
        import uvicorn

        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((HOST, self.port))
            sock.listen(64)
        except OSError as exc:
            sock.close()
            raise PortUnavailable(
                f"cannot serve the page on {HOST}:{self.port} ({exc.strerror or exc})",
                cli_hint="choose another --port, or leave it out for any free one",
            ) from None
        self.port = sock.getsockname()[1]
        guard = Guard(build_app(self.ask), self.keys)
        guard.port = self.port
        config = uvicorn.Config(
            guard, log_level="warning", access_log=False, lifespan="off", server_header=False
        )
        server = uvicorn.Server(config)
        self._server = server
        ready = threading.Event()

        def run() -> None:
            async def serve() -> None:
                task = asyncio.ensure_future(server.serve(sockets=[sock]))
                while not server.started and not task.done():
                    await asyncio.sleep(0.01)
                ready.set()
                await task

            asyncio.run(serve())
            ready.set()

        self._thread = threading.Thread(target=run, name="findsession-web", daemon=True)
        self._thread.start()
        ready.wait(10)

    def stop(self) -> None:
        self.keys.close()
        if self._server is not None:
            self._server.should_exit = True  # type: ignore[attr-defined]
        if self._thread is not None:
            self._thread.join(5)

    def wait(self) -> None:
        """Block until the server ends (Ctrl-C ends it)."""
        assert self._thread is not None, "start() first"
        while self._thread.is_alive():
            self._thread.join(0.5)
