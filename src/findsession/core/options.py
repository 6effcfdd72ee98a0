"""What each question to the core API takes besides its subject: one typed object per
operation, as `SearchOptions` is for a search.

Every interface builds these (the CLI from its flags, the MCP tools from their
parameters, the page from its query string) and the service receives them as they are:
an option means the same wherever it was given, and a new one is added in one place.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ReadOptions:
    """Which turns of a session to read: all, `turn`, or `first`..`last`, with
    `context` more on each side; tool calls and thinking only with `tools`; the
    transcript's own text (secrets included) with `raw`, else the index's."""

    turn: int | None = None
    first: int | None = None
    last: int | None = None
    context: int = 0
    tools: bool = False
    raw: bool = False
    #: The boundary of an interface started for one project (the MCP server's): only
    #: sessions of that project or below are reached (`projects.bounded`); None: every one.
    within: str | None = None


@dataclass(frozen=True)
class ListOptions:
    """Which sessions to list, most recently active first: started in `project` or
    below, active from `after` and before `before` (dates or ages), at most `limit`."""

    project: str | None = None
    after: str | None = None
    before: str | None = None
    limit: int = 20
    #: The boundary of an interface started for one project (the MCP server's): only
    #: sessions of that project or below are reached (`projects.bounded`); None: every one.
    within: str | None = None


@dataclass(frozen=True)
class BlameOptions:
    """Which writes of a file to return: with `first` (and `last`), the ones that hold
    those lines first; only sessions started in `project` or below; at most `limit`."""

    first: int | None = None
    last: int | None = None
    project: str | None = None
    limit: int = 20
    #: The boundary of an interface started for one project (the MCP server's): only
    #: sessions of that project or below are reached (`projects.bounded`); None: every one.
    within: str | None = None


@dataclass(frozen=True)
class HandoffOptions:
    """How a brief is made: with `model`, the `[titles]` model (when one is set) writes
    a summary on top of what is extracted."""

    model: bool = True
    #: The boundary of an interface started for one project (the MCP server's): only
    #: sessions of that project or below are reached (`projects.bounded`); None: every one.
    within: str | None = None
