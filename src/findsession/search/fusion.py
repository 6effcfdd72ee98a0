"""Reciprocal rank fusion of the keyword and vector lists, with pinned units first."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from findsession.storage.base import RRF_K, UnitMatch, VectorMatch


@dataclass
class FusedUnit:
    """One unit after fusion, with what each list said about it."""

    unit_id: int
    session_id: str
    kind: str
    ordinal: int
    score: float = 0.0
    keyword: UnitMatch | None = None
    keyword_rank: int | None = None
    vector: VectorMatch | None = None
    vector_rank: int | None = None
    #: Why the unit was ranked ahead of fusion order: "identifier" or "keyword-winner".
    pinned: str | None = None
    #: The session the unit is in when it counts for another (`session_id`): a
    #: compaction agent's summary, counted for the session it summarised.
    found_in: str | None = None


def fuse(
    keyword: list[UnitMatch] | None,
    vector: list[VectorMatch] | None,
    hybrid_weight: float,
    pins: dict[int, str],
    floor: float,
) -> list[FusedUnit]:
    """Rank fusion; a unit only the vector list found must reach `floor` to stay."""
    both = keyword is not None and vector is not None
    kw_weight = (1.0 - hybrid_weight) if both else 1.0
    vec_weight = hybrid_weight if both else 1.0
    units: dict[int, FusedUnit] = {}
    for rank, m in enumerate(keyword or [], 1):
        unit = units.setdefault(m.unit_id, FusedUnit(m.unit_id, m.session_id, m.kind, m.ordinal))
        unit.keyword, unit.keyword_rank = m, rank
        unit.score += kw_weight / (RRF_K + rank)
    for rank, v in enumerate(vector or [], 1):
        if v.unit_id not in units and v.cosine < floor:
            continue
        unit = units.setdefault(v.unit_id, FusedUnit(v.unit_id, v.session_id, v.kind, v.ordinal))
        unit.vector, unit.vector_rank = v, rank
        unit.score += vec_weight / (RRF_K + rank)
    for unit_id, reason in pins.items():
        if unit_id in units:
            units[unit_id].pinned = reason
    return in_order(units.values())


_PIN_ORDER = {"identifier": 0, "keyword-winner": 1, None: 2}


def in_order(units: Iterable[FusedUnit]) -> list[FusedUnit]:
    """Pinned units first (identifiers, then the keyword winner), then by fused score."""
    return sorted(units, key=lambda u: (_PIN_ORDER[u.pinned], -u.score))
