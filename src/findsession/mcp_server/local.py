"""The MCP server in its own process, when no service can hold the session: its own
index and model, and its own watcher keeping the index fresh (standing aside while a
resident service for the same index does that work).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from findsession.api import Findsession
from findsession.freshness import Freshness
from findsession.mcp_server.scope import Scope, named_session
from findsession.mcp_server.stdin import take_stdin
from findsession.mcp_server.tools import build_server


def serve_here(db_path: Path, directory: str | None, all_projects: bool) -> None:
    """Run the server over stdio until the client closes it.

    `directory` is the one project the tools reach (else the working directory, where
    an agent's client starts the server): a boundary no argument of a call can widen;
    `all_projects` or the config's `[mcp] all_projects` opens every project.
    """
    fs = Findsession.open(db_path)
    cfg = fs.settings
    scope = scope_of(directory, all_projects or cfg.mcp_all_projects, named_session())
    fresh = None
    if os.environ.get("FINDSESSION_WATCH", "1") != "0":
        fresh = Freshness(db_path, fs.watched_roots(), defer_to=_service_running(db_path))
        scope.indexer_error = lambda: fresh.last_error
        fresh.start()

    @contextmanager
    def index() -> Iterator[Findsession]:
        yield fs  # one connection, kept open for the server's life

    try:
        take_stdin()  # a lone surrogate in a request left it unanswered
        build_server(index, scope, cfg.mcp_evidence_budget).run("stdio")
    finally:
        if fresh is not None:
            fresh.stop()
        fs.close()


def scope_of(
    directory: str | None, all_projects: bool, named: str | None, cwd: str | None = None
) -> Scope:
    """Which sessions a server for an agent started in `cwd` (this process's working
    directory when None) sees by default: `directory` (else `cwd`) and below, or every
    project; the agent's own session left out, by the id its client `named` if any."""
    here = cwd or os.getcwd()
    scope_dir = None if all_projects else (directory or here)
    return Scope(
        directory=str(Path(scope_dir).resolve()) if scope_dir else None,
        started=time.time(),
        explicit_current=named,
        cwd=here,
    )


def _service_running(db_path: Path) -> Callable[[], bool] | None:
    """A check of whether a resident service holds this index (its lock: no socket
    round trip), or None where services do not run."""
    from findsession.protocol.client import running
    from findsession.protocol.place import NoPlace, Place

    try:
        place = Place.for_index(db_path)
    except (NoPlace, OSError):
        return None
    return lambda: running(place)
