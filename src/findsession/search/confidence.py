"""How sure a search is that its first session is the one meant: strong, weak or nothing close.

A ranked list always has a first hit, even for a session that was never indexed; a
person then reads ten unrelated sessions and an agent cites one. Four signals of the
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
- **margin**: how far its score (findsession.search.sessions) stands above the second
  session's, in proportion to its lift: a first that barely leads among look-alikes is
  often the wrong one, and a lead by one shared word in a small index means nothing.
- **standout**: how far its score stands above its typical runner-up (the median of the
  sessions ranked 2 to 10, mostly the same project's look-alikes). A session that was
  never done leaves several look-alikes each matching a part of the question, none far
  above the rest; the session meant stands out from them, not only from the second.

They are combined by a logistic model of "the first session is the one meant", fitted
with `bench/confidence_fit.py --split all` on four real people's histories (176 queries,
each answerable one also asked of the three other people's indexes as work that index
never saw). Fitted on three people and reported on the fourth, in turn (docs/benchmarks.md,
"An honest confidence on real histories", "A question asked as a passage too"), it tells
an answerable query from another person's with ROC AUC .93 and a right first session from
a wrong one with .93. "Nothing
close" is below the score of the lowest 5% of the answerable queries it was fitted on;
"strong" from where 98% of the firsts at or above it were right. A near miss (plausible
for the person, never done) still mostly reads as weak: the standout tells it from a real
answer a little better (AUC .62 -> .64), far from enough.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from findsession.domain import Confidence, Level
from findsession.query import Query
from findsession.sources import SPOKEN_NAMES
from findsession.storage.base import KeywordIndex

#: Logistic weights: coverage, lift, agreement (0, 0.5 or 1), margin, standout, intercept.
WEIGHTS = (2.06, 0.12, 0.43, 1.11, 1.35, -3.37)
#: Runners-up whose median score is the first's background (ranks 2 to 10).
RUNNERS_UP = 9
#: A margin above this is no surer: one outlier must not set the slope.
MARGIN_CAP = 1.5
NOTHING_BELOW = 0.11
STRONG_FROM = 0.93
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
    #: The session of each list's first unit (None: the list found nothing).
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


def coverage(store: KeywordIndex, query: Query, unit_ids: list[int]) -> float | None:
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
    margin: float | None = None,
    standout: float | None = None,
) -> Confidence:
    """The confidence that `session_id`, ranked first, is the session the query means."""
    lift = None
    if best_cosine is not None and signals.background is not None:
        lift = best_cosine - signals.background
    firsts = [f for f in (signals.keyword_first, signals.vector_first) if f is not None]
    agreement = sum(f == session_id for f in firsts) / 2 if len(firsts) == 2 else TYPICAL_AGREEMENT
    # A lead counts as far as the first stands out by meaning: in a small index one
    # session sharing a single word with the query leads by far, about nothing.
    standing = max(0.0, lift if lift is not None else TYPICAL_LIFT) / TYPICAL_LIFT
    a, b, c, e, f, d = WEIGHTS
    z = (
        a * (coverage_share if coverage_share is not None else 0.0)
        + b * (lift if lift is not None else TYPICAL_LIFT)
        + c * agreement
        + e * min(margin if margin is not None else 0.0, MARGIN_CAP) * standing
        + f * min(standout if standout is not None else 0.0, MARGIN_CAP)
        + d
    )
    score = 1 / (1 + math.exp(-z))
    if score < NOTHING_BELOW:
        level = Level.NOTHING
    elif score >= STRONG_FROM:
        level = Level.STRONG
    else:
        level = Level.WEAK
    return Confidence(level, round(score, 3), coverage_share, lift, agreement, margin, standout)


def standout(scores: list[float]) -> float | None:
    """The first score above the median of the next `RUNNERS_UP` (None: no runner-up)."""
    runners = sorted(scores[1 : 1 + RUNNERS_UP])
    if not runners:
        return None
    return scores[0] - runners[len(runners) // 2]


NOTHING = Confidence(Level.NOTHING, 0.0)
