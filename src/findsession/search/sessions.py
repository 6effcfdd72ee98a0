"""Sessions ranked on all their evidence, not on their single best unit.

People remember a session by its course: "I asked X, then Y turned out, we ended with Z".
Each part matches a different turn, so a session ranked by its best turn loses to one
that matched one part well. A session's score here is its best unit's fused score plus a
geometric share of its next best: best + 0.3 x second + 0.09 x third.

Measured (docs/benchmarks.md, "Sessions ranked on all their evidence", with
`bench/session_ranking.py`): on the visible which-session set, MRR 0.893 -> 0.911; on
1,651 LoCoMo which-session questions, those with two or more evidence turns hit@1
0.65 -> 0.68 and MRR 0.759 -> 0.777, the others unchanged. A larger share (0.5 and up) or
more units (4, 5) let a long session's many middling turns outrank the right one, and
outcome queries fell.

Pinned units (an identifier held verbatim, the keyword winner) still put their session
first, in pin order; the unit shown for a session is still its best place to read.
"""

from __future__ import annotations

from dataclasses import dataclass

from findsession.search.fusion import FusedUnit

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


@dataclass(frozen=True, slots=True)
class Evidence:
    """What a session's further unit needs to count: a cosine (when a vector list ran),
    else a BM25 score (when only the keyword list ran); with neither, nothing counts."""

    cosine: float | None = None
    bm25: float | None = None


_PIN_ORDER = {"identifier": 0, "keyword-winner": 1, None: 2}


@dataclass
class RankedSession:
    """One session's evidence: its units best first, and the score they add up to."""

    session_id: str
    units: list[FusedUnit]
    score: float
    pinned: str | None

    @property
    def best(self) -> FusedUnit:
        return self.units[0]


def rank_sessions(units: list[FusedUnit], evidence: Evidence) -> list[RankedSession]:
    """Sessions best first: pinned ones in pin order, then by their evidence score.

    `units` come from fusion, pins first and then by fused score; a session's units keep
    that order, so its first unit is the one fusion put highest.
    """
    grouped: dict[str, list[FusedUnit]] = {}
    for unit in units:
        grouped.setdefault(unit.session_id, []).append(unit)
    ranked = []
    for session_id, found in grouped.items():
        by_score = sorted(found, key=lambda u: -u.score)
        further = [u for u in by_score[1:] if _counts(u, evidence)]
        scores = [u.score for u in [by_score[0], *further][:EVIDENCE_UNITS]]
        score = sum(s * FURTHER_EVIDENCE**i for i, s in enumerate(scores))
        pinned = min((u.pinned for u in found), key=_PIN_ORDER.__getitem__)
        ranked.append(RankedSession(session_id, found, score, pinned))
    ranked.sort(key=lambda s: (_PIN_ORDER[s.pinned], -s.score))
    return ranked


def _counts(unit: FusedUnit, evidence: Evidence) -> bool:
    """Whether a session's further unit is close enough to the query to add to it."""
    if evidence.cosine is not None:
        return unit.vector is not None and unit.vector.cosine >= evidence.cosine
    if evidence.bm25 is not None:  # BM25 here is negative: lower is better
        return unit.keyword is not None and unit.keyword.bm25 <= evidence.bm25
    return False
