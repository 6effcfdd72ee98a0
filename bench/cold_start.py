"""A cold `findsession` process against another tree's, side by side: start-up and search.

    python bench/cold_start.py --db INDEX --baseline OTHER/src [--pairs 9] [--check 8]

Runs whole `python -m findsession` processes (no resident service, nothing warm but the
OS page cache) with this tree's `src` and the `--baseline` tree's on PYTHONPATH, one of
each in turn and the order swapped every pair (A B, B A, ...), so the noise of a shared
machine falls on both alike. Commands: `--version`, `--help`, `status`, `read` of the
first keyword hit, a keyword-only search and a hybrid search with the default model.
Prints, per command, both medians of wall seconds and CPU seconds (user + system) and
the median of the pair ratios (this tree / baseline).

Before timing, `--check` queries run once through each tree with `--json` and their
output is compared whole (the search JSON holds no timing);
a difference is printed and the exit status is 1.

A search records the list it showed for `open N`, so INDEX is written to: give a copy.
The config file is one that does not exist (every setting at its default).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parents[1] / "src"
QUERIES = [
    "flaky test fixture timing out",
    "the deploy that lied about being live",
    "why does the migration deadlock",
    "oauth token refresh broken",
    "ValueError: invalid literal",
    "merge conflict during rebase",
    "docker image dns failure",
    "password reset 2fa",
]
HYBRID = QUERIES[0]


def commands(query: str, session: str) -> dict[str, list[str]]:
    return {
        "`findsession --version`": ["--version"],
        "`findsession --help`": ["--help"],
        "cold `status`": ["status"],
        "cold `read` (a whole session)": ["read", session],
        "cold `search --mode keyword`": ["search", "--mode", "keyword", query],
        "cold `search` (hybrid, e5)": [query],
    }


def run(src: Path, args: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """Wall seconds, CPU seconds and stdout of one process with `src` first on its path."""
    env = {**env, "PYTHONPATH": str(src)}
    with tempfile.TemporaryFile("w+") as out:
        started = os.times()
        proc = subprocess.run(
            [sys.executable, "-m", "findsession", *args],
            env=env,
            stdout=out,
            stderr=subprocess.DEVNULL,
            check=False,
        )
        ended = os.times()
        if proc.returncode not in (0, 2):  # 2: bare `--help` exits as argparse does
            raise SystemExit(f"{src}: findsession {args} exited {proc.returncode}")
        out.seek(0)
        text = out.read()
    wall = ended.elapsed - started.elapsed
    cpu = (ended.children_user - started.children_user) + (
        ended.children_system - started.children_system
    )
    return wall, cpu, text


def same_results(baseline: Path, env: dict[str, str], queries: list[str]) -> bool:
    """Each query's `--json` answer from both trees, compared whole."""
    same = True
    for query in queries:
        answers = [json.loads(run(src, [query, "--json"], env)[2]) for src in (baseline, HERE)]
        if answers[0] != answers[1]:
            same = False
            print(f"DIFFERENT: {query!r}")
    print(f"{len(queries)} queries' --json: {'identical' if same else 'DIFFERENT'}")
    return same


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--db", required=True, help="an index (a copy: searches write to it)")
    ap.add_argument("--baseline", required=True, type=Path, help="the other tree's src folder")
    ap.add_argument("--pairs", type=int, default=9)
    ap.add_argument("--check", type=int, default=len(QUERIES), help="queries compared")
    args = ap.parse_args()
    env = {
        **os.environ,
        "FINDSESSION_DB": args.db,
        "FINDSESSION_CONFIG": str(Path(tempfile.gettempdir()) / "no-such-findsession.toml"),
    }
    ok = same_results(args.baseline, env, QUERIES[: args.check])
    print(f"\n{args.pairs} pairs, order swapped every pair; seconds, medians\n")
    print("| command | baseline wall | this wall | this/baseline | baseline cpu | this cpu |")
    print("|---|---:|---:|---:|---:|---:|")
    first = json.loads(run(HERE, ["search", "--json", "--mode", "keyword", HYBRID], env)[2])
    for name, argv in commands(HYBRID, first["results"][0]["session"]["id"]).items():
        times: dict[Path, list[tuple[float, float]]] = {args.baseline: [], HERE: []}
        ratios = []
        for pair in range(args.pairs):
            order = (args.baseline, HERE) if pair % 2 == 0 else (HERE, args.baseline)
            got = {src: run(src, argv, env)[:2] for src in order}
            for src, measured in got.items():
                times[src].append(measured)
            ratios.append(got[HERE][0] / got[args.baseline][0])
        base, this = times[args.baseline], times[HERE]
        print(
            f"| {name} | {statistics.median(w for w, _ in base):.3f}"
            f" | {statistics.median(w for w, _ in this):.3f} | {statistics.median(ratios):.2f}"
            f" | {statistics.median(c for _, c in base):.3f}"
            f" | {statistics.median(c for _, c in this):.3f} |"
        )
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
