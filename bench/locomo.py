"""Retrieval quality on LoCoMo: recall@k of the evidence turns, keyword vs vector vs hybrid.

    python bench/locomo.py [--model all-MiniLM-L6-v2|multilingual-e5-small]
                           [--data ../shared/benchmarks/locomo/locomo10.json] [--db PATH]
                           [--backend postgresql://...]

Each dialogue turn becomes a unit (speaker name, text, and the caption of any photo
shared), each sample one conversation (a session), dated by its LoCoMo session. Every
question is asked inside its own conversation (`--session`), the way the paper's
retrievers searched one conversation at a time. recall@k is the share of a question's
evidence turns among the top k units, 1.0 for a question without evidence, averaged over
all questions (the paper's definition). The baseline row is DRAGON with dialogue-turn
units, from Table 3 of the LoCoMo paper. Prints a table; exits 0.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import defaultdict
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import backend_bench  # noqa: E402  (bench/backend_bench.py)

from findsession.domain import Session  # noqa: E402
from findsession.embeddings import ENGLISH_MODEL, MULTILINGUAL_MODEL, build_embedder
from findsession.indexing.embed import embed_pending
from findsession.search.engine import retrieve
from findsession.search.filters import SearchOptions
from findsession.storage.sqlite import Store, UnitRow

REPO = Path(__file__).resolve().parent.parent
DEFAULT_DATA = REPO.parent / "shared" / "benchmarks" / "locomo" / "locomo10.json"
KS = (5, 10, 25, 50)
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
DRAGON = {5: 56.7, 10: 66.2, 25: 76.7, 50: 82.7}


def load(store: Store, samples: list[dict]) -> None:
    """Write each conversation as a session of turn units, numbered as `_ordinals` does."""
    with store.transaction():
        for sample in samples:
            sid = sample["sample_id"]
            conv = sample["conversation"]
            units: list[UnitRow] = []
            n = 1
            while f"session_{n}" in conv:
                when = datetime.strptime(conv[f"session_{n}_date_time"], "%I:%M %p on %d %B, %Y")
                ts = when.strftime("%Y-%m-%dT%H:%M:%SZ")
                for turn in conv[f"session_{n}"]:
                    text = f"{turn['speaker']}: {turn['text']}"
                    if turn.get("blip_caption"):
                        text += f" [shares {turn['blip_caption']}]"
                    units.append(
                        UnitRow("turn", len(units) + 1, "locomo", ts, "", text, "", "", [], [])
                    )
                n += 1
            store.save_session(
                Session(
                    sid, "locomo", None, None, sid, units[0].ts, units[-1].ts, n_turns=len(units)
                )
            )
            store.sync_units(sid, units)


def evaluate(store: Store, samples: list[dict], ordinals: dict, mode: str, embedder) -> dict:  # noqa: ANN001
    """recall@k per category (and overall) for one retrieval mode."""
    sums: dict[str, dict[int, float]] = defaultdict(lambda: dict.fromkeys(KS, 0.0))
    counts: dict[str, int] = defaultdict(int)
    latencies = []
    for sample in samples:
        sid = sample["sample_id"]
        for qa in sample["qa"]:
            wanted = {ordinals[sid][e] for e in _evidence(qa) if e in ordinals[sid]}
            opts = SearchOptions(mode=mode, session=sid, top=max(KS)).validated()
            started = time.perf_counter()
            found = retrieve(store, qa["question"], opts, lambda: embedder, limit=max(KS))
            latencies.append(time.perf_counter() - started)
            ranked = [u.ordinal for u in found.units]
            for name in (CATEGORIES[qa["category"]], "overall"):
                counts[name] += 1
                for k in KS:
                    top = set(ranked[:k])
                    sums[name][k] += len(wanted & top) / len(wanted) if wanted else 1.0
    table = {name: {k: 100 * sums[name][k] / counts[name] for k in KS} for name in counts}
    table["_count"] = dict(counts)
    latencies.sort()
    table["_p50_ms"] = 1000 * latencies[len(latencies) // 2]
    return table


def _evidence(qa: dict) -> list[str]:
    """Evidence ids; a few are written `D8:6; D9:17` in one string."""
    out = []
    for item in qa.get("evidence", []):
        out += [part.strip() for part in str(item).replace(",", ";").split(";") if part.strip()]
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--db", type=Path, help="reuse this index (built on first use)")
    parser.add_argument(
        "--model",
        choices=(ENGLISH_MODEL, MULTILINGUAL_MODEL),
        default=ENGLISH_MODEL,
        help="bundled embedding model (default: %(default)s)",
    )
    parser.add_argument(
        "--backend",
        metavar="URL",
        help="also evaluate a PostgreSQL index (a database it may empty) holding the same"
        " units and the SQLite index's vectors",
    )
    args = parser.parse_args()
    if not args.data.exists():
        print(f"LoCoMo data not found at {args.data}; pass --data", file=sys.stderr)
        return 0
    samples = json.loads(args.data.read_text())
    db = args.db or Path(tempfile.mkdtemp()) / "locomo.db"
    embedder = build_embedder({"provider": "bundled", "model": args.model})
    with Store.open(db) as store:
        if not store.scalar("SELECT count(*) FROM units"):
            load(store, samples)
        ordinals = _ordinals(samples)
        started = time.perf_counter()
        report = embed_pending(store, embedder)
        print(
            f"embedded {report.units} units ({report.chunks} chunks) in"
            f" {time.perf_counter() - started:.0f} s with {embedder.identity}",
            file=sys.stderr,
        )
        results = {
            m: evaluate(store, samples, ordinals, m, embedder)
            for m in ("keyword", "vector", "hybrid")
        }
    _print(results, _dragon_by_category(args.data))
    if args.backend:
        served = on_server(db, args.backend, samples, ordinals, embedder)
        print("\nOn the PostgreSQL backend, the same units and vectors:\n")
        _print(served, None)
        print("\n| retrieval | " + " | ".join(f"R@{k} SQLite / PG" for k in KS) + " |")
        print("|---|" + "---:|" * len(KS))
        for mode, table in results.items():
            pairs = (f"{table['overall'][k]:.1f} / {served[mode]['overall'][k]:.1f}" for k in KS)
            print(f"| {mode} | " + " | ".join(pairs) + " |")
    return 0


def on_server(db: Path, url: str, samples: list[dict], ordinals: dict, embedder) -> dict:  # noqa: ANN001
    """The same conversations written into the server's index (emptied first), given the
    SQLite index's vectors, and evaluated the same way."""
    backend_bench.reset(url)
    server = backend_bench.open_store(db.with_suffix(".server.db"), url)
    try:
        load(server, samples)
    finally:
        server.close()
    copied, left = backend_bench.copy_vectors(db, url)
    print(f"copied the vectors of {copied} units to the server ({left} left)", file=sys.stderr)
    with backend_bench.open_store(db.with_suffix(".server.db"), url) as server:
        return {
            m: evaluate(server, samples, ordinals, m, embedder)
            for m in ("keyword", "vector", "hybrid")
        }


