"""Search under row-level security: a person's role and a colleague's, beside the admin
and beside the SQLite file they were pushed from.

Every person on a team's server searches under row-level security (their own rows, or
a project someone shared); the admin, the schema's owner, is exempt from it. This
measures what that costs: one fresh server, the index pushed by a person's role with
the real CLI, every project shared, then the same warm searches in the local SQLite
file (the same units and vectors), as the admin, as that person and as a colleague
who sees the rows through the shares, interleaved query by query.

    python bench/rls_bench.py --db index-2000.db [--work DIR] [--rounds N] [--keep]
                              [--pushed-by admin] [--shared-buffers 4GB]

Every project is shared, so the person and the colleague read the same rows the same
way (`audience` '', the policy's one condition); only the push differs. `--pushed-by
admin` pushes and shares as the admin's role instead of the person's (row-level
security refuses a person's `COPY`, so the admin's push writes vectors faster). The
rows are then the admin's, shared with everyone, and the person is a second colleague.
At 240k units a person's push took 12 minutes here (schema step 10).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parent))
import speed  # noqa: E402  (bench/speed.py: its queries and modes)
from backend_bench import fresh_server, kept, open_store, people, person_url, push  # noqa: E402

ROLES = ("sqlite", "admin", "person", "colleague")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", type=Path, required=True, help="a local index to push (copied)")
    ap.add_argument("--work", type=Path, default=None, help="folder for the copy and server")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument(
        "--keep",
        action="store_true",
        help="keep the pushed server in --work and search it again on the next run",
    )
    ap.add_argument(
        "--pushed-by",
        choices=("person", "admin"),
        default="person",
        help="the role that shares every project and pushes the index",
    )
    ap.add_argument(
        "--shared-buffers",
        help="the server's shared_buffers (such as 4GB; pgserver's default is 128MB)",
    )
    args = ap.parse_args()
    with fresh_server(args.db, args.work, "rls_bench", args.keep, args.shared_buffers) as (
        admin,
        env,
        local,
    ):
        if args.keep and kept(args.work):
            urls = {"admin": admin, **{n: person_url(admin, n) for n in ("person", "colleague")}}
            print(f"searching the server prepared in {args.work}")
        else:
            urls = {"admin": admin, **people(admin, env, "person", "colleague")}
            _prepare(local, urls[args.pushed_by], env)
            if args.keep:
                (args.work / "prepared").touch()
        times = _timed(local, urls, args.rounds)
        with psycopg.connect(admin, autocommit=True) as db:
            buffers = db.execute("SHOW shared_buffers").fetchone()[0]
    print(f"server shared_buffers {buffers}")
    print(
        "| mode | SQLite p50 / p95 ms | admin (no RLS) p50 / p95 | person p50 / p95 |"
        " colleague p50 / p95 | person / SQLite | person / admin | colleague / person |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for mode in speed.MODES:
        t = times[mode]
        cells = [f"{_pct(t[r], 50):.1f} / {_pct(t[r], 95):.1f}" for r in ROLES]
        ratios = [
            statistics.median(o / a for o, a in zip(t[r], t[base], strict=True))
            for r, base in (("person", "sqlite"), ("person", "admin"), ("colleague", "person"))
        ]
        print(f"| {mode} | {' | '.join(cells)} | {' | '.join(f'{x:.2f}' for x in ratios)} |")


def _prepare(local: Path, url: str, env: dict[str, str]) -> None:
    """Every project of the index shared by the role of `url`, then the index pushed by
    it. Shared first: a project shared after its rows are on the server has each of them
    rewritten (a content row carries whom it is shown to, schema step 7), every index
    entry with it, the vector graph's too; at 240k units, sharing one project of 860
    sessions took over a quarter of an hour."""

    def run(*words: str) -> None:
        subprocess.run(
            [sys.executable, "-m", "findsession", *words], env=env, check=True, capture_output=True
        )

    with open_store(local, None) as store:
        every = sorted(
            r[0] for r in store.query("SELECT DISTINCT cwd FROM sessions WHERE cwd <> ''")
        )
    projects: list[str] = []
    for project in every:  # a shared project covers the folders below it (`bench/multiply.py`)
        if not projects or not project.startswith(projects[-1].rstrip("/") + "/"):
            projects.append(project)
    for project in projects:
        run("share", project, "--backend", url)
    seconds, _ = push(url, env)
    who = url.split("://", 1)[1].split(":", 1)[0]
    print(f"{len(projects)} projects shared, then pushed as {who} in {seconds:.1f} s")


def _timed(local: Path, urls: dict[str, str], rounds: int) -> dict[str, dict[str, list[float]]]:
    """Warm latencies (ms) per mode and role, the roles' order turned each round."""
    from findsession.config import load_config
    from findsession.embeddings import configured_embedder
    from findsession.search.engine import search
    from findsession.search.filters import SearchOptions

    model = configured_embedder(load_config().embedding)
    stores = {role: open_store(local, urls.get(role)) for role in ROLES}
    times: dict[str, dict[str, list[float]]] = {m: {r: [] for r in ROLES} for m in speed.MODES}
    try:
        for store in stores.values():
            for mode in speed.MODES:
                search(store, speed.QUERIES[0], SearchOptions(mode=mode), lambda: model)
        for turn in range(rounds):
            order = ROLES if turn % 2 == 0 else ROLES[::-1]
            for query in speed.QUERIES:
                for mode in speed.MODES:
                    for role in order:
                        started = time.perf_counter()
                        search(stores[role], query, SearchOptions(mode=mode), lambda: model)
                        times[mode][role].append((time.perf_counter() - started) * 1000)
    finally:
        for store in stores.values():
            store.close()
    return times


def _pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * p / 100))]


if __name__ == "__main__":
    main()
