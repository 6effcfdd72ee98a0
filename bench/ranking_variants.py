"""Each ranking rule on or off, side by side on the three query sets, in one run.

    python bench/ranking_variants.py --large-corpus OUT_DIR --large-work DIR \\
        --visible-db DIR/index.db --locomo-db locomo.db [--group earlier|length|weights]

Every rule that pins, nudges or boosts has to earn its place on the large set without
costing the others. The indexes are the ones `bench/known_item.py` (both sets) and
`bench/locomo.py --model multilingual-e5-small` built and kept; nothing is re-indexed.
A variant switches a rule by replacing it for the run (this script only; the shipped
code has each rule once). Prints, per variant, hit@1 / hit@5 / MRR on known-item-large
(152 answerable queries, one index per person) and on the visible set, and LoCoMo's
hybrid recall@5 / @10 inside each conversation; then, per variant, the large set by kind,
language and person.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import known_item  # noqa: E402
import known_item_people  # noqa: E402
import locomo  # noqa: E402

from findsession import (
    Findsession,  # noqa: E402
    query,  # noqa: E402
)
from findsession.domain import ScoreParts  # noqa: E402
from findsession.embeddings import MULTILINGUAL_MODEL, build_embedder  # noqa: E402
from findsession.query import Query  # noqa: E402
from findsession.search import engine, sessions  # noqa: E402
from findsession.storage.sqlite import Store  # noqa: E402

SHARED = Path(__file__).resolve().parent.parent.parent / "shared" / "benchmarks"


@contextmanager
def replaced(owner: object, name: str, value: object) -> Iterator[None]:
    old = getattr(owner, name)
    setattr(owner, name, value)
    try:
        yield
    finally:
        setattr(owner, name, old)


def ranks_only(found, evidence, scale):  # noqa: ANN001, ANN201
    """The session score before match strengths: its units' fused ranks alone."""
    parts = _parts(found, evidence, scale)
    return ScoreParts(parts.ranks, 0.0, 0.0, 0.0)


_parts = sessions._parts
always = property(lambda self: True)

#: name -> the replacements that make it, applied in order: the rules of the landed
#: ranking, each switched on top of the one before.
EARLIER: dict[str, list[tuple[object, str, object]]] = {
    "landed: pins always, sessions by ranks, incidental list under 1/3": [
        (Query, "looks_like_keywords", always),
        (sessions, "_parts", ranks_only),
        (engine, "INCIDENTAL_WORDS", 10**9),
        (query, "OTHER_STOPWORDS", {}),
    ],
    "+ pins only for typed terms (and inside one session)": [
        (sessions, "_parts", ranks_only),
        (engine, "INCIDENTAL_WORDS", 10**9),
        (query, "OTHER_STOPWORDS", {}),
    ],
    "+ sessions scored on match strength": [
        (engine, "INCIDENTAL_WORDS", 10**9),
        (query, "OTHER_STOPWORDS", {}),
    ],
    "+ a CJK incidental list only under 3 held bigrams": [(query, "OTHER_STOPWORDS", {})],
    "+ other languages' function words (shipped)": [],
    "shipped, no incidental list ever dropped": [(engine, "WEAK_COVERAGE", 0.0)],
    "shipped, no pins inside one session": [(engine, "PIN_INSIDE_SESSION", False)],
}
#: A session's second-best turn discounted by how many turns it was picked from.
LENGTH: dict[str, list[tuple[object, str, object]]] = {
    "before: second-best turn counted whole": [(sessions, "LENGTH_DISCOUNT", 0.0)],
    "+ second-best turn / (1 + 0.5 ln(1 + turns)) (shipped)": [],
    "discount 0.25": [(sessions, "LENGTH_DISCOUNT", 0.25)],
    "discount 1.0": [(sessions, "LENGTH_DISCOUNT", 1.0)],
}


_fuse = engine.fuse


def fused_at(weight: float):  # noqa: ANN201
    """Rank fusion with the vector list at `weight` (the config's `[search] hybrid_weight`)."""

    def fuse(keyword, vector, hybrid_weight, pins, floor):  # noqa: ANN001, ANN202
        return _fuse(keyword, vector, weight, pins, floor)

    return fuse


def weighted(ranks: float = 1, keyword: float = 1, meaning: float = 1, further: float = 1):  # noqa: ANN201
    """A session's four parts, each times its weight (the shipped sum weighs each 1)."""

    def parts(found, evidence, scale, turns=1):  # noqa: ANN001, ANN202
        p = _parts(found, evidence, scale, turns)
        return ScoreParts(
            p.ranks * ranks, p.keyword * keyword, p.meaning * meaning, p.further * further
        )

    return parts


_held_share = [1.0]
_words_held = engine._words_held


def holding(store, query, unit_id):  # noqa: ANN001, ANN201
    """`_words_held`, the share kept for `keyword_by_strength`."""
    held, words = _words_held(store, query, unit_id)
    _held_share[0] = held / words if words else 1.0
    return held, words


def keyword_by_strength(full: float):  # noqa: ANN201
    """The keyword part times how much of the query the keyword list's best unit holds
    (all of it from `full` up): a list whose best holds few of the words counts less."""

    def parts(found, evidence, scale, turns=1):  # noqa: ANN001, ANN202
        p = _parts(found, evidence, scale, turns)
        share = min(1.0, _held_share[0] / full)
        return ScoreParts(p.ranks, p.keyword * share, p.meaning, p.further)

    return parts


