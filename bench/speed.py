"""Speed, size and memory at a heavy user's scale, against the targets.

    python bench/speed.py [--sizes 200,2000,20000] [--work DIR] [--embed-up-to 200]
                          [--million] [--model multilingual-e5-small|all-MiniLM-L6-v2]
                          [--backend postgresql://...]

For each size (main sessions), `bench/corpus.py` writes a corpus (kept in --work and
reused), then this script measures, each through a real `findsession` process unless
it says "in-process":
- a full keyword index (parsing + FTS5) in MB/s of transcript;
- embedding: real with the bundled model up to --embed-up-to sessions (texts/s); above
  that, random unit vectors are written straight into the index, and the table says so,
  because embedding 100k+ units on 2 cores takes hours and does not change query cost;
- database size; a no-op re-index; a live session's 10 appended lines becoming
  searchable (the `index` run that picks them up, embedding included);
- query latency p50/p95 for keyword, vector and hybrid, warm in one process and end to end
  from a cold `findsession` process; peak RSS of the searching process;
- `rg` over the raw files for the same queries, the reference people use today.
`--million` adds a synthetic index of 1M units (texts from the same generator, written
straight into the store, random vectors) for the 1M-unit targets. `--backend URL` then
pushes each SQLite index, the 1M one included, into a PostgreSQL database (one it may
empty) with the real `findsession push`, as a team member's machine would, and measures
the push, the server's memory and both backends searched side by side in one process
over the same units and vectors (bench/backend_bench.py). Prints tables; exits 0.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import backend_bench  # noqa: E402  (bench/backend_bench.py)
import corpus  # noqa: E402  (bench/corpus.py, a sibling script)
import service_bench  # noqa: E402  (bench/service_bench.py)

from findsession.domain import Session  # noqa: E402
from findsession.quantize import quantize  # noqa: E402
from findsession.storage.sqlite import Store, UnitRow  # noqa: E402

QUERIES = [
    "the deploy that lied about being live",
    "flaky test fixture timing out",
    "why does the migration deadlock",
    "oauth token refresh broken",
    "sticky header hides anchors",
    "speed up the slow query plan",
    "merge conflict during rebase",
    "ValueError: invalid literal",
    "ECONNREFUSED 127.0.0.1:5432",
    "memory leak in the cache",
    "docker image dns failure",
    "tokenizer utf-8 escape bug",
    "canary rollout health check",
    "readme changelog tutorial",
    "profiling latency batching",
    "password reset 2fa",
]
MODES = ("keyword", "vector", "hybrid")
DIMS = 384


def run(args: list[str], env: dict[str, str]) -> tuple[float, int, str, str]:
    """Wall seconds, peak RSS (KiB), stdout and stderr of one findsession process."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        started = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, "-m", "findsession", *args], env=env, stdout=out, stderr=err
        )
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    if proc.returncode not in (0, 1):
        print(stderr, file=sys.stderr)
    return wall, usage.ru_maxrss, stdout, stderr


def synthetic_vectors(db: Path, seed: int = 1) -> int:
    """One random unit vector per embedded field of every unit without vectors."""
    rng = np.random.default_rng(seed)
    store = backend_bench.open_store(db, None)
    try:
        store.set_setting("embedding_model", _bundled_identity())
        store.set_setting("embedding_dims", str(DIMS))
        pending = store.pending_units()
        written = 0
        for at in range(0, len(pending), 20_000):
            rows = store.unit_texts(pending[at : at + 20_000])
            batch = []
            with store.transaction():
                for unit_id, unit_hash, *_, title, prompt, reply in rows:
                    fields = [
                        (n, t)
                        for n, t in (("title", title), ("prompt", prompt), ("reply", reply))
                        if t.strip()
                    ]
                    vecs = rng.standard_normal((max(1, len(fields)), DIMS)).astype(np.float32)
                    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
                    packed = quantize(vecs)
                    chunks = [(n, 0, len(t), *packed[i], None) for i, (n, t) in enumerate(fields)]
                    batch.append((unit_id, unit_hash, chunks))
                    written += len(chunks)
                store.save_vectors_many(batch)
                store.bump_vector_generation()
        with store.transaction():  # as an embedding run ends: searchers load the pack
            store.pack_vectors()
    finally:
        store.close()
    return written


