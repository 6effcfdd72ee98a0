"""The seam of `findsession push`: what a local index hands over, what a server takes.

A push reads the sessions that changed since a cursor from the local index
(`PushSource`, the SQLite file) and writes them into a shared server (`PushTarget`,
PostgreSQL), one batch per server transaction. These plain values cross between the
two; neither backend knows the other, and nothing here says how either keeps them. The
text is the index's, redacted when it was indexed: a push sends nothing the index does
not already hold.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from findsession.domain import Session
from findsession.storage.types import Chunk, TitleWrite, UnitRow

__all__ = ["Chunk"]  # a pushed chunk travels as stored: nothing is embedded again


@dataclass(frozen=True, slots=True)
class PushedUnit:
    """A unit with its hash (the server writes it only when the hash differs) and its
    id in the local index (to fetch its vectors when the server wants them)."""

    row: UnitRow
    hash: str
    local_id: int
    embedded: bool


@dataclass(slots=True)
class PushedSession:
    """A session as the local index holds it, whole: its row, every unit, the titles
    kept in the index only."""

    session: Session
    agent_description: str | None
    units: list[PushedUnit]
    titles: list[TitleWrite]


@dataclass(slots=True)
class PushBatch:
    """The sessions logged after a cursor, up to `seq` (the cursor once they are in)."""

    seq: int
    #: Forgotten here: the server drops them and refuses them from then on.
    tombstones: list[str] = field(default_factory=list)
    #: Gone from the local index without being forgotten (a pruned transcript).
    gone: list[str] = field(default_factory=list)
    sessions: list[PushedSession] = field(default_factory=list)


@dataclass(slots=True)
class PushCounts:
    """What one server transaction wrote (all zero for a batch the server already had)."""

    sessions: int = 0
    units: int = 0
    units_removed: int = 0
    vectors: int = 0
    titles: int = 0
    tombstones: int = 0
    removed: int = 0
    refused: int = 0

    def add(self, other: PushCounts) -> None:
        for name in self.__slots__:
            setattr(self, name, getattr(self, name) + getattr(other, name))


class PushSource(Protocol):
    """A local index that can be pushed (the SQLite file)."""

    def push_cursor(self, target: str) -> int: ...
    def set_push_cursor(self, target: str, seq: int) -> None: ...
    def push_pending(self, after: int) -> int:
        """How many sessions changed after `after` (what a push would send)."""
        ...

    def push_batch(self, after: int, limit: int) -> PushBatch:
        """The next at most `limit` sessions logged after `after`, read in one snapshot."""
        ...

    def push_vectors(self, units: list[tuple[int, str]]) -> dict[int, list[Chunk]]:
        """The chunks of these (unit id, hash) units, for those whose hash still holds."""
        ...


class PushTarget(Protocol):
    """A shared index that takes pushes (the PostgreSQL server)."""

    #: The server and database, password left out.
    url: str

    def who_am_i(self) -> str:
        """The role the server knows this connection as: the owner of what it writes."""
        ...

    def push_model(self, identity: str, dims: int) -> str | None:
        """Record the model the pushed vectors come from, if the server has none; the
        server's model when it is another one (then no vectors may be pushed)."""
        ...

    def pushed_state(
        self, machine: str, local_ids: list[str]
    ) -> dict[tuple[str, str, int], tuple[str, bool]]:
        """(session, kind, ordinal) → (hash, whether its vectors are in) for the units the
        server holds of these sessions from `machine`: what need not travel again."""
        ...

    def receive_push(
        self, machine: str, batch: PushBatch, vectors: dict[int, list[Chunk]]
    ) -> PushCounts:
        """Write one batch in one transaction: tombstones first, then what is gone, then
        each session (refused when its owner forgot it), writing only what differs."""
        ...

    def finish_push(self) -> None:
        """After the last batch: build what is cheaper built once over everything pushed
        (the vector graph of a server that had none)."""
        ...


class Sharing(Protocol):
    """Projects people show the team on a shared server (`findsession share`)."""

    def share(self, project: str) -> bool: ...
    def unshare(self, project: str) -> bool: ...
    def shares(self) -> list[tuple[str, str, str, bool]]: ...


def push_methods(protocol: type) -> list[str]:
    """The methods one of the push protocols asks for (their errors are mapped too)."""
    return [n for n, m in vars(protocol).items() if callable(m) and not n.startswith("_")]