def _ordinals(samples: list[dict]) -> dict[str, dict[str, int]]:
    out = {}
    for sample in samples:
        conv = sample["conversation"]
        ids: dict[str, int] = {}
        n = 1
        while f"session_{n}" in conv:
            for turn in conv[f"session_{n}"]:
                ids[turn["dia_id"]] = len(ids) + 1
            n += 1
        out[sample["sample_id"]] = ids
    return out


def _print(results: dict, baseline: dict | None) -> None:
    names = ["overall", *CATEGORIES.values()]
    counts = results["hybrid"]["_count"]
    print(f"LoCoMo recall@k (%), {counts['overall']} questions, turn units, per conversation")
    print()
    print("| retrieval | " + " | ".join(f"R@{k}" for k in KS) + " | p50 ms |")
    print("|---|" + "---:|" * (len(KS) + 1))
    print("| DRAGON (paper, Table 3) | " + " | ".join(f"{DRAGON[k]:.1f}" for k in KS) + " | |")
    for mode, table in results.items():
        row = " | ".join(f"{table['overall'][k]:.1f}" for k in KS)
        print(f"| findsession {mode} | {row} | {table['_p50_ms']:.1f} |")
    for name in names[1:]:
        print()
        print(f"{name} ({counts.get(name, 0)} questions)")
        print()
        print("| retrieval | " + " | ".join(f"R@{k}" for k in KS) + " |")
        print("|---|" + "---:|" * len(KS))
        if baseline:
            cells = " | ".join(f"{baseline[k][name]:.1f}" for k in KS)
            print(f"| DRAGON (paper) | {cells} |")
        for mode, table in results.items():
            print(f"| {mode} | " + " | ".join(f"{table[name][k]:.1f}" for k in KS) + " |")


def _dragon_by_category(data: Path) -> dict | None:
    """Per-category DRAGON recall from the paper's table, when it sits next to the data."""
    path = data.parent / "baselines_paper_table3.json"
    if not path.exists():
        return None
    paper = json.loads(path.read_text())
    rows = [r for r in paper["rows"] if r["unit"] == "dialog" and r.get("recall_at_k")]
    names = {
        "single_hop": "single-hop",
        "multi_hop": "multi-hop",
        "temporal": "temporal",
        "open_domain": "open-domain",
        "adversarial": "adversarial",
        "overall": "overall",
    }
    return {
        r["top_k"]: {names[k]: v for k, v in r["recall_at_k"].items() if k in names} for r in rows
    }


if __name__ == "__main__":
    raise SystemExit(main())
