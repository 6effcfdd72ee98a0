"""Sessions ranked on all their evidence: ranks, and how strong their matches are.

A session's score adds four parts, each about 0 to 1:

- **ranks**: its place in the fused ranking of units, its best unit plus a geometric
  share of its next: (best + 0.3 x second + 0.09 x third), scaled so that a unit first
  in both lists is 1. People remember a session by its course ("I asked X, then Y turned
  out, we ended with Z"), each part in another turn, so more than one unit counts.
- **keyword**: its best keyword match's BM25 against the best of that index's list
  (the conversation's, the tool text's at half weight, the CJK bigrams').
- **meaning**: its best unit's cosine, from the query's background (the mean cosine of
  the vector list's ranks 11-200: what any unit scores) up to the list's best.
- **further**: its second-best unit by meaning, on the same scale: a second turn that
  is about the query too, discounted by how many turns the session had to pick it from
  (1 / (1 + 0.5 ln(1 + turns))): the second-best of forty turns stands high by chance
  alone, and long sessions on the same project outranked the short one meant. Chosen on
  two real histories, confirmed on two others before it was kept; over all four (152
  questions) hit@1 .68 -> .70, MRR .78 -> .80 (docs/benchmarks.md, "Outcome questions,
  near misses and pasted ids").

Rank fusion alone throws the strengths away: a session matching three common words
(BM25 -10.6) ranked above the target matching four (-25.8) because both were "a rank",
and a turn barely above the background counted like a clear best. Measured on four real
people's histories (176 queries, hundreds of look-alike sessions each; docs/benchmarks.md,
"Ranking that holds on hundreds of look-alike sessions"): MRR .738 -> .785 and hit@1
.59 -> .68 over fusion alone; the four equal weights do as well as weights fitted on
three people and tested on the fourth (.790), so no weight was tuned.

Pinned units (an identifier held verbatim, the keyword winner: only for a query of
typed terms) still put their session first, in pin order; the unit shown for a session
is still its best place to read.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from findsession.domain import ScoreParts
from findsession.search.fusion import FusedUnit
from findsession.storage.base import RRF_K, UnitMatch, VectorMatch

#: Weight of a session's second best unit; its third gets the square. Measured, above.
FURTHER_EVIDENCE = 0.3
#: Units of one session that count towards its score.
EVIDENCE_UNITS = 3
#: A further unit found by meaning counts only if its cosine is within this share of the
#: model's cosine margin of the query's best (0.03 for e5, 0.07 for MiniLM): rank fusion
#: scores ranks 1 and 3 almost alike, so without it a session's weak second turn
#: outweighed another session's clearly better single turn.
EVIDENCE_MARGIN_SHARE = 0.2
#: Without vectors, a further unit counts if its BM25 is at least this share of the best
#: unit's: a turn matching one word of four is not evidence for the session.
EVIDENCE_BM25_SHARE = 0.5
#: How much a session's length discounts its second-best turn: divided by
#: 1 + LENGTH_DISCOUNT x ln(1 + turns). Measured (the module's docstring).
LENGTH_DISCOUNT = 0.5


@dataclass(frozen=True, slots=True)
class Evidence:
    """What a session's further unit needs to count: a cosine (when a vector list ran),
    else a BM25 score (when only the keyword list ran); with neither, nothing counts."""

    cosine: float | None = None
    bm25: float | None = None
    #: Session -> its number of turns, which its second-best turn was picked from.
    turns: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Scale:
    """What a match's strength is measured against: each keyword index's best BM25 in
    this search, and the vector list's best cosine and the query's background."""

    #: Keyword index -> its list's best (lowest: FTS5's BM25 is negative) score. BM25s of
    #: two indexes do not compare: a tool output repeating a word 30,000 times outscores
    #: the line a person typed. Each is measured against its own index's best and counts
    #: with that index's weight.
    bm25_best: dict[str, float] = field(default_factory=dict)
    cosine_best: float | None = None
    cosine_background: float | None = None

    @classmethod
    def of(
        cls, keyword: list[UnitMatch] | None, vector: list[VectorMatch] | None, background: float
    ) -> Scale:
        best: dict[str, float] = {}
        for m in keyword or []:
            best[m.table] = min(best.get(m.table, 0.0), m.bm25)
        top = vector[0].cosine if vector else None
        return cls(best, top, background)

    def keyword(self, match: UnitMatch) -> float:
        best = self.bm25_best.get(match.table, 0.0)
        return match.weight * min(1.0, match.bm25 / best) if best < 0 else 0.0

    def meaning(self, match: VectorMatch) -> float:
        top, floor = self.cosine_best, self.cosine_background
        if top is None or floor is None or top <= floor:
            return 0.0
        return min(1.0, max(0.0, (match.cosine - floor) / (top - floor)))


_PIN_ORDER = {"identifier": 0, "keyword-winner": 1, None: 2}


@dataclass
class RankedSession:
    """One session's evidence: its units best first, and the score they add up to."""

    session_id: str
    units: list[FusedUnit]
    parts: ScoreParts
    pinned: str | None

    @property
    def best(self) -> FusedUnit:
        return self.units[0]

    @property
    def score(self) -> float:
        return self.parts.total