def _bundled_identity() -> str:
    """The benchmarked model's identity, so search takes the synthetic vectors as its own."""
    from findsession.config import load_config
    from findsession.embeddings import configured_embedder

    return configured_embedder(load_config().embedding).identity


def warm_queries(db: Path) -> dict[str, list[float]]:
    """Per-mode latencies (ms) in one process, after one warm-up pass."""
    from findsession.config import load_config
    from findsession.embeddings import configured_embedder
    from findsession.search.engine import search
    from findsession.search.filters import SearchOptions

    settings = load_config().embedding
    embedder = lambda: configured_embedder(settings)  # noqa: E731
    out: dict[str, list[float]] = {m: [] for m in MODES}
    with backend_bench.open_store(db, None) as store:
        for mode in MODES:
            search(store, QUERIES[0], SearchOptions(mode=mode), embedder)
        for _ in range(3):
            for q in QUERIES:
                for mode in MODES:
                    started = time.perf_counter()
                    search(store, q, SearchOptions(mode=mode), embedder)
                    out[mode].append((time.perf_counter() - started) * 1000)
    return out


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def rg_times(root: Path) -> list[float] | None:
    if not shutil.which("rg"):
        return None
    times = []
    for q in QUERIES[:6]:
        words = [w for w in q.split() if len(w) > 3][:3]
        args = ["rg", "-l", "-i", "-F"] + [x for w in words for x in ("-e", w)] + [str(root)]
        started = time.perf_counter()
        subprocess.run(args, capture_output=True)
        times.append(time.perf_counter() - started)
    return times


def append_live(root: Path, token: str) -> Path:
    """Append a prompt and replies (10 lines) to the newest main session file."""
    newest = max((p for p in root.glob("*/*.jsonl")), key=lambda p: p.stat().st_mtime)
    rng = random.Random(token)  # new uuids per token: a reused corpus must not dedupe them
    last = json.loads(newest.read_text().splitlines()[-1])
    w = corpus.SessionWriter(
        rng,
        last.get("sessionId", newest.stem),
        "/home/dev/live",
        corpus.datetime(2026, 1, 1, tzinfo=corpus.UTC),
    )
    w.prompt(f"now wire {token} into the scheduler")
    for i in range(4):
        w.tool("Bash", {"command": f"pytest -k {token}"}, f"{token} test {i} passed")
    w.assistant({"type": "text", "text": f"Done: {token} runs every hour."})
    with open(newest, "a", encoding="utf-8") as fh:
        fh.write("\n".join(w.lines) + "\n")
    return newest


def bench_size(sessions: int, work: Path, embed_up_to: int, service: float | None) -> dict:
    root = work / f"corpus-{sessions}"
    if not root.exists():
        corpus.generate(root, sessions, seed=sessions)
    corpus_bytes = sum(p.stat().st_size for p in root.rglob("*.jsonl"))
    db = work / f"index-{sessions}.db"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    env = {**os.environ, "FINDSESSION_DB": str(db)}  # FINDSESSION_CONFIG: set by main()
    r: dict = {"sessions": sessions, "corpus_mb": corpus_bytes / 1e6}

    wall, rss, out, _ = run(["index", str(root), "--no-embed", "--json"], env)
    report = json.loads(out)
    r["index_s"], r["index_rss_mb"] = wall, rss / 1024
    r["keyword_mb_s"] = corpus_bytes / 1e6 / report["seconds"]
    with backend_bench.open_store(db, None) as store:
        r["units"] = store.status().units
    if sessions <= embed_up_to:
        wall, _, out, _ = run(["index", str(root), "--json"], env)
        emb = json.loads(out)["embedding"]
        r["embed"] = f"{emb['texts_per_second']:.0f} texts/s ({emb['chunks']} chunks, real)"
    else:
        started = time.perf_counter()
        n = synthetic_vectors(db)
        r["embed"] = (
            f"synthetic: {n} random vectors written in {time.perf_counter() - started:.0f} s"
        )
    files = [f"{db}{s}" for s in ("", "-wal") if os.path.exists(f"{db}{s}")]
    r["db_mb"] = sum(os.path.getsize(f) for f in files) / 1e6
    r["noop_s"] = run(["index", str(root)], env)[0]

    token = f"livetoken{sessions}x{time.time_ns() % 10**9}"
    append_live(root, token)
    wall, _, _, _ = run(["index", str(root)], env)
    found = run(["search", token, "--json", "--mode", "keyword"], env)[2]
    r["append_s"] = wall
    r["append_found"] = bool(json.loads(found)["results"])

    warm = warm_queries(db)
    for mode in MODES:
        r[f"{mode}_p50"], r[f"{mode}_p95"] = pct(warm[mode], 50), pct(warm[mode], 95)
    cold = [run([q], env)[0] for q in QUERIES[:8]]
    r["cold_p50"] = statistics.median(cold)
    r["search_rss_mb"] = search_rss(db, env)
    rg = rg_times(root)
    r["rg_p50"] = statistics.median(rg) if rg else None
    if service is not None:
        r.update(service_bench.measure(db, root, env, QUERIES[:8], run, append_live, service))
    return r


