"""Which sessions the MCP tools see: the server's project, without the agent's own session.

Agents ask "did we already decide X?" mid-task, so a tool answers from the project the
server was started in, and the session the agent is in is left out (it has that context
already, and it would outrank everything else for the words the agent just used).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from findsession.api import Findsession

#: A connection of the index for one tool call: the service's warm index (one of its
#: connections, for as long as the call takes), or the server's own.
Index = Callable[[], "AbstractContextManager[Findsession]"]


@dataclass
class Scope:
    """Which sessions the tools see by default, fixed when the server starts."""

    directory: str | None  # None: every project
    started: float
    explicit_current: str | None  # the agent's own session id, when the client says it
    #: Where the server was started (the agent's working directory): a relative path
    #: is read from the project, else from here.
    cwd: str = "/"
    #: Why the background indexer's last round failed, or None; shown in search notes.
    indexer_error: Callable[[], str | None] = lambda: None


def current_session(fs: Findsession, scope: Scope, project: str | None) -> str | None:
    """The session the agent is in (`Findsession.own_session`: named by the client,
    else the project's live one)."""
    return fs.own_session(project, named=scope.explicit_current, since=scope.started)


def indexer_note(scope: Scope) -> list[str]:
    """A note for the search's answer when the index could not be kept fresh: the agent
    should know that a recent turn may be missing, not that the search failed."""
    error = scope.indexer_error()
    if not error:
        return []
    return [f"the index could not be brought up to date ({error}); results may miss recent turns"]


def named_session() -> str | None:
    """The agent's own session id, where its client says it in the environment."""
    return os.environ.get("FINDSESSION_CURRENT_SESSION") or os.environ.get("CLAUDE_SESSION_ID")
