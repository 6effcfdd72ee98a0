"""How sure a search is that its first session is the one meant: strong, weak or nothing close.

A ranked list always has a first hit, even for a session that was never indexed; a
person then reads ten unrelated sessions and an agent cites one. Three signals of the
first session, each measured to separate found sessions from wrong ones:

- **coverage**: the share of the query's words its matched units hold, each word
  weighted by its rarity (inverse document frequency), so "the session where" and a word
  most units hold count for little. Agent names and words that frame a question ("chat",
  "session") are left out: they say which tool, not what happened.
- **lift**: how far its best cosine stands above the query's typical cosine (the mean
  of the vector list from rank 11 to 200). Raw cosines of e5 sit between 0.75 and 0.9 for
  anything, related or not; the lift is what the query singles out.
- **agreement**: whether the keyword list's first unit and the vector list's first unit
  are of this session.

They are combined by a logistic model fitted on the visible which-session queries and
on 1,651 LoCoMo which-session questions, each with its target removed as the negative
("the session is not in the index"), and the two levels' thresholds were set on the same
data (docs/benchmarks.md, "An honest confidence"): below 0.2, nothing close (about 6% of
answerable queries fall there); from 0.7, strong (under 10% of the negatives reach it).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from findsession.domain import Confidence, Level
from findsession.query import Query
from findsession.sources import SPOKEN_NAMES
from findsession.storage.base import Storage

#: Logistic weights: coverage, lift, agreement (0, 0.5 or 1), intercept.
WEIGHTS = (2.68, 6.35, 1.54, -3.36)
NOTHING_BELOW = 0.2
STRONG_FROM = 0.7
#: Typical values of answerable queries, used for a signal a single-list search lacks.
TYPICAL_LIFT = 0.17
TYPICAL_AGREEMENT = 0.5
#: Matched units of the first session whose words count (the best, in fused order).
_UNITS_CHECKED = 40
#: Words that frame a question about a session rather than say what happened in it.
FRAMING_WORDS = frozenset(
    {
        "session", "sessions", "chat", "chats", "conversation", "conversations", "thread",
        "agent", "agents", "time", "asked", "ask", "told", "wanted",
        "会话", "对话", "那次", "聊天",
    }
)  # fmt: skip


@dataclass(slots=True)
class Signals:
    """What the retrievals saw, kept for the confidence of the first session."""

    keyword_ran: bool = False
    vector_ran: bool = False
    #: The session of each list's first unit (None: the list found nothing, or its
    #: matches were dropped as incidental).
    keyword_first: str | None = None
    vector_first: str | None = None
    #: Mean cosine of the vector list's ranks 11-200: the query's background; None in an
    #: index (or a filtered scope) too small to have one.
    background: float | None = None


def content_words(query: Query) -> list[str]:
    """The words coverage counts: content words minus framing words and agent names."""
    spoken = {n for names in SPOKEN_NAMES.values() for n in names}
    skip = FRAMING_WORDS | spoken
    return [w for w in dict.fromkeys(query.coverage_words) if w.lower() not in skip]


def coverage(store: Storage, query: Query, unit_ids: list[int]) -> float | None:
    """Rarity-weighted share of the query's words the units hold; None without words."""
    words = content_words(query)
    if not words:
        return None
    rarity = store.word_rarity(words)
    total = sum(rarity.values())
    if total <= 0:
        return None
    held = store.words_held(words, unit_ids[:_UNITS_CHECKED])
    return sum(rarity[w] for w in held) / total


def assess(
    coverage_share: float | None,
    best_cosine: float | None,
    signals: Signals,
    session_id: str,
) -> Confidence:
    """The confidence that `session_id`, ranked first, is the session the query means."""
    lift = None
    if best_cosine is not None and signals.background is not None:
        lift = best_cosine - signals.background
    firsts = [f for f in (signals.keyword_first, signals.vector_first) if f is not None]
    agreement = sum(f == session_id for f in firsts) / 2 if len(firsts) == 2 else TYPICAL_AGREEMENT
    a, b, c, d = WEIGHTS
    z = (
        a * (coverage_share if coverage_share is not None else 0.0)
        + b * (lift if lift is not None else TYPICAL_LIFT)
        + c * agreement
        + d
    )
    score = 1 / (1 + math.exp(-z))
    if score < NOTHING_BELOW:
        level = Level.NOTHING
    elif score >= STRONG_FROM:
        level = Level.STRONG
    else:
        level = Level.WEAK
    return Confidence(level, round(score, 3), coverage_share, lift, agreement)


NOTHING = Confidence(Level.NOTHING, 0.0)
