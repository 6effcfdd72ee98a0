"""What a Cursor IDE database costs an index run when little or nothing changed.

    python bench/cursor_tokens.py [--composers 2000] [--bubbles 50] [--rounds 7]

Builds a `state.vscdb` the way Cursor lays it out (`cursorDiskKV`, WAL mode): N
composers of about 12 KB each (headers plus the context Cursor keeps) and B bubbles of
about 2 KB per composer. Then times, alternating the variants round by round so the
noisy machine weighs on each alike:
- tokens: the shipped change-token statement (`cursor_ide_db.composer_tokens`: bubbles
  counted from the key index, the composer's `lastUpdatedAt` found by `instr`);
- tokens, grouped: the bubble keys of the index range grouped by their composer (a sort
  of every key) instead of one index range per composer;
- tokens, json_extract + LIKE: the obvious statement (`json_extract` of every
  composer's value, bubbles grouped from `key LIKE 'bubbleId:%'`), for comparison;
- unchanged run: `read_store` with the cursor of the previous read (open, tokens,
  compare: what every index run pays while Cursor writes other state);
- one chat changed: the same after a bubble was added to one composer;
- first read: every composer read whole (once).
Prints the median of each, in milliseconds.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from findsession.sources import cursor_ide_db, foreign_db  # noqa: E402
from findsession.sources.cursor_ide_store import read_store  # noqa: E402

_NAIVE = """
SELECT substr(c.key, 14), json_extract(c.value, '$.lastUpdatedAt'), b.n
FROM cursorDiskKV AS c LEFT JOIN (
    SELECT substr(key, 10, instr(substr(key, 10), ':') - 1) AS composer, count(*) AS n
    FROM cursorDiskKV WHERE key LIKE 'bubbleId:%' GROUP BY composer
) AS b ON b.composer = substr(c.key, 14)
WHERE c.key LIKE 'composerData:%'
"""


_GROUPED = """
WITH bubbles AS (
    SELECT substr(key, 10, instr(substr(key, 10), ':') - 1) AS composer,
           count(*) AS n, max(rowid) AS last
    FROM cursorDiskKV WHERE key >= 'bubbleId:' AND key < 'bubbleId;' GROUP BY composer
)
SELECT substr(c.key, 14), c.rowid,
       substr(c.value, nullif(instr(c.value, '"lastUpdatedAt":'), 0) + 16, 16), b.n, b.last
