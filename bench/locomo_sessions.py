"""Which LoCoMo session was it? Known-item search over dated chat sessions.

    python bench/locomo_sessions.py [--data ../shared/benchmarks/locomo/locomo10.json]
                                    [--db PATH] [--model multilingual-e5-small]

LoCoMo's 10 conversations hold 272 dated sessions between two people. Each session
becomes one findsession session (its turns the units, the conversation its project), and
each question whose evidence lies in one session is a "which session?" query searched
within its conversation (`--project`), as someone asks about one long relationship with
an agent. A question with two or more evidence turns in that session is a course query:
its parts are in different turns, the shape that ranking a session by its single best
turn misses. Prints hit@1, hit@5 and MRR per shape and per LoCoMo category, and how
many answers got each confidence level (every query here has an answer, so "nothing
close" is always wrong); exits 0, or 2 without the data.

The set is larger than the visible known-item set (about 1,500 queries against 70) and
none of it was written for findsession, so a change that helps only there shows here.
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

from findsession.domain import Confidence, Level, Session
from findsession.embeddings import MULTILINGUAL_MODEL, build_embedder
from findsession.indexing.embed import embed_pending
from findsession.search.engine import search
from findsession.search.filters import SearchOptions
from findsession.storage.sqlite import Store, UnitRow

sys.path.insert(0, str(Path(__file__).resolve().parent))
from locomo import CATEGORIES  # noqa: E402
from locomo import _evidence as evidence_ids  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
DEFAULT_DATA = REPO.parent / "shared" / "benchmarks" / "locomo" / "locomo10.json"
TOP = 10


def session_id(sample: str, n: int) -> str:
    return f"{sample}-s{n}"


def load(store: Store, samples: list[dict]) -> None:
    """Each LoCoMo session as a findsession session of turn units, in its conversation's
    project folder."""
    with store.transaction():
        for sample in samples:
            conv = sample["conversation"]
            n = 1
            while f"session_{n}" in conv:
                when = datetime.strptime(conv[f"session_{n}_date_time"], "%I:%M %p on %d %B, %Y")
                ts = when.strftime("%Y-%m-%dT%H:%M:%SZ")
                units = []
                for turn in conv[f"session_{n}"]:
                    text = f"{turn['speaker']}: {turn['text']}"
                    if turn.get("blip_caption"):
                        text += f" [shares {turn['blip_caption']}]"
                    units.append(
                        UnitRow("turn", len(units) + 1, "locomo", ts, "", text, "", "", [], [])
                    )
                sid = session_id(sample["sample_id"], n)
                project = f"/locomo/{sample['sample_id']}"
                store.save_session(
                    Session(sid, "locomo", None, project, None, ts, ts, n_turns=len(units))
                )
                store.sync_units(sid, units)
                n += 1


def queries(samples: list[dict]) -> list[dict]:
    """Questions whose evidence turns all lie in one session."""
    out = []
    for sample in samples:
        for qa in sample["qa"]:
            evidence = evidence_ids(qa)
            sessions = {e.split(":")[0] for e in evidence}
            if len(sessions) != 1 or not next(iter(sessions)).startswith("D"):
                continue
            n = int(next(iter(sessions))[1:])
            out.append(
                {
                    "query": qa["question"],
                    "project": f"/locomo/{sample['sample_id']}",
                    "target": session_id(sample["sample_id"], n),
                    "parts": len(set(evidence)),
                    "category": CATEGORIES[qa["category"]],
                }
            )
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--db", type=Path, help="reuse this index (built on first use)")
    parser.add_argument("--model", default=MULTILINGUAL_MODEL)
    parser.add_argument("--mode", default="hybrid", choices=("hybrid", "keyword", "vector"))
    args = parser.parse_args()
    if not args.data.exists():
        print(f"LoCoMo data not found at {args.data}; pass --data", file=sys.stderr)
        return 2
    samples = json.loads(args.data.read_text())
    db = args.db or Path(tempfile.mkdtemp()) / "locomo-sessions.db"
    embedder = build_embedder({"provider": "bundled", "model": args.model})
    rows = []
    with Store.open(db) as store:
        if not store.has_units():
            load(store, samples)
        embed_pending(store, embedder)
        for q in queries(samples):
            opts = SearchOptions(mode=args.mode, project=q["project"], top=TOP)
            started = time.perf_counter()
            response = search(store, q["query"], opts, lambda: embedder)
            ms = (time.perf_counter() - started) * 1000
            ranked = [h.session.id for h in response.hits]
            rank = ranked.index(q["target"]) + 1 if q["target"] in ranked else None
            rows.append((q, rank, ms, response.confidence))
    print_table(rows)
    return 0


def print_table(rows: list[tuple[dict, int | None, float, Confidence | None]]) -> None:
    groups: dict[str, list[int | None]] = defaultdict(list)
    for q, rank, _, _ in rows:
        shape = "one part" if q["parts"] == 1 else "course (2+ parts)"
        for name in (f"shape: {shape}", f"category: {q['category']}", "all"):
            groups[name].append(rank)
    print("| queries | n | hit@1 | hit@5 | hit@10 | MRR |")
    print("|---|---:|---:|---:|---:|---:|")
    for name in sorted(groups, key=lambda n: (n == "all", n)):
        ranks = groups[name]
        cells = " | ".join(
            f"{sum(r is not None and r <= k for r in ranks) / len(ranks):.3f}" for k in (1, 5, 10)
        )
        mrr = sum(1 / r for r in ranks if r) / len(ranks)
        print(f"| {name} | {len(ranks)} | {cells} | {mrr:.3f} |")
    print()
    print("| confidence | queries | target first |")
    print("|---|---:|---:|")
    for level in Level:
        got = [rank for _, rank, _, c in rows if c is not None and c.level is level]
        print(f"| {level.value} | {len(got)} | {sum(r == 1 for r in got)} |")
    latencies = sorted(ms for _, _, ms, _ in rows)
    print(f"\nsearch p50 {latencies[len(latencies) // 2]:.0f} ms over {len(rows)} queries")


if __name__ == "__main__":
    sys.exit(main())