def rank_sessions(
    units: list[FusedUnit], evidence: Evidence, scale: Scale | None = None
) -> list[RankedSession]:
    """Sessions best first: pinned ones in pin order, then by their score.

    `units` come from fusion, pins first and then by fused score; a session's units keep
    that order, so its first unit is the one fusion put highest.
    """
    scale = scale or Scale()
    grouped: dict[str, list[FusedUnit]] = {}
    for unit in units:
        grouped.setdefault(unit.session_id, []).append(unit)
    ranked = []
    for session_id, found in grouped.items():
        pinned = min((u.pinned for u in found), key=_PIN_ORDER.__getitem__)
        parts = _parts(found, evidence, scale, evidence.turns.get(session_id, 1))
        ranked.append(RankedSession(session_id, found, parts, pinned))
    ranked.sort(key=lambda s: (_PIN_ORDER[s.pinned], -s.score))
    return ranked


def _parts(found: list[FusedUnit], evidence: Evidence, scale: Scale, turns: int = 1) -> ScoreParts:
    by_score = sorted(found, key=lambda u: -u.score)
    further = [u for u in by_score[1:] if _counts(u, evidence)]
    scores = [u.score for u in [by_score[0], *further][:EVIDENCE_UNITS]]
    fused = sum(s * FURTHER_EVIDENCE**i for i, s in enumerate(scores))
    keyword = max((scale.keyword(u.keyword) for u in found if u.keyword), default=0.0)
    meanings = sorted((scale.meaning(u.vector) for u in found if u.vector), reverse=True)
    return ScoreParts(
        ranks=fused * (RRF_K + 1),
        keyword=keyword,
        meaning=meanings[0] if meanings else 0.0,
        further=(meanings[1] if len(meanings) > 1 else 0.0) / length_discount(turns),
    )


def with_further(units: list[FusedUnit]) -> list[str]:
    """Sessions with two units or more found by meaning: those whose second-best turn
    counts, and so whose length the ranking asks for (in one statement)."""
    seen: set[str] = set()
    twice: dict[str, None] = {}
    for u in units:
        if u.vector is not None:
            if u.session_id in seen:
                twice[u.session_id] = None
            seen.add(u.session_id)
    return list(twice)


def length_discount(turns: int) -> float:
    """What a session's second-best turn is divided by: more turns, more chances."""
    return 1 + LENGTH_DISCOUNT * math.log1p(max(turns, 1))


def _counts(unit: FusedUnit, evidence: Evidence) -> bool:
    """Whether a session's further unit is close enough to the query to add to it."""
    if evidence.cosine is not None:
        return unit.vector is not None and unit.vector.cosine >= evidence.cosine
    if evidence.bm25 is not None:  # BM25 here is negative: lower is better
        return unit.keyword is not None and unit.keyword.bm25 <= evidence.bm25
    return False
