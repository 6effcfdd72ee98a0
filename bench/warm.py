"""Warm search in one long-lived process, this tree against another, side by side.

    python bench/warm.py --db INDEX [--db INDEX ...] --baseline OTHER/src [--pairs 3]
                         [--work DIR]

What a resident searcher (the MCP server, a service) pays: each index is copied twice
into --work (the given file is only read; each tree writes its own copy, and this
tree's schema is newer), then fresh processes alternate, baseline and this tree, `--pairs`
times. Each process (PYTHONPATH = its tree's src):
- opens the index and loads the vector matrix cold (this tree: the pack; before it:
  every chunks and units row);
- searches every `bench/speed.py` query in keyword, vector and hybrid mode once to warm
  up, then three more rounds, timed (the model loads during warm-up);
- appends a live turn with its vectors (what an indexer's run adds) and times the next
  vector search, which must take the new chunks in, three times;
- reports its RSS now and at peak.
The table gives medians over the pairs and the median of the pair ratios; it checks that
the top-10 session ids of every query and mode are identical between the trees (the
speed work must not change a ranking). Run with FINDSESSION_CONFIG pointing at a file
that does not exist (the defaults: the bundled model the synthetic vectors claim).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"
MODES = ("keyword", "vector", "hybrid")


def child(db: Path) -> dict:
    """One searching process: the measurements above, as JSON."""
    sys.path.insert(0, str(HERE))
    import numpy as np
    import speed  # bench/speed.py: the queries

    from findsession.config import load_config
    from findsession.domain import Session
    from findsession.embeddings import configured_embedder
    from findsession.quantize import quantize
    from findsession.search.engine import search
    from findsession.search.filters import SearchOptions
    from findsession.storage.sqlite import Store, UnitRow

    model = configured_embedder(load_config().embedding)
    out: dict = {"code": _code_root()}
    with Store.open(db) as store:
        started = time.perf_counter()
        store.load_vectors()
        out["cold_load_ms"] = (time.perf_counter() - started) * 1000
        out["units"] = store.scalar("SELECT count(*) FROM units")
        out["chunks"] = store.scalar("SELECT count(*) FROM chunks")
        times: dict[str, list[float]] = {m: [] for m in MODES}
        top: dict[str, list[str]] = {}
        for rnd in range(4):
            for q in speed.QUERIES:
                for mode in MODES:
                    began = time.perf_counter()
                    hits = search(store, q, SearchOptions(mode=mode), lambda: model).hits
                    if rnd:  # round 0 warms up
                        times[mode].append((time.perf_counter() - began) * 1000)
                    top[f"{mode}: {q}"] = [h.session.id for h in hits]
        out["p50"] = {m: statistics.median(v) for m, v in times.items()}
        out["top"] = top
        after_append = []
        rng = np.random.default_rng(7)
        for n in range(3):
            sid = f"bench-live-{os.getpid()}-{n}"
            ts = "2026-01-02T10:00:00Z"
            with store.transaction():
                store.save_session(Session(sid, "claude-code", None, "/home/dev/live", "", ts, ts))
                store.sync_units(
                    sid,
                    [
                        UnitRow(
                            "turn", i + 1, "claude-code", ts, "", f"now wire step {i}",
                            f"step {i} runs hourly", "", [], [],
                        )
                        for i in range(5)
                    ],
                )  # fmt: skip
                for unit_id, unit_hash in store.query(
                    "SELECT id, hash FROM units WHERE session_id = ?", (sid,)
                ):
                    vecs = rng.standard_normal((2, 384)).astype(np.float32)
                    packed = quantize(vecs / np.linalg.norm(vecs, axis=1, keepdims=True))
                    chunks = [
                        (f, 0, 10, *packed[i], None) for i, f in enumerate(("prompt", "reply"))
                    ]
                    store.save_vectors(unit_id, unit_hash, chunks)
                store.bump_vector_generation()
            began = time.perf_counter()
            search(store, speed.QUERIES[n], SearchOptions(mode="vector"), lambda: model)
            after_append.append((time.perf_counter() - began) * 1000)
        out["after_append_ms"] = statistics.median(after_append)
    out["rss_mb"] = _rss_mb()
    out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return out


def _code_root() -> str:
    import findsession

    return str(Path(findsession.__file__).resolve().parents[1])


def _rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def run_child(src: Path, db: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": str(src)}
    done = subprocess.run(
        [sys.executable, __file__, "--child", str(db)],
        env=env,
        capture_output=True,
        text=True,
    )
    if done.returncode:
        sys.exit(f"child failed on {db}:\n{done.stderr}")
    return json.loads(done.stdout)


def prepare(db: Path, work: Path) -> tuple[Path, Path, dict]:
    """Two copies of `db`; this tree's is upgraded and packed (as an embedding run would)."""
    base, new = work / f"base-{db.name}", work / f"new-{db.name}"
    for target in (base, new):
        for side in ("-wal", "-shm"):
            Path(f"{target}{side}").unlink(missing_ok=True)
        shutil.copyfile(db, target)
    code = (
        "import sys, time, json; from pathlib import Path;"
        " from findsession.storage.sqlite import Store\n"
        "with Store.open(Path(sys.argv[1])) as s:\n"
        "    t = time.perf_counter()\n"
        "    with s.transaction(): s.pack_vectors()\n"
        "    w = time.perf_counter() - t\n"
        "    size = s.scalar('SELECT length(data) FROM vector_pack')\n"
        "print(json.dumps({'pack_write_s': w, 'pack_mb': size / 1e6}))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(new)],
        env={**os.environ, "PYTHONPATH": str(SRC)},
        capture_output=True,
        text=True,
        check=True,
    )
    return base, new, json.loads(done.stdout)


