"""Sessions as JSON: `findsession.read/1` (a session's turns, within a character budget
for an agent's context) and `findsession.sessions/1` (sessions listed with their first
prompt).

Separate because these hold transcripts' own text, where the other shapes summarise.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from findsession.domain import Message, MessageKind, Session
from findsession.jsonout.common import READ_SCHEMA, SESSIONS_SCHEMA, session_json
from findsession.reader import SessionView

#: A listed session's first prompt is cut here: enough to recognise it by.
FIRST_PROMPT_CHARS = 300


def read_json(view: SessionView, max_chars: int | None = None) -> dict[str, Any]:
    """`findsession.read/1`: a session's turns as they were said.

    With `max_chars`, the messages' text together holds at most that many characters:
    the message that reaches the limit is cut there and the ones after it are left out,
    so a reader with a budget (an agent's context) gets the start of the conversation
    whole. `left_out_chars` says how much text did not fit (always 0 without a limit).
    """
    budget = _Budget(max_chars)
    turns = []
    for t in view.turns:
        if budget.cut:
            budget.skip(m.text for m in t.messages)
            continue
        messages = []
        for m in t.messages:
            text = budget.take(m.text)
            if text is not None:
                messages.append(message_json(m, text))
        if messages or not t.messages:  # a turn whose every message was cut is left out
            turns.append({"turn": t.ordinal, "timestamp": t.timestamp, "messages": messages})
    return {
        "schema": READ_SCHEMA,
        "session": session_json(view.session),
        "total_turns": view.total_turns,
        "turns": turns,
        "left_out_chars": budget.left_out,
    }


def message_json(m: Message, text: str | None = None) -> dict[str, Any]:
    """One message of a turn; `text` stands in for the message's own when it was cut.

    Words typed into a running turn are a prompt that `steers` it (they open no turn of
    their own): every reader of this JSON counts them with what was typed."""
    steers = m.kind is MessageKind.STEER
    return {
        "kind": MessageKind.PROMPT.value if steers else m.kind.value,
        "steers": steers,
        "text": m.text if text is None else text,
        "timestamp": m.timestamp,
        "tool": m.tool_name,
        "is_error": m.is_error,
        "heading": m.heading,
    }


class _Budget:
    """Characters of message text still to give; None gives all of it."""

    def __init__(self, limit: int | None) -> None:
        self.limit = limit
        self.left_out = 0

    @property
    def cut(self) -> bool:
        """True once some text was cut: everything after the cut is left out too."""
        return self.left_out > 0

    def take(self, text: str) -> str | None:
        """As much of `text` as fits; None when none of it does."""
        if self.limit is None:
            return text
        if self.cut or (self.limit == 0 and text):
            self.left_out += len(text)
            return None
        kept = text[: self.limit]
        self.limit -= len(kept)
        self.left_out += len(text) - len(kept)
        return kept

    def skip(self, texts: Iterable[str]) -> None:
        self.left_out += sum(len(text) for text in texts)


def sessions_json(listed: Iterable[tuple[Session, str | None]]) -> dict[str, Any]:
    """`findsession.sessions/1`: sessions, each with its first prompt (cut to
    FIRST_PROMPT_CHARS), in the order given: "what was I doing last week"."""
    return {
        "schema": SESSIONS_SCHEMA,
        "sessions": [
            {**session_json(s), "first_prompt": (first or "")[:FIRST_PROMPT_CHARS]}
            for s, first in listed
        ],
    }
