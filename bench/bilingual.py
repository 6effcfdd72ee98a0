"""Bilingual retrieval: does a query find its session by meaning, in its language or across?

    python bench/bilingual.py [--distractors 100] [--models all-MiniLM-L6-v2,multilingual-e5-small]

`bench/data/bilingual.json` holds 32 short coding sessions (16 in English, 16 in
Chinese) and 64 queries written for this project: per session one paraphrase in its own
language that shares no content word with it ("same") and one in the other language
("cross"). The sessions are written as real Claude Code transcripts, indexed with the
real pipeline beside `--distractors` synthetic English sessions, then every query runs
in keyword, vector and hybrid mode with each model. A query is answered at rank r when
its session is the r-th session of the results (sessions ranked as `findsession search`
ranks them). Prints recall@1, recall@5 and
MRR per model, mode and query kind; exits 0.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import random  # noqa: E402

from corpus import SessionWriter, generate  # noqa: E402

from findsession.embeddings import ENGLISH_MODEL, MULTILINGUAL_MODEL, build_embedder  # noqa: E402
from findsession.indexing import Root, index_roots  # noqa: E402
from findsession.indexing.embed import embed_pending  # noqa: E402
from findsession.search.engine import search  # noqa: E402
from findsession.search.filters import SearchOptions  # noqa: E402
from findsession.storage.sqlite import Store  # noqa: E402

DATA = Path(__file__).resolve().parent / "data" / "bilingual.json"
MODES = ("keyword", "vector", "hybrid")
GROUPS = ("zh→zh", "en→en", "en→zh", "zh→en", "all")


def session_id(name: str) -> str:
    """A stable uuid-shaped id per dataset session, so results map back to it."""
    digits = "".join(f"{ord(c):02x}" for c in name)[:12].ljust(12, "0")
    return f"00000000-0000-4000-8000-{digits}"


def write_sessions(out: Path, data: dict) -> dict[str, str]:
    """Each dataset session as a transcript; returns session id -> dataset id."""
    folder = out / "-home-dev-code-bilingual"
    start = datetime(2026, 3, 1, tzinfo=UTC)
    ids = {}
    for n, item in enumerate(data["sessions"]):
        sid = session_id(item["id"])
        ids[sid] = item["id"]
        w = SessionWriter(random.Random(n), sid, "/home/dev/code/bilingual", start)
        start += timedelta(hours=3)
        for turn in item["turns"]:
            w.prompt(turn["user"])
            w.assistant({"type": "text", "text": turn["assistant"]})
        w.write(folder / f"{sid}.jsonl")
    return ids


def group(query: dict, target_lang: str) -> str:
    return f"{query['lang']}→{target_lang}"


def evaluate(store: Store, data: dict, ids: dict[str, str], embedder, mode: str) -> dict:  # noqa: ANN001
    """Per group: recall@1, recall@5, MRR, and the count of queries."""
    langs = {s["id"]: s["lang"] for s in data["sessions"]}
    ranks: dict[str, list[int | None]] = {g: [] for g in GROUPS}
    for query in data["queries"]:
        opts = SearchOptions(mode=mode, top=20)
        found = search(store, query["text"], opts, lambda: embedder)
        order = [ids.get(hit.session.id) for hit in found.hits]
        rank = order.index(query["target"]) + 1 if query["target"] in order else None
        ranks[group(query, langs[query["target"]])].append(rank)
        ranks["all"].append(rank)
    table = {}
    for name, got in ranks.items():
        n = len(got) or 1
        table[name] = {
            "r@1": 100 * sum(1 for r in got if r == 1) / n,
            "r@5": 100 * sum(1 for r in got if r and r <= 5) / n,
            "mrr": sum(1 / r for r in got if r) / n,
            "n": len(got),
        }
    return table


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--distractors", type=int, default=100)
    parser.add_argument("--models", default=f"{ENGLISH_MODEL},{MULTILINGUAL_MODEL}")
    args = parser.parse_args()
    data = json.loads(DATA.read_text(encoding="utf-8"))
    tmp = Path(tempfile.mkdtemp())
    ids = write_sessions(tmp / "projects", data)
    if args.distractors:
        generate(tmp / "distractors", args.distractors, seed=11)
    results = {}
    for model in args.models.split(","):
        embedder = build_embedder({"provider": "bundled", "model": model})
        with Store.open(tmp / f"{model}.db") as store:
            roots = [Root(tmp / "projects", "claude-code")]
            if args.distractors:
                roots.append(Root(tmp / "distractors", "claude-code"))
            index_roots(store, roots)
            started = time.perf_counter()
            report = embed_pending(store, embedder)
            print(
                f"{model}: embedded {report.chunks} chunks in"
                f" {time.perf_counter() - started:.0f} s ({report.texts_per_second:.1f} texts/s)",
                file=sys.stderr,
            )
            for mode in MODES:
                if mode == "keyword" and results:
                    continue  # the same for every model
                name = "keyword" if mode == "keyword" else f"{mode} · {model}"
                results[name] = evaluate(store, data, ids, embedder, mode)
    _print(results, len(data["sessions"]), args.distractors)
    return 0


def _print(results: dict, sessions: int, distractors: int) -> None:
    print(
        f"\n{sessions} sessions + {distractors} English distractor sessions;"
        " recall@1 / recall@5 / MRR\n"
    )
    print("| | " + " | ".join(GROUPS) + " |")
    print("|---" * (len(GROUPS) + 1) + "|")
    for name, table in results.items():
        cells = [
            f"{table[g]['r@1']:.0f} / {table[g]['r@5']:.0f} / {table[g]['mrr']:.2f}" for g in GROUPS
        ]
        print(f"| {name} | " + " | ".join(cells) + " |")
    counts = results[next(iter(results))]
    print("\nqueries per group: " + ", ".join(f"{g} {counts[g]['n']}" for g in GROUPS))


if __name__ == "__main__":
    raise SystemExit(main())
