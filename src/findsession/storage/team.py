"""What a team's shared server reports to its admin (`findsession server status`).

Plain values, named by no backend: the interfaces print them, and the backend that
keeps a shared server (findsession.storage.postgresql.roles) fills them in.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Person:
    """One owner of rows on the server, or a member of the group who owns none yet."""

    name: str
    #: In `findsession_users` now (False: removed, their rows kept).
    member: bool
    sessions: int
    units: int
    machines: list[str]
    #: The newest activity among their sessions (an ISO time), or None.
    last_active: str | None


@dataclass
class ServerStatus:
    """What `findsession server status` reports."""

    admin: str
    schema_step: int
    model: str | None
    dims: int | None
    #: Bytes of the vector graph, or None when it is not built (yet).
    graph_bytes: int | None
    people: list[Person]
    #: (owner, project) of every shared project.
    shares: list[tuple[str, str]]
