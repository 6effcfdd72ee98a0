"""A larger index from a smaller one, every session copied as it is stored: what the
240k-unit comparisons search, without indexing 8 GB of transcripts again.

    python bench/multiply.py --db index-2000.db --times 10 --out index-2000x10.db

`bench/speed.py` builds an index of a generated corpus (`index-2000.db`: 2,852 sessions,
23,316 units, the vectors random in the bundled model's identity); indexing the
20,000-session corpus took 15 minutes on an idle machine and far longer on a shared
one. Here the file is copied and each of its sessions written `times - 1` more times
with a suffix on its id and on its project (`/home/dev/p3` → `/home/dev/p3/c2`), so a
project filter keeps one copy's sessions: units with their text (the keyword indexes
fill by their triggers), vectors and `embedded` marks as stored, in set-based
statements, no model run. The copies' times move a day per copy, so "newest first"
does not tie. Words and their document frequencies grow `times`-fold, as in a corpus
that size with the same vocabulary; the ratios between two backends searching the same
copy are what the comparisons use.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path

from findsession.storage.sqlite import Store

_SESSION_COLUMNS = (
    "source, file_path, is_subagent, agent_type, agent_description, git_branch, version,"
    " title, n_messages, n_turns, missing"
)
_UNIT_COLUMNS = "kind, ordinal, source, title, prompt, reply, tools, tool_names, files, hash"


def _later(column: str, days: int) -> str:
    """An ISO time `days` later (NULL stays NULL)."""
    return f"strftime('%Y-%m-%dT%H:%M:%SZ', {column}, '+{days} days')"


def multiply(store: Store, times: int) -> None:
    with store.transaction():
        store.execute("CREATE TEMP TABLE originals AS SELECT id FROM sessions")
    #: Each copy's unit beside the original's, by (session, kind, ordinal).
    pairs = (
        "JOIN units n ON n.session_id = o.session_id || ? AND n.kind = o.kind"
        " AND n.ordinal = o.ordinal WHERE o.session_id IN (SELECT id FROM originals)"
    )
    for copy in range(2, times + 1):
        suffix = f"-c{copy}"
        started = time.perf_counter()
        with store.transaction():
            store.execute(
                f"INSERT INTO sessions (id, parent_id, cwd, first_ts, last_ts, {_SESSION_COLUMNS})"
                f" SELECT id || ?, parent_id || ?, cwd || ?, {_later('first_ts', copy)},"
                f" {_later('last_ts', copy)}, {_SESSION_COLUMNS} FROM sessions"
                " WHERE id IN (SELECT id FROM originals)",
                (suffix, suffix, f"/c{copy}"),
            )
            store.execute(
                f"INSERT INTO units (session_id, ts, {_UNIT_COLUMNS})"
                f" SELECT session_id || ?, {_later('ts', copy)}, {_UNIT_COLUMNS} FROM units"
                " WHERE session_id IN (SELECT id FROM originals) ORDER BY id",
                (suffix,),
            )
            store.execute(
                "INSERT INTO chunks (unit_id, field, span_start, span_end, scale, vec, code,"
                " text_hash) SELECT n.id, c.field, c.span_start, c.span_end, c.scale, c.vec,"
                f" c.code, c.text_hash FROM chunks c JOIN units o ON o.id = c.unit_id {pairs}"
                " ORDER BY c.id",
                (suffix,),
            )
            store.execute(
                "INSERT INTO embedded (unit_id, chunks) SELECT n.id, e.chunks"
                f" FROM embedded e JOIN units o ON o.id = e.unit_id {pairs}",
                (suffix,),
            )
            store.bump_vector_generation()
        print(f"copy {copy}: {time.perf_counter() - started:.0f} s", file=sys.stderr)
    with store.transaction():
        store.pack_vectors()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", type=Path, required=True, help="the index to multiply (copied)")
    ap.add_argument("--times", type=int, default=10)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    if args.out.exists():
        raise SystemExit(f"{args.out} exists")
    shutil.copyfile(args.db, args.out)
    with Store.open(args.out) as store:
        multiply(store, args.times)
        counts = [store.scalar(f"SELECT count(*) FROM {t}") for t in ("sessions", "units")]
        print(f"{args.out}: {counts[0]} sessions, {counts[1]} units")


if __name__ == "__main__":
    main()
