"""What both keyword indexes share: the lists a query is ranked in, fused by rank, and
which query words are too common to rank by. How each list is ranked (FTS5's BM25, the
same in SQL over `tsvector`s) is each backend's."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from findsession.storage.types import RRF_K, UnitMatch

#: Rank-fusion weight of the tool-text list against the conversation list (1.0).
TOOLS_WEIGHT = 0.5
#: A word in more than this share of units, and in more than `COMMON_MIN_UNITS`, is
#: dropped from a query that has rarer ones. Small indexes are fast anyway, and in them
#: every word looks common.
COMMON_SHARE = 0.2
COMMON_MIN_UNITS = 5000


def common_above(units: int) -> float:
    """How many units a word may match before it counts as common among `units`."""
    return max(COMMON_SHARE * units, COMMON_MIN_UNITS)


def fuse(lists: Iterable[tuple[float, list[UnitMatch]]], limit: int) -> list[UnitMatch]:
    """Weighted lists fused by reciprocal rank, best first; a unit found by several lists
    keeps the first list's index (the conversation's, which its snippet is cut from) and
    that list's weight (how strongly its BM25 speaks for the unit)."""
    fused: dict[int, UnitMatch] = {}
    for weight, matches in lists:
        for rank, match in enumerate(matches, 1):
            score = weight / (RRF_K + rank)
            seen = fused.get(match.unit_id)
            fused[match.unit_id] = (
                replace(match, score=score, weight=weight)
                if seen is None
                else replace(seen, score=seen.score + score)
            )
    return sorted(fused.values(), key=lambda m: -m.score)[:limit]
