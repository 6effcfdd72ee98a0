"""Going back into a session: the agent's command for it, and the list `open N` reads.

Finding a session is half the job; the person then wants to be back in it, in its own
agent and directory. Each source says how its agent resumes a session
(`Source.resume`); this module adds what is the same for all of them: a subagent is
resumed through its parent (no agent resumes a subagent on its own), and whether the
working directory still exists is checked, so a moved project is reported rather than
guessed at.

It also keeps the numbers a person was shown: each search for people remembers its
ranked sessions per terminal (`remember_shown`), and `shown_session` turns `open 2`
back into the second of them, refusing a list old enough to have been forgotten.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import replace
from datetime import UTC, datetime, timedelta

from findsession.domain import Hit, Resume, Session
from findsession.errors import FindsessionError, SessionNotFound
from findsession.sources import SOURCES
from findsession.storage.base import SessionReader

#: A list older than this is not opened from: a terminal's name (or a shell's pid) is
#: reused, and the person has long since stopped looking at those numbers.
STALE_AFTER = timedelta(hours=12)
#: Lists older than this are deleted whenever a new one is remembered.
FORGET_AFTER = timedelta(days=7)
_SEARCH_FIRST = "search first, then open a result by the number it was shown with"


def resume_of(store: SessionReader, session: Session, here: str | None = None) -> Resume:
    """How to resume `session` with its agent, in its working directory, or why not.
    `here` is this machine's name: a session a shared server holds from another machine
    resumes there, and a colleague's not at all."""
    if not session.yours:
        return Resume(
            reason=f"{session.owner}'s session (pushed from {session.machine or 'their index'})"
            " is theirs to resume; read it here, or ask them"
        )
    if session.machine and session.machine != here:
        plan = resume_of(store, replace(session, machine=None), here)
        if not plan.available:
            return plan
        where = f"run it on {session.machine}, where its transcript is"
        return replace(
            plan,
            cwd_exists=False,
            machine=session.machine,
            note="; ".join(n for n in (plan.note, where) if n),
        )
    target, note = session, None
    if session.is_subagent:
        parent_id = session.parent_id
        if not parent_id:
            return Resume(
                reason="a subagent cannot be resumed on its own, and the index does not know"
                " which session started it"
            )
        # The parent's own row when it is indexed; else the subagent's directory, which
        # is the one its parent worked in when it started it.
        target = store.get_session(parent_id) or replace(
            session, id=parent_id, is_subagent=False, parent_id=None, file_path=None
        )
        note = (
            "a subagent cannot be resumed on its own: this resumes its parent session"
            f" {parent_id}, which started it"
        )
    source = SOURCES.get(target.source)
    if source is None:
        return Resume(
            reason=f"this version of findsession does not know the source {target.source!r}"
        )
    plan = source.resume(target)
    if not plan.available:
        return plan
    exists = bool(plan.cwd and os.path.isdir(plan.cwd))
    if plan.anywhere and plan.cwd and not exists:
        # The agent finds the session by its id from any folder: a folder since moved or
        # deleted does not stop it, so it runs wherever the person is, and says so.
        note = "; ".join(n for n in (note, f"its folder {plan.cwd} is gone: it resumes here") if n)
        plan = replace(plan, cwd=None)
    notes = "; ".join(n for n in (note, plan.note) if n)
    return replace(plan, cwd_exists=exists, note=notes or None)


def with_resume(store: SessionReader, hits: Iterable[Hit], here: str | None = None) -> None:
    """Give each hit the command that resumes its session (from machine `here`)."""
    for hit in hits:
        hit.resume = resume_of(store, hit.session, here)


def remember_shown(
    store: SessionReader, terminal: str, session_ids: list[str], now: datetime | None = None
) -> None:
    """Remember the sessions `terminal` was just shown, in the order shown."""
    now = now or datetime.now(UTC)
    store.remember_shown(terminal, session_ids, _iso(now), _iso(now - FORGET_AFTER))


def shown_session(
    store: SessionReader, terminal: str, n: int, now: datetime | None = None
) -> Session:
    """The session shown as result `n` of the last search in `terminal`."""
    shown = store.shown_list(terminal)
    if shown is None:
        raise FindsessionError(
            f"no search results are remembered for this terminal: {_SEARCH_FIRST}",
            cli_hint='findsession "what you remember", then findsession open N',
        )
    age = (now or datetime.now(UTC)) - _parse(shown.shown_at)
    if age > STALE_AFTER:
        hours = int(STALE_AFTER.total_seconds() // 3600)
        raise FindsessionError(
            f"the last results shown here are from {shown.shown_at} (over {hours} hours ago)"
            f" and may not be the list you have in mind: {_SEARCH_FIRST}"
        )
    count = len(shown.session_ids)
    if not 1 <= n <= count:
        raise FindsessionError(
            f"the last search here showed result{'s 1–' if count > 1 else ' '}{count}, not {n}:"
            " give one of those numbers, or search again"
        )
    sid = shown.session_ids[n - 1]
    session = store.get_session(sid) if sid else None
    if session is None:
        raise SessionNotFound(
            f"result {n} of the last search is no longer in the index (forgotten since):"
            " search again"
        )
    return session


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _parse(stamp: str) -> datetime:
    return datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