def search_rss(db: Path, env: dict[str, str]) -> float:
    """Peak RSS (MB) of a fresh process that runs every query in every mode."""
    code = (
        "import sys, resource; sys.path.insert(0, sys.argv[2]); import speed;"
        " speed.warm_queries(__import__('pathlib').Path(sys.argv[1]));"
        " print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(db), str(Path(__file__).resolve().parent)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return int(out.split()[-1]) / 1024


def million(work: Path, service: float | None, units: int = 1_000_000) -> dict:
    """A synthetic index of `units` turn units with random vectors, for the 1M targets."""
    db = work / "index-1m.db"
    env = {**os.environ, "FINDSESSION_DB": str(db)}  # FINDSESSION_CONFIG: set by main()
    if not db.exists():
        rng = random.Random(1)
        per_session = 10
        started = time.perf_counter()
        with Store.open(db) as store:
            for s in range(units // per_session):
                topic, things = rng.choice(corpus.TOPICS)
                sid = f"synthetic-{s:07d}"
                if s % 2000 == 0:
                    if s:
                        store.db.execute("COMMIT")
                    store.db.execute("BEGIN")
                ts = f"2025-{1 + s % 12:02d}-{1 + s % 28:02d}T10:00:00Z"
                store.save_session(
                    Session(
                        sid,
                        "claude-code",
                        None,
                        f"/home/dev/p{s % 50}",
                        f"{topic} {things[0]}",
                        ts,
                        ts,
                        n_turns=per_session,
                    )
                )
                rows = [
                    UnitRow(
                        "turn",
                        i + 1,
                        "claude-code",
                        ts,
                        "",
                        corpus.fill(rng, rng.choice(corpus.ASKS), topic, things),
                        corpus.fill(rng, rng.choice(corpus.REPLIES), topic, things),
                        "",
                        [],
                        [],
                    )
                    for i in range(per_session)
                ]
                store.sync_units(sid, rows)
            store.db.execute("COMMIT")
        print(f"1M: wrote {units} units in {time.perf_counter() - started:.0f} s", file=sys.stderr)
        synthetic_vectors(db)
    r: dict = {"units": units}
    warm = warm_queries(db)
    for mode in MODES:
        r[f"{mode}_p50"], r[f"{mode}_p95"] = pct(warm[mode], 50), pct(warm[mode], 95)
    r["cold_p50"] = statistics.median([run([q], env)[0] for q in QUERIES[:5]])
    r["search_rss_mb"] = search_rss(db, env)
    r["db_mb"] = os.path.getsize(db) / 1e6
    if service is not None:
        r.update(service_bench.measure(db, None, env, QUERIES[:8], run, append_live, service))
    return r


def print_tables(rows: list[dict], big: dict | None) -> None:
    print(
        "| sessions | corpus MB | units | keyword index | embedding | DB MB | no-op re-index |"
        " live append searchable |"
    )
    print("|---:|---:|---:|---|---|---:|---:|---|")
    for r in rows:
        print(
            f"| {r['sessions']} | {r['corpus_mb']:.0f} | {r['units']} | {r['index_s']:.1f} s,"
            f" {r['keyword_mb_s']:.1f} MB/s | {r['embed']} | {r['db_mb']:.0f} |"
            f" {r['noop_s']:.2f} s | {r['append_s']:.2f} s"
            f" ({'found' if r['append_found'] else 'NOT found'}) |"
        )
    print()
    print(
        "| sessions | units | keyword p50/p95 ms | vector p50/p95 ms | hybrid p50/p95 ms |"
        " cold CLI p50 s | search peak RSS MB | rg p50 s |"
    )
    print("|---:|---:|---|---|---|---:|---:|---:|")
    for r in [*rows, *([big] if big else [])]:
        rg = f"{r['rg_p50']:.2f}" if r.get("rg_p50") is not None else "n/a"
        print(
            f"| {r.get('sessions', 'synthetic')} | {r['units']} |"
            f" {r['keyword_p50']:.1f} / {r['keyword_p95']:.1f} |"
            f" {r['vector_p50']:.1f} / {r['vector_p95']:.1f} |"
            f" {r['hybrid_p50']:.1f} / {r['hybrid_p95']:.1f} | {r['cold_p50']:.2f} |"
            f" {r['search_rss_mb']:.0f} | {rg} |"
        )
    served = [r for r in [*rows, *([big] if big else [])] if "warm_cli_p50" in r]
    if not served:
        return
    print()
    print(
        "| sessions | units | warm CLI p50 s (service) | cold CLI p50 s | rg p50 s |"
        " append searchable (service) | service RSS MB | idle CPU (share of a core) |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in served:
        rg = f"{r['rg_p50']:.2f}" if r.get("rg_p50") is not None else "n/a"
        append = f"{r['service_append_s']:.2f} s" if "service_append_s" in r else "n/a"
        idle = (
            f"{r['idle_cpu_pct']:.3f}% over {r['idle_seconds']:.0f} s"
            if "idle_cpu_pct" in r
            else "n/a"
        )
        print(
            f"| {r.get('sessions', 'synthetic')} | {r['units']} | {r['warm_cli_p50']:.3f} |"
            f" {r['cold_p50']:.2f} | {rg} | {append} | {r['service_rss_mb']:.0f} | {idle} |"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="200,2000", help="main sessions per corpus")
    parser.add_argument("--work", type=Path, default=Path("/tmp/findsession-bench"))
    parser.add_argument(
        "--embed-up-to",
        type=int,
        default=200,
        help="embed for real up to this many sessions (default 200)",
    )
    parser.add_argument("--million", action="store_true", help="add the 1M-unit index")
    parser.add_argument(
        "--service",
        action="store_true",
        help="also measure each index through a resident service (warm CLI, live append,"
        " memory, idle CPU)",
    )
    parser.add_argument(
        "--idle-seconds",
        type=float,
        default=600,
        help="with --service: how long to watch an idle service's CPU (default %(default)s)",
    )
    parser.add_argument(
        "--model", default="multilingual-e5-small", help="bundled model (default: %(default)s)"
    )
    parser.add_argument(
        "--backend",
        metavar="URL",
        help="also index each size into this PostgreSQL database (emptied first) and search"
        " it side by side with the SQLite file",
    )
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    config = args.work / f"config-{args.model}.toml"
    config.write_text(f'[embedding]\nmodel = "{args.model}"\n')
    os.environ["FINDSESSION_CONFIG"] = str(config)  # this process and every `findsession` run
    os.environ["XDG_RUNTIME_DIR"] = str(args.work / "run")  # the benchmark's own services
    (args.work / "run").mkdir(mode=0o700, exist_ok=True)
    service = args.idle_seconds if args.service else None
    print(f"model: {args.model}", file=sys.stderr)
    rows: list[dict] = []
    served_rows: list[dict] = []
    for size in (int(s) for s in args.sizes.split(",")):
        rows.append(bench_size(size, args.work, args.embed_up_to, service))
        print(json.dumps(rows[-1]), file=sys.stderr)
        if args.backend:
            served_rows.append(pushed(args.work / f"index-{size}.db", rows[-1], args.backend))
    big = million(args.work, service) if args.million else None
    if big:
        print(json.dumps(big), file=sys.stderr)
        if args.backend:
            served_rows.append(pushed(args.work / "index-1m.db", big, args.backend))
    print_tables(rows, big)
    if served_rows:
        print("\nPushed into PostgreSQL, then searched beside the SQLite file:")
        backend_bench.print_push_table(served_rows)
        backend_bench.print_table(served_rows, MODES)
    return 0


def pushed(db: Path, row: dict, url: str) -> dict:
    """One size's SQLite index pushed to the server and searched beside it."""
    out = {"sessions": row.get("sessions", "synthetic"), "units": row["units"]}
    out.update(backend_bench.pushed_beside(db, url, QUERIES, MODES))
    print(json.dumps(out), file=sys.stderr)
    return out


if __name__ == "__main__":
    raise SystemExit(main())
