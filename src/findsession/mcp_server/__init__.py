"""`findsession serve`: the search and reader as MCP tools, for agents, over stdio.

The tools (`tools`) answer with the same JSON objects as the CLI's `--json`
(docs/json.md), from the project the server was started in and nothing past it (the
core API holds that boundary), without the agent's own session (`scope`), and say
plainly when the index is empty or nothing matched. The service's watcher
(`service.freshness`) keeps the index fresh from the operating system's file events: an
idle agent costs no polling. While a resident service runs for the same index it does
that work, and the server's watcher stands aside. The server only ever reads
transcripts.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

from findsession.api import Findsession
from findsession.mcp_server.scope import Scope
from findsession.mcp_server.stdin import take_stdin
from findsession.mcp_server.tools import build_server
from findsession.service.freshness import Freshness

__all__ = ["build_server", "serve"]


def serve(db_path: Path, directory: str | None, all_projects: bool) -> None:
    """Run the server over stdio until the client closes it.

    `directory` is the one project the tools reach (else the working directory, where
    an agent's client starts the server): a boundary no argument of a call can widen;
    `all_projects` or the config's `[mcp] all_projects` opens every project.
    """
    fs = Findsession.open(db_path)
    cfg = fs.settings
    scope_dir = None if all_projects or cfg.mcp_all_projects else (directory or os.getcwd())
    scope = Scope(
        directory=str(Path(scope_dir).resolve()) if scope_dir else None,
        started=time.time(),
        explicit_current=os.environ.get("FINDSESSION_CURRENT_SESSION")
        or os.environ.get("CLAUDE_SESSION_ID"),
        hybrid_weight=cfg.hybrid_weight,
    )
    fresh = None
    if os.environ.get("FINDSESSION_WATCH", "1") != "0":
        fresh = Freshness(db_path, fs.watched_roots(), defer_to=_service_running(db_path))
        scope.indexer_error = lambda: fresh.last_error
        fresh.start()
    try:
        take_stdin()  # a lone surrogate in a request left it unanswered
        build_server(fs, scope).run("stdio")
    finally:
        if fresh is not None:
            fresh.stop()


def _service_running(db_path: Path) -> Callable[[], bool] | None:
    """A check of whether a resident service holds this index (its lock: no socket
    round trip), or None where services do not run."""
    from findsession.service.client import running
    from findsession.service.place import NoPlace, Place

    try:
        place = Place.for_index(db_path)
    except (NoPlace, OSError):
        return None
    return lambda: running(place)
