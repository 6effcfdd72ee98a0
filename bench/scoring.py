"""Known-item scores, shared by every query set `bench/known_item.py` runs.

A row is one query's outcome: the query (its `kind`, `lang`, `source`, target
`session_id`), the sessions ranked (collapsed to the query set's session ids), the
confidence the search stated and the time it took. The tables: hit@1/5/10 and MRR per
kind, per language, per source and overall; how often each confidence level was stated
for `none` and for answerable queries; a reliability table (the stated score against how
often the first session was the target); the confidence's ROC AUC.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from findsession.domain import Confidence, Level

KS = (1, 5, 10)
#: Query kinds with no answer in the index: `none` (a near miss the person never did) and
#: `foreign` (another person's query, asked of this index by `known_item.py --foreign`).
UNANSWERABLE = ("none", "foreign")


@dataclass
class Row:
    query: dict
    ranked: list[str]
    confidence: Confidence
    ms: float

    @property
    def answerable(self) -> bool:
        return self.query["kind"] not in UNANSWERABLE

    @property
    def rank(self) -> int | None:
        target = self.query.get("session_id")
        return self.ranked.index(target) + 1 if target in self.ranked else None

    @property
    def first_right(self) -> bool:
        return self.rank == 1


def auc(positive: list[float], negative: list[float]) -> float | None:
    """Probability that an answerable query's score beats a `none` query's (ties half)."""
    if not positive or not negative:
        return None
    wins = sum((p > n) + 0.5 * (p == n) for p in positive for n in negative)
    return wins / (len(positive) * len(negative))


def _line(name: str, ranks: list[int | None]) -> str:
    hits = [sum(r is not None and r <= k for r in ranks) / len(ranks) for k in KS]
    mrr = sum(1 / r for r in ranks if r) / len(ranks)
    cells = " | ".join(f"{h:.2f}" for h in hits)
    return f"| {name} | {len(ranks)} | {cells} | {mrr:.3f} |"


def rank_table(rows: Iterable[Row], groups: tuple[str, ...] = ("kind", "lang")) -> list[str]:
    """hit@1/5/10 and MRR of the answerable rows, per each of `groups` and overall."""
    answerable = [r for r in rows if r.answerable]
    out = ["| queries | n | hit@1 | hit@5 | hit@10 | MRR |", "|---|---:|---:|---:|---:|---:|"]
    for group in groups:
        split: dict[str, list[int | None]] = defaultdict(list)
        for r in answerable:
            split[str(r.query.get(group))].append(r.rank)
        out += [_line(f"{group}: {k}", split[k]) for k in sorted(split)]
    out.append(_line("all answerable", [r.rank for r in answerable]))
    return out


def confidence_table(rows: list[Row]) -> list[str]:
    """How often each level was said, for `none` queries and for answerable ones."""
    nones = [r for r in rows if r.query["kind"] == "none"]
    foreign = [r for r in rows if r.query["kind"] == "foreign"]
    answerable = [r for r in rows if r.answerable]
    out = [
        "| confidence | none queries | foreign queries | answerable | answerable, target first |",
        "|---|---:|---:|---:|---:|",
    ]
    for level in Level:
        n = sum(r.confidence.level == level for r in nones)
        f = sum(r.confidence.level == level for r in foreign)
        a = [r for r in answerable if r.confidence.level == level]
        first = sum(r.first_right for r in a)
        out.append(
            f"| {level.value} | {n}/{len(nones)} | {f}/{len(foreign)} | {len(a)}/{len(answerable)}"
            f" | {first}/{len(a)} |"
        )
    def nothing(group: list[Row]) -> str:
        said = sum(r.confidence.level == Level.NOTHING for r in group)
        return f"{said / len(group):.1%}" if group else "–"

    out.append(
        f"\n'nothing close': {nothing(nones)} of none queries, {nothing(foreign)} of foreign"
        f" ones, {nothing(answerable)} of answerable"
    )
    area = auc([r.confidence.score for r in answerable], [r.confidence.score for r in nones])
    if foreign:
        far = auc([r.confidence.score for r in answerable], [r.confidence.score for r in foreign])
        out.append(f"confidence ROC AUC (answerable vs foreign): {far:.2f}")
    if area is not None:
        out.append(f"confidence ROC AUC (answerable vs none): {area:.2f}")
    return out


#: Score bins of the reliability table.
BINS = (0.0, 0.2, 0.4, 0.6, 0.7, 0.8, 0.9, 1.01)


def reliability_table(rows: list[Row]) -> list[str]:
    """The stated score against how often the first session was the target (a `none`
    query's first session is never right): a calibrated score reads as that share."""
    out = ["| stated score | queries | first right | share right |", "|---|---:|---:|---:|"]
    for lo, hi in zip(BINS, BINS[1:], strict=False):
        inside = [r for r in rows if lo <= r.confidence.score < hi]
        if not inside:
            continue
        right = sum(r.first_right for r in inside)
        out.append(
            f"| {lo:.1f}–{min(hi, 1.0):.1f} | {len(inside)} | {right} | {right / len(inside):.2f} |"
        )
    return out


def print_all(rows: list[Row], groups: tuple[str, ...], misses: bool) -> None:
    if misses:
        for r in rows:
            if r.answerable and (r.rank is None or r.rank > 5):
                print(f"  miss {r.query['id']} ({r.query['kind']}, {r.query.get('lang')}):"
                      f" rank {r.rank}  {r.query['query']}")
    print()
    print("\n".join(rank_table(rows, groups)))
    print()
    print("\n".join(confidence_table(rows)))
    print()
    print("\n".join(reliability_table(rows)))
    latencies = sorted(r.ms for r in rows)
    print(f"\nsearch p50 {latencies[len(latencies) // 2]:.0f} ms over {len(rows)} queries")