#: The lists' weight in fusion and each part's weight in a session's score.
WEIGHTS: dict[str, list[tuple[object, str, object]]] = {
    "shipped": [],
    "vector list 0.3 in fusion": [(engine, "fuse", fused_at(0.3))],
    "vector list 0.4 in fusion": [(engine, "fuse", fused_at(0.4))],
    "vector list 0.6 in fusion": [(engine, "fuse", fused_at(0.6))],
    "ranks x0.5": [(sessions, "_parts", weighted(ranks=0.5))],
    "ranks x2": [(sessions, "_parts", weighted(ranks=2))],
    "keyword x0.5": [(sessions, "_parts", weighted(keyword=0.5))],
    "keyword x1.5": [(sessions, "_parts", weighted(keyword=1.5))],
    "meaning x0.5": [(sessions, "_parts", weighted(meaning=0.5))],
    "further x0": [(sessions, "_parts", weighted(further=0))],
    "keyword x its best unit's share of the words / 0.7": [
        (engine, "_words_held", holding), (sessions, "_parts", keyword_by_strength(0.7))
    ],
}
GROUPS = {"earlier": EARLIER, "length": LENGTH, "weights": WEIGHTS}


def large(args: argparse.Namespace) -> list:
    """Every answerable query of the large set, asked of its person's index."""
    data = SHARED / "known-item-large"
    queries = [json.loads(line) for line in (data / "queries.jsonl").open(encoding="utf-8")]
    rows = []
    for repo, person in known_item_people.people(data, args.large_corpus).items():
        mine = [q for q in queries if q["repo"] == repo and q["kind"] != "none"]
        rows += known_item_people.ask(args.large_work, person, mine, "hybrid")
    return rows


def breakdown(name: str, rows: list) -> None:
    """The large set's rows by kind, language and person: n, hit@1, hit@5, MRR."""
    print(f"\n{name}\n\n| group | n | hit@1 | hit@5 | MRR |\n|---|---:|---:|---:|---:|")
    for field in ("kind", "lang", "repo"):
        for value in sorted({r.query[field] for r in rows}):
            ranks = [r.rank for r in rows if r.query[field] == value]
            h1, h5, mrr = summary(ranks)
            print(f"| {value} | {len(ranks)} | {h1:.2f} | {h5:.2f} | {mrr:.2f} |")


def visible(args: argparse.Namespace) -> tuple[float, float, float]:
    data = SHARED / "known-item-dev"
    corpus = known_item.read_corpus(data / "sessions.tsv")
    queries = [json.loads(line) for line in (data / "queries.jsonl").open(encoding="utf-8")]
    queries = [q for q in queries if q["kind"] != "none"]
    work = args.visible_db.parent / "known-item-corpus"
    with Findsession.open(args.visible_db) as fs:
        rows = known_item.ask(fs, queries, "hybrid", work, corpus)
    return summary([r.rank for r in rows])


def summary(ranks: list[int | None]) -> tuple[float, float, float]:
    n = len(ranks)
    hit = lambda k: sum(r is not None and r <= k for r in ranks) / n  # noqa: E731
    return hit(1), hit(5), sum(1 / r for r in ranks if r) / n


def conversations(args: argparse.Namespace) -> Callable[[], tuple[float, float]]:
    samples = json.loads((SHARED / "locomo" / "locomo10.json").read_text())
    ordinals = locomo._ordinals(samples)
    embedder = build_embedder({"provider": "bundled", "model": MULTILINGUAL_MODEL})

    def run() -> tuple[float, float]:
        with Store.open(args.locomo_db) as store:
            table = locomo.evaluate(store, samples, ordinals, "hybrid", embedder)
        return table["overall"][5], table["overall"][10]

    return run


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--large-corpus", type=Path, required=True)
    ap.add_argument("--large-work", type=Path, required=True)
    ap.add_argument("--visible-db", type=Path, required=True)
    ap.add_argument("--locomo-db", type=Path, required=True)
    ap.add_argument("--group", choices=sorted(GROUPS), default="length")
    args = ap.parse_args()
    os.environ["FINDSESSION_CONFIG"] = str(args.large_work / "config.toml")
    locomo_run = conversations(args)
    print("| variant | large hit@1 | hit@5 | MRR | visible hit@1 | hit@5 | MRR |"
          " LoCoMo R@5 | R@10 |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    details = {}
    for name, changes in GROUPS[args.group].items():
        with _all(changes):
            rows, small, conv = large(args), visible(args), locomo_run()
        details[name] = rows
        big = summary([r.rank for r in rows])
        cells = " | ".join(f"{x:.2f}" for x in (*big, *small))
        print(f"| {name} | {cells} | {conv[0]:.1f} | {conv[1]:.1f} |", flush=True)
    for name, rows in details.items():
        breakdown(name, rows)
    return 0


@contextmanager
def _all(changes: list[tuple[object, str, object]]) -> Iterator[None]:
    if not changes:
        yield
        return
    (owner, name, value), *rest = changes
    with replaced(owner, name, value), _all(rest):
        yield


if __name__ == "__main__":
    sys.exit(main())
