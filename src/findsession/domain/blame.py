"""What `findsession blame` answers: the sessions that wrote a file, newest first, and
for a range of its lines, which of them holds those lines as they read now."""

from __future__ import annotations

from dataclasses import dataclass, field

from findsession.domain.records import Session


@dataclass(frozen=True, slots=True)
class Writer:
    """One tool call that wrote the file."""

    session: Session
    turn: int
    ts: str | None
    tool: str
    op: str
    #: The path as the session saw it, and how it matched the file asked about:
    #: `exact` (the same absolute path), `moved` (the same path below a project folder of
    #: the same name elsewhere), `relative` (a relative path with no directory known).
    path: str
    match: str
    #: What the person typed in that turn (one line, cut).
    prompt: str
    #: The start of the change: lines written, lines replaced.
    added: list[str]
    removed: list[str]
    added_lines: int
    #: The stored call was cut at the index's per-call cap: the change may go on.
    truncated: bool
    #: With a line range: how many of its lines (blank and bracket-only ones aside) the
    #: written text holds as they read now, and whether it is the last to write one.
    holds: int | None = None
    last: bool = False


@dataclass(frozen=True, slots=True)
class BlameLine:
    """One line of the range asked about, and the last writer that holds it."""

    number: int
    #: The line as the session that wrote it wrote it (the index's text, redacted), or
    #: None when no session wrote it: the file's own text is never given.
    text: str | None
    #: Index into `Blame.writers`; None when no indexed session wrote it.
    writer: int | None
    #: Blank or bracket-only: anything could have written it, so none is named.
    neutral: bool = False


@dataclass(slots=True)
class Blame:
    path: str
    #: The range asked about (None: the whole file's history).
    first: int | None
    last: int | None
    writers: list[Writer]
    lines: list[BlameLine] = field(default_factory=list)
    #: How many writes matched in all (writers may be cut to the first `limit`).
    total: int = 0
    notes: list[str] = field(default_factory=list)
