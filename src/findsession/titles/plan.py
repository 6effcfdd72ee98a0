"""`findsession titles`: a title for every session without one of its own, written where safe.

Which sessions: agents' main sessions (subagents have no place in a picker, and notes
have their own titles). A session whose last custom title is the person's is left
alone: their title always wins. One whose title is the agent's own (Claude Code's
`ai-title`) gets a proposal, but only a write that names that one session replaces it:
the agent keeps renaming such a session as the work goes on, and a custom title would
stop that.

Where a title goes is the source's call (`Source.title_line`): Claude Code has a
documented record for it, appended to the transcript under the checks in `guard`;
any other format keeps the title in the index only, where search and lists show it.
"""

from __future__ import annotations

import time
from pathlib import Path

from findsession.config import Config
from findsession.domain import MetaKind, Session
from findsession.paths import expand
from findsession.sources import SOURCES, SPOKEN_NAMES
from findsession.storage.base import FileState, TitleWrite
from findsession.storage.views import TitleStore
from findsession.titles.append import append_title
from findsession.titles.guard import (
    AGENT_TITLE,
    MISSING,
    NOTHING,
    OURS,
    PERSON_TITLE,
    machine_refusal,
    preview_refusal,
)
from findsession.titles.refresh import refresh_file, retitle
from findsession.titles.report import Reason, TitleResult, TitlesReport
from findsession.titles.titler import Proposal, Titler

#: The sources that are agents' sessions (the ones people name an agent by), not notes.
AGENT_SOURCES = frozenset(SPOKEN_NAMES)
NOT_A_SESSION = Reason(
    "not_an_agent_session", "it is a subagent or a note: only an agent's main session is named"
)


def title_sessions(
    store: TitleStore, config: Config, session: Session | None = None, write: bool = False
) -> TitlesReport:
    """Propose (and with `write`, give) titles: every untitled session, or `session`."""
    titler = Titler(store, config.titles)
    report = TitlesReport(write=write, by=titler.by)
    ours: dict[str, list[TitleWrite]] = {}
    for w in store.title_writes():
        ours.setdefault(w.session_id, []).append(w)
    states = store.file_states()
    named = session is not None
    sessions = [session] if session else store.recent_sessions(None, None, None, -1)
    for s in sessions:
        kind = title_kind(store, s, ours.get(s.id, []))
        if not named and (kind in ("custom", "findsession") or s.source not in AGENT_SOURCES):
            report.titled += int(s.source in AGENT_SOURCES)
            continue
        result = TitleResult(s, kind)
        report.results.append(result)
        if s.is_subagent or s.source not in AGENT_SOURCES:
            result.status, result.reason = "skipped", NOT_A_SESSION
            continue
        proposal = titler.propose(s)
        if proposal is not None:
            _take(result, proposal)
        note = _decide(store, config, result, states, named, write)
        if note:
            report.notes.append(note)
    report.notes += titler.finish()
    return report


def title_kind(store: TitleStore, session: Session, ours: list[TitleWrite]) -> str | None:
    """Who gave the session the title it has: `custom` (the person), `findsession`,
    `ai` (the agent), or None. The last custom title decides, as in the picker."""
    meta = store.session_meta(session.id)
    customs = [e.value for e in meta if e.kind is MetaKind.CUSTOM_TITLE]
    if customs:
        return "findsession" if any(w.title == customs[-1] for w in ours) else "custom"
    if any(w.offset is None for w in ours):
        return "findsession"
    if any(e.kind is MetaKind.AI_TITLE for e in meta):
        return "ai"
    return None


def _take(result: TitleResult, proposal: Proposal) -> None:
    result.title, result.summary = proposal.title, proposal.summary
    result.by, result.terms = proposal.by, proposal.terms


def _decide(
    store: TitleStore,
    config: Config,
    result: TitleResult,
    states: dict[str, FileState],
    named: bool,
    write: bool,
) -> str | None:
    """Set what happens to the proposal (and, with `write`, do it); a note for the
    person when the index could not read the written line at once."""
    s, settings, now = result.session, config.titles, time.time()
    path = s.file_path
    if not path:
        result.status, result.reason = "refused", MISSING
        return None
    sf = SOURCES[s.source].describe(Path(path))
    line = SOURCES[s.source].title_line(sf, result.title or "")
    result.place = "transcript" if line is not None else "index"
    refusal = _refusal(result.title_kind, result.title, named)
    if refusal is None and line is not None:
        refusal = machine_refusal(settings.writer, config.machine)
        if refusal is None and not write:
            refusal = preview_refusal(path, states.get(path), settings.quiet_minutes, now)
    if refusal is not None:
        hard = refusal not in (OURS, NOTHING, AGENT_TITLE)
        result.status, result.reason = ("refused" if hard else "skipped"), refusal
        return None
    if not write or result.title is None:
        return None
    if line is None:
        with store.transaction():
            store.record_title_write(TitleWrite(s.id, path, result.title))
        retitle(store, s.id, s.source, path)
        result.status = "indexed"
        return None
    state = states.get(path)
    refusal = append_title(
        store, s, state, result.title, line, quiet_minutes=settings.quiet_minutes, now=now
    )
    if refusal is not None:
        result.status, result.reason = "refused", refusal
        return None
    result.status = "written"
    excluded = tuple(str(expand(g)) for g in config.exclude)
    return refresh_file(store, state, excluded) if state is not None else None


def _refusal(kind: str | None, title: str | None, named: bool) -> Reason | None:
    if kind == "custom":
        return PERSON_TITLE
    if kind == "findsession":
        return OURS
    if title is None:
        return NOTHING
    if kind == "ai" and not named:
        return AGENT_TITLE
    return None