def ratio(pairs: list[tuple[dict, dict]], get: Callable[[dict], float]) -> tuple[float, ...]:
    """Median of the baseline's values, of this tree's, and of the pairwise ratios."""
    olds = [get(b) for b, _ in pairs]
    news = [get(n) for _, n in pairs]
    return (
        statistics.median(olds),
        statistics.median(news),
        statistics.median(o / n for o, n in zip(olds, news, strict=True)),
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--db", type=Path, action="append", default=[])
    parser.add_argument("--baseline", type=Path, help="the other tree's src folder")
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--work", type=Path, default=Path("/tmp/findsession-warm"))
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child)))
        return 0
    if not args.db or not args.baseline:
        parser.error("give --db and --baseline")
    args.work.mkdir(parents=True, exist_ok=True)
    rows = []
    for db in args.db:
        base, new, pack = prepare(db, args.work)
        pairs = []
        for n in range(args.pairs):  # alternate which tree runs first
            order = [(args.baseline, base), (SRC, new)]
            got = [run_child(src, path) for src, path in (order if n % 2 == 0 else order[::-1])]
            b, t = got if n % 2 == 0 else got[::-1]
            assert b["code"] != t["code"], "both runs imported the same tree"
            pairs.append((b, t))
            print(json.dumps({"db": str(db), "pair": n, "baseline": _brief(b), "new": _brief(t)}),
                  file=sys.stderr)  # fmt: skip
        rows.append((db, pack, pairs))
    print_table(rows)
    return 0


def _brief(r: dict) -> dict:
    return {k: v for k, v in r.items() if k != "top"}


def print_table(rows: list) -> None:
    print("| index | units | chunks | measure | baseline | this tree | baseline / this |")
    print("|---|---:|---:|---|---:|---:|---:|")
    for db, pack, pairs in rows:
        first = pairs[0][1]
        lead = f"| {db.name} | {first['units']} | {first['chunks']} |"
        measures = [
            ("cold matrix load ms", lambda r: r["cold_load_ms"]),
            *[(f"warm {m} p50 ms", lambda r, m=m: r["p50"][m]) for m in MODES],
            ("first vector search after an append ms", lambda r: r["after_append_ms"]),
            ("RSS MB after the searches", lambda r: r["rss_mb"]),
            ("peak RSS MB", lambda r: r["peak_rss_mb"]),
        ]
        for name, get in measures:
            old, new, r = ratio(pairs, get)
            print(f"{lead} {name} | {old:.1f} | {new:.1f} | {r:.2f}x |")
        same = sum(b["top"] == t["top"] for b, t in pairs)
        keys = len(pairs[0][0]["top"])
        differ = {k for b, t in pairs for k in b["top"] if b["top"][k] != t["top"].get(k)}
        print(
            f"{lead} pack written once: {pack['pack_write_s']:.2f} s, {pack['pack_mb']:.1f} MB"
            f" | top-10 sessions identical in {same}/{len(pairs)} pairs ({keys} query x mode) |"
            f" {len(differ)} differ |"
        )
        for key in sorted(differ):
            print(f"  differs: {key}", file=sys.stderr)


if __name__ == "__main__":
    raise SystemExit(main())
