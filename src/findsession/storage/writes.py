"""The seam of the index of files written: which files each session's tool calls wrote,
for `findsession blame` (from a file back to the sessions that wrote it).

Derived data: the indexer writes a session's rows whenever it rebuilds the session from
its stored messages, replacing what was there; a schema step lists every session indexed
before the table existed (the backlog), and the indexer derives those once. Kept apart
from `base.py` so each backend holds it in one module of its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class WriteRow:
    """One file one tool call wrote, as a session's rebuild stores it."""

    turn: int
    #: Its order in the session (tool calls in turn order): breaks ties of time.
    seq: int
    ts: str | None
    tool: str
    op: str
    #: The path as the call named it, and resolved against the directory it ran in
    #: (None when relative with no directory known, or under `~`).
    path: str
    abs_path: str | None
    #: The file's name (the path's last part): what a lookup starts from.
    name: str
    cwd: str | None
    #: The text written and the text replaced, as the index holds the call (redacted,
    #: at most the per-call cap); `truncated` when the cap cut the call.
    text: str
    removed: str
    truncated: bool


@dataclass(frozen=True, slots=True)
class WriteMatch:
    """A stored write of a file of the name asked for, without its text."""

    id: int
    session_id: str
    turn: int
    seq: int
    ts: str | None
    tool: str
    op: str
    path: str
    abs_path: str | None
    cwd: str | None
    truncated: bool
    #: The session's own working directory (its project root as it was then).
    session_cwd: str | None


class WriteIndex(Protocol):
    """The files sessions wrote, by file name."""

    def save_file_writes(self, session_id: str, rows: list[WriteRow]) -> None:
        """Replace what the index holds of the files `session_id` wrote (and take it off
        the backlog)."""
        ...

    def file_writes_named(self, name: str, tail: str, project: str | None) -> list[WriteMatch]:
        """Every stored write of a file called `name` whose path ends with `tail` (its
        folder and name, `/api/app.py`: what any match of a file shares), newest first;
        with `project`, only those of sessions started in that directory or below."""
        ...

    def file_write_texts(self, ids: list[int]) -> dict[int, tuple[str, str]]:
        """(text written, text replaced) of these writes."""
        ...

    def file_writes_backlog(self, limit: int) -> list[str]:
        """Up to `limit` sessions indexed before the index of files written existed,
        whose writes are still to be derived from their stored messages."""
        ...


def write_methods() -> list[str]:
    """The methods `WriteIndex` asks a backend for."""
    return [n for n, m in vars(WriteIndex).items() if callable(m) and not n.startswith("_")]
