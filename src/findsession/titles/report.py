"""What `titles` proposed, wrote or refused, and what `titles --undo` removed, per session.

Every refusal carries a `Reason`: a stable code for scripts and a sentence for people.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from findsession.domain import Session


@dataclass(frozen=True, slots=True)
class Reason:
    """Why a title was not written (or not removed)."""

    code: str
    says: str


@dataclass(slots=True)
class TitleResult:
    """One session: its title now, the title proposed, and what became of it.

    `status` is `proposed` (a write would go ahead now), `written` (appended to the
    transcript), `indexed` (kept in the index: the format has no place for a title),
    `refused` (a safety check said no: see `reason`) or `skipped` (nothing to write).
    """

    session: Session
    #: Who gave the title the session has now: `custom` (the person), `findsession`,
    #: `ai` (the agent's own), or None (it is named by a prompt).
    title_kind: str | None
    title: str | None = None
    summary: str | None = None
    #: `offline`, or the model that made the title (`ollama:qwen2.5:3b`).
    by: str = "offline"
    #: The distinctive terms behind an offline title.
    terms: list[str] = field(default_factory=list)
    status: str = "proposed"
    reason: Reason | None = None
    #: Where the title goes: `transcript` (a line appended) or `index` (the index only).
    place: str = "transcript"


@dataclass(slots=True)
class TitlesReport:
    """The sessions `titles` looked at, and the ones it left alone."""

    write: bool
    by: str
    results: list[TitleResult] = field(default_factory=list)
    #: Sessions left out because they have a title of their own (the person's or ours).
    titled: int = 0
    notes: list[str] = field(default_factory=list)


@dataclass(slots=True)
class UndoResult:
    """One title findsession wrote, and whether it is gone again.

    `status` is `removed` (its exact bytes are out of the transcript, or it left the
    index), `gone` (the transcript no longer exists) or `refused` (see `reason`).
    """

    session_id: str
    path: str
    title: str
    #: Where the line started; None for a title kept in the index only.
    offset: int | None
    status: str
    reason: Reason | None = None
    #: Something else worth knowing (the agent copied the line, say).
    note: str | None = None


@dataclass(slots=True)
class UndoReport:
    results: list[UndoResult] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
