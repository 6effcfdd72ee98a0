"""Ways to rank a session from its units, compared on the same retrieved units.

    python bench/session_ranking.py [--known-item-db PATH] [--locomo-db PATH]

Runs each query of the visible which-session set (`bench/known_item.py --db PATH` builds
its index) and of the LoCoMo which-session set (`bench/locomo_sessions.py --db PATH`)
once through retrieval, keeps the fused units (up to 1,000), and ranks sessions from them
in several ways: by the best unit alone (the rule before), by a geometric sum of the best
k units, and by fusing per-list session rankings. Pins (identifier, keyword winner) put a
session first in every variant. Prints hit@1 / hit@5 / MRR per query kind for each.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import known_item  # noqa: E402
import locomo_sessions  # noqa: E402

from findsession.embeddings import MULTILINGUAL_MODEL, build_embedder  # noqa: E402
from findsession.search.engine import retrieve  # noqa: E402
from findsession.search.filters import SearchOptions  # noqa: E402
from findsession.storage.base import RRF_K  # noqa: E402
from findsession.storage.sqlite import Store  # noqa: E402

Units = list[dict]
Ranker = Callable[[Units], list[str]]


def fused_units(store: Store, text: str, opts: SearchOptions, embedder, sid) -> Units:  # noqa: ANN001
    found = retrieve(store, text, opts, lambda: embedder, limit=1000)
    return [
        {"sid": sid(u.session_id), "score": u.score, "pinned": u.pinned, "kr": u.keyword_rank,
         "vr": u.vector_rank, "cos": u.vector.cosine if u.vector else None,
         "evidence": found.evidence.cosine}
        for u in found.units
    ]  # fmt: skip


def _order(scores: dict[str, float], units: Units) -> list[str]:
    pins = {u["sid"] for u in units if u["pinned"]}
    return sorted(scores, key=lambda s: (s not in pins, -scores[s]))


def best_unit(units: Units) -> list[str]:
    return list(dict.fromkeys(u["sid"] for u in units))


def top_k(k: int, w: float, near: bool = False) -> Ranker:
    """The best k units, geometric weights; `near`: a further unit counts only if its
    cosine reaches the engine's evidence cosine (what search does)."""

    def rank(units: Units) -> list[str]:
        per: dict[str, list[dict]] = defaultdict(list)
        for u in units:
            per[u["sid"]].append(u)
        scores = {}
        for s, found in per.items():
            found = sorted(found, key=lambda u: -u["score"])
            further = [u for u in found[1:] if not near or _near(u)]
            best = [u["score"] for u in [found[0], *further][:k]]
            scores[s] = sum(x * w**i for i, x in enumerate(best))
        return _order(scores, units)

    return rank


def _near(u: dict) -> bool:
    """Every query here runs hybrid, so the engine's evidence is a cosine."""
    return u["evidence"] is not None and u["cos"] is not None and u["cos"] >= u["evidence"]


def per_list(vector_weight: float) -> Ranker:
    """Each list ranks sessions by its best unit; the two session lists are fused."""

    def rank(units: Units) -> list[str]:
        scores: dict[str, float] = defaultdict(float)
        for key, weight in (("kr", 1 - vector_weight), ("vr", vector_weight)):
            firsts: dict[str, int] = {}
            for u in units:
                if u[key] is not None:
                    firsts[u["sid"]] = min(firsts.get(u["sid"], 10**9), u[key])
            for r, s in enumerate(sorted(firsts, key=firsts.__getitem__), 1):
                scores[s] += weight / (RRF_K + r)
        return _order(scores, units)

    return rank


VARIANTS: dict[str, Ranker] = {
    "best unit (before)": best_unit,
    **{f"best 2, weights 1, {w}": top_k(2, w) for w in (0.3, 0.5)},
    **{f"best 3, weights 1, {w}, {w * w:.2g}": top_k(3, w) for w in (0.3, 0.5)},
    "best 3, weights 1, 0.7, 0.49": top_k(3, 0.7),
    "best 3, weights 1, 0.3, 0.09, near units only (kept)": top_k(3, 0.3, near=True),
    "best 5, weights 1, 0.5, ...": top_k(5, 0.5),
    "best 5, equal weights": top_k(5, 1.0),
    "per-list session ranks, fused (0.5)": per_list(0.5),
    "per-list session ranks, fused (0.7)": per_list(0.7),
}


def score(rows: list[tuple[str, str, Units]], kinds: list[str]) -> None:
    print("| variant | " + " | ".join(f"{k} (n)" for k in kinds) + " |")
    print("|---|" + "---|" * len(kinds))
    for name, ranker in VARIANTS.items():
        by: dict[str, list[int | None]] = defaultdict(list)
        for kind, target, units in rows:
            ranked = ranker(units)
            r = ranked.index(target) + 1 if target in ranked else None
            by[kind].append(r)
            by["all"].append(r)
        cells = []
        for k in kinds:
            rs = by[k]
            h1 = sum(r == 1 for r in rs) / len(rs)
            h5 = sum(r is not None and r <= 5 for r in rs) / len(rs)
            mrr = sum(1 / r for r in rs if r) / len(rs)
            cells.append(f"{h1:.2f} / {h5:.2f} / {mrr:.3f} ({len(rs)})")
        print(f"| {name} | " + " | ".join(cells) + " |")
    print()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--known-item-db", type=Path, required=True)
    parser.add_argument("--locomo-db", type=Path)
    args = parser.parse_args()
    os.environ["TZ"] = "UTC"
    time.tzset()
    embedder = build_embedder({"provider": "bundled", "model": MULTILINGUAL_MODEL})
    data = known_item.SHARED / "benchmarks" / "known-item-dev"
    corpus = known_item.read_corpus(data / "sessions.tsv")
    work = args.known_item_db.parent / "known-item-corpus"
    rows = []
    with Store.open(args.known_item_db) as store:
        names: dict[str, str] = {}

        def sid(session_id: str) -> str:
            if session_id not in names:
                s = store.get_session(session_id)
                found = known_item.session_of(s.file_path or "", s.first_ts, work, corpus)
                names[session_id] = corpus.aliases.get(found or "", found) or session_id
            return names[session_id]

        for line in (data / "queries.jsonl").open(encoding="utf-8"):
            q = json.loads(line)
            if q["kind"] != "none":
                units = fused_units(store, q["query"], SearchOptions(), embedder, sid)
                rows.append((q["kind"], q["session_id"], units))
    print("Visible which-session set: hit@1 / hit@5 / MRR (n)\n")
    score(rows, ["vague", "arc", "outcome", "keyword", "all"])
    if args.locomo_db:
        samples = json.loads(locomo_sessions.DEFAULT_DATA.read_text())
        rows = []
        with Store.open(args.locomo_db) as store:
            for q in locomo_sessions.queries(samples):
                opts = SearchOptions(project=q["project"])
                units = fused_units(store, q["query"], opts, embedder, lambda s: s)
                rows.append(("course" if q["parts"] > 1 else "one part", q["target"], units))
        print("LoCoMo which-session set: hit@1 / hit@5 / MRR (n)\n")
        score(rows, ["one part", "course", "all"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