FROM cursorDiskKV AS c LEFT JOIN bubbles AS b ON b.composer = substr(c.key, 14)
WHERE c.key >= 'composerData:' AND c.key < 'composerData;'
"""


def build(path: Path, composers: int, bubbles: int) -> None:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode = wal")
    for table in ("ItemTable", "cursorDiskKV"):
        conn.execute(f"CREATE TABLE {table} (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
    filler = "lorem ipsum dolor sit amet " * 70  # ~1.9 KB of message text
    conn.execute("BEGIN")
    for c in range(composers):
        cid = f"{c:08x}-0000-4000-8000-000000000000"
        headers = []
        for b in range(bubbles):
            bid = f"{cid[:8]}-{b:04x}"
            kind = 1 if b % 2 == 0 else 2
            bubble = {"_v": 3, "bubbleId": bid, "type": kind, "text": f"message {b} {filler}"}
            conn.execute(
                "INSERT INTO cursorDiskKV VALUES (?, ?)",
                (f"bubbleId:{cid}:{bid}", json.dumps(bubble)),
            )
            headers.append({"bubbleId": bid, "type": kind, "serverBubbleId": bid})
        data = {
            "_v": 10,
            "composerId": cid,
            "name": f"chat {c}",
            "createdAt": 1_767_000_000_000 + c,
            "lastUpdatedAt": 1_767_000_000_000 + c * 1000,
            "context": {"fileSelections": [{"uri": "file:///x" * 40}] * 20},
            "fullConversationHeadersOnly": headers,
        }
        conn.execute(
            "INSERT INTO cursorDiskKV VALUES (?, ?)", (f"composerData:{cid}", json.dumps(data))
        )
    conn.execute("COMMIT")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()


def add_bubble(path: Path, n: int) -> None:
    """One more bubble in the first composer, as Cursor writes it."""
    conn = sqlite3.connect(path, isolation_level=None)
    cid = "00000000-0000-4000-8000-000000000000"
    key = f"composerData:{cid}"
    data = json.loads(
        conn.execute("SELECT value FROM cursorDiskKV WHERE key = ?", (key,)).fetchone()[0]
    )
    bid = f"extra-{n}"
    bubble = {"_v": 3, "bubbleId": bid, "type": 1, "text": f"one more message {n}"}
    conn.execute(
        "INSERT INTO cursorDiskKV VALUES (?, ?)", (f"bubbleId:{cid}:{bid}", json.dumps(bubble))
    )
    data["fullConversationHeadersOnly"].append({"bubbleId": bid, "type": 1})
    data["lastUpdatedAt"] += 1
    conn.execute("INSERT INTO cursorDiskKV VALUES (?, ?)", (key, json.dumps(data)))
    conn.close()


def timed(step: Callable[[], object]) -> float:
    started = time.perf_counter()
    step()
    return (time.perf_counter() - started) * 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--composers", type=int, default=2000)
    ap.add_argument("--bubbles", type=int, default=50)
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "state.vscdb"
        started = time.perf_counter()
        build(db, args.composers, args.bubbles)
        size = db.stat().st_size
        print(
            f"state.vscdb: {args.composers} composers x {args.bubbles} bubbles,"
            f" {size / 2**20:.0f} MB, built in {time.perf_counter() - started:.0f} s"
        )

        def folder(_: dict[str, object]) -> None:
            return None

        def tokens() -> object:
            with foreign_db.reading(db) as conn:
                return cursor_ide_db.composer_tokens(conn)

        def naive() -> object:
            with foreign_db.reading(db) as conn:
                return conn.execute(_NAIVE).fetchall()

        def grouped() -> object:
            with foreign_db.reading(db) as conn:
                return conn.execute(_GROUPED).fetchall()

        started = time.perf_counter()
        first = read_store(db, None, "cursor", folder)
        first_ms = (time.perf_counter() - started) * 1000
        print(f"first read: {len(first.records)} records from {first.lines_read} rows")
        state = {"cursor": first.cursor, "n": 0}

        def unchanged() -> object:
            reading = read_store(db, state["cursor"], "cursor", folder)
            assert reading.unchanged
            return reading

        def one_changed() -> object:
            state["n"] += 1
            add_bubble(db, state["n"])  # not timed: see below
            return None

        results: dict[str, list[float]] = {
            k: [] for k in ("tokens", "grouped", "naive", "unchanged", "one")
        }
        for _ in range(args.rounds):
            results["tokens"].append(timed(tokens))
            results["grouped"].append(timed(grouped))
            results["naive"].append(timed(naive))
            results["unchanged"].append(timed(unchanged))
            one_changed()
            started = time.perf_counter()
            reading = read_store(db, state["cursor"], "cursor", folder)
            results["one"].append((time.perf_counter() - started) * 1000)
            assert len(reading.replaced) == 1, reading.replaced
            state["cursor"] = reading.cursor
        rows = [
            ("tokens (shipped statement)", "tokens"),
            ("tokens, grouped", "grouped"),
            ("tokens, json_extract + LIKE", "naive"),
            ("unchanged run (read_store)", "unchanged"),
            ("one chat changed (read_store)", "one"),
        ]
        print(f"\n| step ({args.rounds} rounds) | median ms |\n|---|---|")
        for label, key in rows:
            print(f"| {label} | {statistics.median(results[key]):.1f} |")
        print(f"| first read, every chat (once) | {first_ms:.0f} |")
        print()
        for label, key in (("grouped", "grouped"), ("json_extract + LIKE", "naive")):
            pairs = zip(results[key], results["tokens"], strict=True)
            ratio = statistics.median(other / ours for other, ours in pairs)
            print(f"{label} / shipped, median of pairwise ratios: {ratio:.2f}")


if __name__ == "__main__":
    main()
