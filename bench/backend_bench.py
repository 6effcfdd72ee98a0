"""The PostgreSQL backend beside SQLite, for `bench/speed.py --backend URL`.

The URL names a database this benchmark may empty: its `findsession` schema is dropped
before each size is indexed into it. Both indexes of a size are then searched in one
process, query by query, alternating which backend goes first, so the machine's noise
falls on both alike; the table gives each side's p50/p95 and the median of the per-query
ratios.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from findsession.storage import Storage, open_storage


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
