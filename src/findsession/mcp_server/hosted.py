"""An MCP session inside the resident service: the server `findsession serve` would run,
on the service's warm index and model, speaking over the connection a relay opened.

The session's scope (its project, whether it sees every project, the session the agent
named as its own, where it was started) comes with the relay's first message, made in
the agent's own process; the evidence budget and the audit's connection are this
session's alone, exactly as in a server of its own.
"""

from __future__ import annotations

import socket
from contextlib import AbstractContextManager
from io import TextIOWrapper
from typing import Any, Protocol

import anyio
from mcp.server.stdio import stdio_server

from findsession.api import Findsession
from findsession.mcp_server.local import scope_of
from findsession.mcp_server.tools import build_server


class Warm(Protocol):
    """The service's warm index, as a session needs it."""

    settings: Any
    freshness: Any

    def index(self) -> AbstractContextManager[Findsession]: ...


def session(resident: Warm, opening: dict[str, Any], conn: socket.socket) -> None:
    """Serve one agent's MCP session on `conn` until the relay closes it."""

    def text(name: str) -> str | None:
        value = opening.get(name)
        return value if isinstance(value, str) and value else None

    settings = resident.settings
    scope = scope_of(
        text("directory"),
        bool(opening.get("all_projects")) or settings.mcp_all_projects,
        text("named"),
        cwd=text("cwd") or "/",
    )
    scope.indexer_error = lambda: resident.freshness.last_error
    server = build_server(resident.index, scope, settings.mcp_evidence_budget)
    anyio.run(_serve, server, conn)


async def _serve(server: Any, conn: socket.socket) -> None:
    reading = TextIOWrapper(conn.makefile("rb"), encoding="utf-8", errors="replace")
    writing = TextIOWrapper(conn.makefile("wb"), encoding="utf-8")
    async with stdio_server(anyio.wrap_file(reading), anyio.wrap_file(writing)) as (read, write):
        # The SDK runs a server over any pair of streams only through its low-level
        # server; `run_stdio_async` would claim this process's own stdin and stdout.
        lowlevel = server._lowlevel_server
        await lowlevel.run(read, write, lowlevel.create_initialization_options())
