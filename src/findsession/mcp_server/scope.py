"""Which sessions the MCP tools see: the server's project, without the agent's own session.

Agents ask "did we already decide X?" mid-task, so a tool answers from the project the
server was started in, and the session the agent is in is left out (it has that context
already, and it would outrank everything else for the words the agent just used).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from findsession.api import Findsession

#: A transcript written this recently in the server's project is the agent's own session.
CURRENT_SESSION_WINDOW_S = 600


@dataclass
class Scope:
    """Which sessions the tools see by default, fixed when the server starts."""

    directory: str | None  # None: every project
    started: float
    explicit_current: str | None  # the agent's own session id, when the client says it
    hybrid_weight: float = 0.5  # from the config, read once at start
    #: Why the background indexer's last round failed, or None; shown in search notes.
    indexer_error: Callable[[], str | None] = lambda: None


def current_session(fs: Findsession, scope: Scope, project: str | None) -> str | None:
    """The session the agent is in: named by the client, else the project's live one.

    Claude Code does not tell an MCP server its session id, so without one the session
    of this project whose transcript was written in the last ten minutes and changed
    after the server started is taken to be the agent's own.
    """
    if scope.explicit_current:
        return scope.explicit_current
    if not project:
        return None
    return fs.live_session(project, scope.started, CURRENT_SESSION_WINDOW_S)


def indexer_note(scope: Scope) -> list[str]:
    """A note for the search's answer when the index could not be kept fresh: the agent
    should know that a recent turn may be missing, not that the search failed."""
    error = scope.indexer_error()
    if not error:
        return []
    return [f"the index could not be brought up to date ({error}); results may miss recent turns"]
