"""`findsession service run`: the service in the foreground until SIGTERM or `service
stop`: the lock taken, the index warmed on its connections, the freshness threads
started, then requests answered until told to stop.
"""

from __future__ import annotations

import logging
import os
import signal
import socket
from typing import Any

from findsession.protocol.place import Place
from findsession.service.dispatch import dispatch
from findsession.service.hosted import hosted, stop_hosted
from findsession.service.resident import Resident
from findsession.service.server import AlreadyRunning, Server


def run(place: Place) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    log = logging.getLogger("findsession.service")
    resident = Resident(place.db)

    def handle(request: dict[str, Any]) -> dict[str, Any]:
        if request.get("op") == "page":  # `findsession ui`: the page, from this warm index
            folder = place.folder if request.get("open") else None
            return hosted("page")(resident, int(request.get("port") or 0), folder)
        return dispatch(resident, request)

    def mcp(request: dict[str, Any], conn: socket.socket) -> None:
        hosted("mcp")(resident, request, conn)

    server = Server(place, handle, resident.status, streams={"mcp": mcp})
    try:
        server.take_lock()
    except AlreadyRunning as exc:
        log.info("%s; leaving", exc)
        resident.close()
        return 0
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, lambda *_: server.stop())
    log.info("warming up %s", place.db)
    log.info("warm in %.2f s", resident.warm())
    resident.freshness.start()
    server.listen()
    log.info("listening on %s (pid %d)", place.socket, os.getpid())

    def shut_down() -> None:
        stop_hosted()  # the page, if a `ui` started it
        resident.close()

    try:
        server.serve(before_release=shut_down)
    finally:
        log.info("stopped")
    return 0
