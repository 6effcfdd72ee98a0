"""An agent's SQLite store, indexed once and then again after one session changed.

    python bench/store_reread.py [--sessions 500] [--messages 40] [--repeat 5]

Builds a Crush `crush.db` and a Kiro CLI `data.sqlite3` of `--sessions` sessions of
`--messages` messages each (WAL mode, the writer's connection held open, as the agents
do), indexes each with the real pipeline (no embedding), then `--repeat` times adds one
message to one session and indexes again, and finally indexes with nothing changed.
Prints, per store, the seconds and rows read of the first run and the median of the
one-session runs, and their ratio; exits 0.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from crush_store import CrushStore, call, result, text  # noqa: E402
from kiro_store import KiroStore, prompt, reply  # noqa: E402

from findsession.indexing import Root, index_roots  # noqa: E402
from findsession.storage.sqlite import Store  # noqa: E402

WORDS = [
    "anchor",
    "basalt",
    "cedar",
    "delta",
    "ember",
    "fjord",
    "garnet",
    "harbor",
    "ingot",
    "juniper",
    "kelp",
    "lumen",
]


def sentence(n: int, k: int) -> str:
    return " ".join(WORDS[(n * 7 + i * 3 + k) % len(WORDS)] for i in range(30))


def crush(folder: Path, sessions: int, messages: int) -> tuple[Path, Callable[[int], None]]:
    db = CrushStore(folder / ".crush" / "crush.db")
    db.conn.execute("BEGIN")
    for s in range(sessions):
        sid = db.session(f"s-{s}", f"session {s}")
        for m in range(messages // 4):
            db.message(sid, "user", [text(sentence(s, m))])
            db.message(sid, "assistant", [text(sentence(m, s)), call(f"c{s}-{m}", "view", {})])
            db.message(sid, "tool", [result(f"c{s}-{m}", "view", sentence(s + m, 1))])
            db.message(sid, "assistant", [text(sentence(s, m + 1))])
    db.conn.execute("COMMIT")

    def change(n: int) -> None:
        db.message("s-0", "user", [text(f"change {n} " + sentence(n, 2))])

    return db.path.parent, change


def kiro(folder: Path, sessions: int, messages: int) -> tuple[Path, Callable[[int], None]]:
    db = KiroStore(folder / "data.sqlite3")
    histories = {}
    db.conn.execute("BEGIN")
    for s in range(sessions):
        history = [
            {"user": prompt(sentence(s, m), "/w"), "assistant": reply(f"m{m}", sentence(m, s))}
            for m in range(messages // 2)
        ]
        histories[s] = history
        db.put("/w", f"c-{s}", history)
    db.conn.execute("COMMIT")

    def change(n: int) -> None:
        histories[0].append({"user": prompt(f"change {n}", "/w"), "assistant": reply("x", "ok")})
        db.put("/w", "c-0", histories[0])

    return folder, change


def run(store: Store, root: Root) -> tuple[float, int, int]:
    started = time.perf_counter()
    report = index_roots(store, [root])
    return time.perf_counter() - started, report.lines_read, report.sessions_changed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sessions", type=int, default=500)
    parser.add_argument("--messages", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print(f"{args.sessions} sessions x {args.messages} messages")
    print(f"{'store':6} {'run':22} {'seconds':>8} {'rows read':>10} {'sessions':>9}")
    for kind, build in (("crush", crush), ("kiro", kiro)):
        with tempfile.TemporaryDirectory() as tmp:
            folder, change = build(Path(tmp) / "agent", args.sessions, args.messages)
            with Store.open(Path(tmp) / "index.db") as store:
                root = Root(folder, kind)
                first = run(store, root)
                again = []
                for n in range(args.repeat):
                    change(n)
                    again.append(run(store, root))
                still = run(store, root)
            median = statistics.median(a[0] for a in again)
            rows = [
                ("first (all sessions)", first),
                (f"one changed (median {args.repeat})", (median, *again[-1][1:])),
                ("nothing changed", still),
            ]
            for name, (secs, read, changed) in rows:
                print(f"{kind:6} {name:22} {secs:8.3f} {read:10} {changed:9}")
            print(f"{kind:6} {'first / one changed':22} {first[0] / median:8.1f}x")


if __name__ == "__main__":
    main()
