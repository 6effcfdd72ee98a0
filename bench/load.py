"""Concurrent searches while an index run writes: searches served, errors, latency.

    python bench/load.py [--threads 8] [--sessions 400] [--work DIR]

Indexes a small corpus, then runs `--threads` search loops (each its own connection, as
separate MCP servers or CLI calls would) while a separate `findsession index` process
writes `--sessions` more sessions into the same file. Every search must succeed and
return exactly what it returned before the writer started (the queries only match the
first corpus). Prints a table; exits 0.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import corpus  # noqa: E402

from findsession.indexing import Root, index_roots  # noqa: E402
from findsession.search.engine import search  # noqa: E402
from findsession.search.filters import SearchOptions  # noqa: E402
from findsession.storage.sqlite import Store  # noqa: E402

QUERIES = ["flaky test fixture", "database migration deadlock", "oauth token", "rebase conflict"]


def run(threads: int, sessions: int, work: Path) -> dict:
    base, extra = work / "base", work / "extra"
    corpus.generate(base, 60, seed=1, projects_under="/home/dev/base/p")
    corpus.generate(extra, sessions, seed=2, projects_under="/home/dev/extra/p")
    db = work / "load.db"
    with Store.open(db) as store:
        index_roots(store, [Root(base, "claude-code")])
        expected = {q: _ids(store, q) for q in QUERIES}
    writer = subprocess.Popen(
        [sys.executable, "-m", "findsession", "index", str(extra), "--no-embed", "--db", str(db)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    latencies: list[float] = []
    errors: list[str] = []
    wrong = 0
    lock = threading.Lock()

    def loop() -> None:
        nonlocal wrong
        with Store.open(db) as store:
            i = 0
            while writer.poll() is None:
                q = QUERIES[i % len(QUERIES)]
                i += 1
                started = time.perf_counter()
                try:
                    got = _ids(store, q)
                except Exception as exc:  # noqa: BLE001 - counted, reported
                    with lock:
                        errors.append(repr(exc))
                    continue
                with lock:
                    latencies.append((time.perf_counter() - started) * 1000)
                    wrong += set(got) != set(expected[q])

    workers = [threading.Thread(target=loop) for _ in range(threads)]
    for w in workers:
        w.start()
    _, err = writer.communicate()
    for w in workers:
        w.join()
    latencies.sort()
    return {
        "threads": threads,
        "writer_sessions": sessions,
        "writer_ok": writer.returncode == 0,
        "writer_error": err.strip()[-200:],
        "searches": len(latencies),
        "errors": len(errors),
        "first_error": errors[0] if errors else "",
        "changed_results": wrong,
        "p50_ms": statistics.median(latencies) if latencies else 0.0,
        "p95_ms": latencies[int(0.95 * (len(latencies) - 1))] if latencies else 0.0,
    }


def _ids(store: Store, query: str) -> list[str]:
    opts = SearchOptions(mode="keyword", project="/home/dev/code", top=10)
    return [
        h.session.id for h in search(store, query, opts).hits if "proj" in (h.session.cwd or "")
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--sessions", type=int, default=400)
    parser.add_argument("--work", type=Path)
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp())
    r = run(args.threads, args.sessions, work)
    print(
        "| threads | sessions written meanwhile | searches | errors | results changed |"
        " p50 ms | p95 ms | writer |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---|")
    print(
        f"| {r['threads']} | {r['writer_sessions']} | {r['searches']} | {r['errors']} |"
        f" {r['changed_results']} | {r['p50_ms']:.1f} | {r['p95_ms']:.1f} |"
        f" {'ok' if r['writer_ok'] else 'FAILED ' + r['writer_error']} |"
    )
    if r["first_error"]:
        print(f"first error: {r['first_error']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
