"""Sentences out of an agent's replies: how it concluded a turn, what it asked back, and
what it said was left to do. Extractive: the agent's own words, cut, never rewritten.
"""

from __future__ import annotations

import re

_FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.MULTILINE | re.DOTALL)
_SPLIT = re.compile(r"(?<=[.!?。！？])\s+|\n+")
_MARKUP = re.compile(r"^\s*(?:[-*+>]|\d+[.)]|#+)\s+")
#: Words an agent uses for work it did not finish or that comes next.
_OPEN = re.compile(
    r"\b(todo|next steps?|remaining|still (?:need|needs|to)|not yet|left to|follow[- ]up|"
    r"couldn't|could not|unable to|didn't|did not|haven't|have not|blocked|pending|"
    r"you(?:'ll| will)? (?:need|want) to|should (?:also|still)|later)\b",
    re.IGNORECASE,
)
#: Words an agent uses when it settles something.
_DECIDED = re.compile(
    r"\b(decided|chose|going with|instead of|switched to|the fix is|fixed|root cause|"
    r"because|the problem (?:is|was)|turned out|so I|I'll use|we'll use|changed)\b",
    re.IGNORECASE,
)
SENTENCE_CHARS = 280
#: A sentence shorter than this ("Yes.", "Done.") says nothing on its own.
_SHORT = 16


def sentences(text: str) -> list[str]:
    """The prose sentences of a reply: code blocks left out, list markers dropped, each
    on one line and cut at SENTENCE_CHARS."""
    prose = _FENCE.sub("\n", text)
    out = []
    for piece in _SPLIT.split(prose):
        line = " ".join(_MARKUP.sub("", piece).split())
        if len(line) >= 3 and any(ch.isalpha() for ch in line):
            out.append(line if len(line) <= SENTENCE_CHARS else line[: SENTENCE_CHARS - 1] + "…")
    return out


def conclusion(replies: list[str], limit: int = 2) -> list[str]:
    """How a turn ended: the sentences of its replies that settle something, else the
    first sentences of its last reply."""
    said = [s for reply in replies for s in sentences(reply)]
    settled = [s for s in said if _DECIDED.search(s) and not s.endswith("?")]
    if settled:
        return settled[-limit:]
    last = [s for s in (sentences(replies[-1]) if replies else []) if len(s) >= _SHORT]
    return last[:limit]


def questions(reply: str) -> list[str]:
    """The questions the agent asked back."""
    return [s for s in sentences(reply) if s.endswith(("?", "？"))]


def open_items(replies: list[str], limit: int = 6) -> list[str]:
    """Sentences of the last replies that say something is not done or comes next."""
    found: list[str] = []
    for reply in replies:
        for s in sentences(reply):
            if _OPEN.search(s) and s not in found:
                found.append(s)
    return found[-limit:]
