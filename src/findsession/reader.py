"""Read a session back: its turns as they were said, with tool calls on request.

Shared by the CLI's `read` and the MCP server's `read_conversation`, so both resolve
session ids and number turns the same way as search does.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from findsession.domain import Message, MessageKind, Session
from findsession.errors import SessionNotFound
from findsession.projects import within as in_scope
from findsession.search.ids import family_heads
from findsession.sources import SOURCES, Source
from findsession.storage.views import ReadStore
from findsession.turns import OPENERS, numbered

if TYPE_CHECKING:
    from findsession.archive.keeper import Archive


@dataclass
class TurnView:
    """One turn's messages in order; tool messages only when they were asked for."""

    ordinal: int
    timestamp: str | None
    messages: list[Message] = field(default_factory=list)


@dataclass
class SessionView:
    session: Session
    total_turns: int
    turns: list[TurnView]


def resolve_session(store: ReadStore, ref: str, within: str | None = None) -> Session:
    """An exact session id, or a prefix of exactly one (a subagent named after its parent
    goes with it); otherwise a clear error.

    Under a boundary (`within`, a project: see `projects.bounded`) a session of another
    project is answered as one not indexed, and a prefix counts only the sessions inside
    it, so the answer says nothing of what lies outside."""
    ref = ref.strip()
    if not ref:  # a prefix of every id: never "the one session" by accident
        raise SessionNotFound("a blank session id matches nothing: give the id or a prefix of it")
    session = store.get_session(ref)
    if session and in_scope(session.cwd, within):
        return session
    matches = family_heads(
        [s for s in store.sessions_with_prefix(ref) if in_scope(s.cwd, within)]
    )
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise SessionNotFound(
            f"no indexed session has the id {ref!r}: search for the session to get its id"
            if within is None
            else f"no indexed session of {within} has the id {ref!r} (sessions of other"
            " projects are out of reach here): search for the session to get its id"
        )
    listed = ", ".join(s.id for s in matches[:5])
    raise SessionNotFound(
        f"{ref!r} matches {len(matches)} sessions ({listed}, …): give more of the id"
    )


_TOOL_KINDS = (MessageKind.TOOL_CALL, MessageKind.TOOL_OUTPUT, MessageKind.THINKING)
_SHOWN = (*OPENERS, MessageKind.STEER, MessageKind.REPLY)


def read_session(
    store: ReadStore,
    ref: str,
    turn: int | None = None,
    context: int = 0,
    tools: bool = False,
    first: int | None = None,
    last: int | None = None,
    raw: bool = False,
    archive: Archive | None = None,
    within: str | None = None,
) -> SessionView:
    """Turns of a session: all, `turn`, or `first`..`last`, with `context` more on each side.

    Turns are numbered from 1; a number outside the session's turns (0 included) raises
    `SessionNotFound` rather than falling back to the whole session.

    The text is what the index holds (secrets redacted); `raw` reads it back from the
    transcript instead, where the transcript still holds those lines unchanged (from
    `archive`'s copy of a transcript that is gone).
    """
    session = resolve_session(store, ref, within)
    views: list[TurnView] = []
    messages = store.session_messages(session.id)
    if raw:
        sources = store.message_sources(session.id)
        if len(sources) != len(messages):
            raise SessionNotFound(
                f"session {session.id} was pushed to this server without its transcript's"
                " lines: read it --raw from the local index of the machine it came from"
            )
        messages = _from_transcript(store, messages, sources, archive)
    # Numbered as search numbers turns (a note's section is one; the first may have no
    # prompt), each block logged twice for one reply shown once.
    for number, msg in numbered(messages):
        if not views or views[-1].ordinal != number:
            views.append(TurnView(number, msg.timestamp, []))
        if msg.kind in _SHOWN or (tools and msg.kind in _TOOL_KINDS):
            views[-1].messages.append(msg)
    total = len(views)
    if turn is not None:
        first = last = turn
    if first is not None or last is not None:
        low = 1 if first is None else first
        high = total if last is None else last
        for n in (low, high):
            if not 1 <= n <= total:
                raise SessionNotFound(
                    f"session {session.id} has turns 1–{total} (numbered from 1), not {n}"
                    if total
                    else f"session {session.id} has no turns to read"
                )
        if low > high:
            raise SessionNotFound(f"the range {low}–{high} is empty: `from` must not pass `to`")
        low, high = max(1, low - context), min(total, high + context)
        views = views[low - 1 : high]
    return SessionView(session, total, views)


def _from_transcript(
    store: ReadStore,
    messages: list[Message],
    sources: list[tuple[str, int, int]],
    archive: Archive | None = None,
) -> list[Message]:
    """Each message with its text as the transcript has it, read back by the file's own
    source from the files the index recorded (never a path from the caller), or from
    the archive's copy of one that is gone. A line that no longer redacts to the stored
    text (the file was rewritten) keeps the stored text."""
    wanted: dict[str, set[int]] = {}
    for path, line, _ in sources:
        wanted.setdefault(path, set()).add(line)
    kinds = store.file_sources(wanted)
    originals: dict[tuple[str, int, int], str] = {}
    for path, lines in wanted.items():
        source = SOURCES.get(kinds.get(path, ""))
        if source is None:
            continue  # a format this version no longer reads: the stored text stands
        try:
            texts = source.read_back(Path(path), lines)
        except FileNotFoundError:
            texts = _from_archive(store, archive, path, lines, source)
        except OSError:
            continue  # unreadable: the stored text is all there is
        originals.update(((path, line, part), text) for (line, part), text in texts.items())
    out = []
    for msg, key in zip(messages, sources, strict=True):
        text = originals.get(key)
        if text is not None and _redact(text) == msg.text:
            msg = replace(msg, text=text)
        out.append(msg)
    return out


def _from_archive(
    store: ReadStore, archive: Archive | None, path: str, lines: set[int], source: Source
) -> dict[tuple[int, int], str]:
    """The lines of a transcript that is gone, read back by its source from the
    archive's copy, placed as the file was below its root (a source tells a subagent or
    a session folder from its place); none when the archive holds no usable copy."""
    if archive is None:
        return {}
    state = store.file_states([path]).get(path)
    below = Path(path).parts[-3:]
    if state is not None and state.root and path.startswith(state.root.rstrip("/") + "/"):
        below = Path(path[len(state.root.rstrip("/")) + 1 :]).parts
    with archive.copy(path, list(below)) as copy:
        if copy is None:
            return {}
        try:
            return source.read_back(copy, lines)
        except OSError:
            return {}


def _redact(text: str) -> str:
    """A transcript line as the index would store it. The rules (hundreds of patterns)
    are compiled only when a raw reading asks: `read` and `search` never need them."""
    from findsession.redact import redact

    return redact(text)[0]
