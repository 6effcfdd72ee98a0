"""What keeping the index honest costs: re-reading edited files and deleting their text.

    python bench/churn.py --sessions 2000 [--src OTHER/src] [--rounds 3]

Builds a synthetic corpus (bench/corpus.py), indexes it (keyword only), then times the
runs whose cost the no-data-lost work changed, each in a fresh process:
- append: one new turn appended to 5% of the files (a grown file is checked by hashing
  the whole prefix it had, not its last KiB);
- rewrite: 5% of the files edited in place, same size, far before their end (read again
  from the start; the keyword index deletes their old terms for good: FTS5 secure-delete);
- no-op: nothing changed (a stat per file);
- forget: 20 sessions forgotten, then the file compacted.
With `--src`, the same runs are timed for another checkout's `src`, each step for both
in turn (A B A B), so the two are compared in one run on one machine. Prints a table of medians.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _run(src: Path, args: list[str], db: Path) -> float:
    env = {**os.environ, "PYTHONPATH": str(src), "FINDSESSION_DB": str(db), "NO_COLOR": "1"}
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "findsession", *args],
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return time.perf_counter() - started


def _files(root: Path) -> list[Path]:
    return sorted(root.rglob("*.jsonl"))


def _sample(corpus: Path, seed: int) -> list[Path]:
    """5% of the files, the same ones in identical trees."""
    files = _files(corpus)
    return random.Random(seed).sample(files, max(1, len(files) // 20))


def _append(paths: list[Path], n: int) -> None:
    line = (
        '{"type":"user","message":{"role":"user","content":"appended question %d about churn"},'
        '"uuid":"churn-%d-%d","sessionId":"x","timestamp":"2026-11-01T00:00:00.000Z"}\n'
    )
    for k, path in enumerate(paths):
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(line % (n, n, k))


def _rewrite(paths: list[Path], n: int) -> None:
    for path in paths:
        data = bytearray(path.read_bytes())
        at = data.find(b'"content":"', 0, max(64, len(data) // 3))
        if at < 0:
            continue
        at += len('"content":"')
        data[at : at + 4] = f"{n % 10000:04d}".encode()
        mtime = path.stat().st_mtime_ns
        path.write_bytes(bytes(data))
        os.utime(path, ns=(mtime + 10**9, mtime + 10**9))


def bench(srcs: dict[str, Path], corpora: dict[str, Path], work: Path, rounds: int) -> dict:
    """Each step for every checkout in turn, so drift on a noisy machine hits both alike."""
    steps = ("first index", "append", "rewrite", "no-op", "forget")
    times: dict[str, dict[str, list[float]]] = {k: {s: [] for s in steps} for k in srcs}
    dbs = {k: work / f"{k}.db" for k in srcs}
    for old in (p for k in srcs for p in work.glob(f"{k}.db*")):
        old.unlink()

    def each(step: str, args: list[str], prepare=None) -> None:  # noqa: ANN001
        for k in srcs:
            if prepare:
                prepare(k)
            times[k][step].append(
                _run(srcs[k], [*args, str(corpora[k])] if args[0] == "index" else args, dbs[k])
            )

    index = ["index", "--no-embed"]
    each("first index", index)
    for n in range(rounds):
        grown = {k: _sample(c, seed=n) for k, c in corpora.items()}
        each("append", index, lambda k, n=n, g=grown: _append(g[k], n))
        edited = {k: _sample(c, seed=100 + n) for k, c in corpora.items()}
        each("rewrite", index, lambda k, n=n, e=edited: _rewrite(e[k], n))
        each("no-op", index)
    ids = [p.stem for p in _files(corpora["this"]) if "subagents" not in p.parts]
    for n in range(rounds):
        batch = [i[:13] for i in ids[n * 20 : (n + 1) * 20]]
        each("forget", ["forget", *batch])
    return {k: {s: statistics.median(v) for s, v in t.items()} for k, t in times.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sessions", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--src", type=Path, help="another checkout's src, timed in turn")
    parser.add_argument("--work", type=Path, default=Path("/tmp/findsession-churn"))
    parser.add_argument(
        "--reuse", action="store_true", help="keep corpora left by an earlier run (edited alike)"
    )
    args = parser.parse_args()
    work = args.work
    work.mkdir(parents=True, exist_ok=True)
    corpora = {"this": work / "corpus-this"}
    srcs = {"this": HERE.parent / "src"}
    if args.src:
        corpora["other"], srcs["other"] = work / "corpus-other", args.src.resolve()
    for corpus in corpora.values():  # the same seed: identical trees, edited identically
        if args.reuse and corpus.exists():
            continue
        shutil.rmtree(corpus, ignore_errors=True)
        subprocess.run(
            [
                sys.executable,
                str(HERE / "corpus.py"),
                str(corpus),
                "--sessions",
                str(args.sessions),
            ],
            check=True,
            stdout=subprocess.DEVNULL,
        )
    results = bench(srcs, corpora, work, args.rounds)
    names = list(results)
    print(f"\n{args.sessions} sessions, median seconds of {args.rounds} runs per step\n")
    head = "| step | " + " | ".join(names) + (" | this/other |" if len(names) == 2 else " |")
    print(head)
    print("|" + "---|" * (len(names) + 1 + (len(names) == 2)))
    for step in results["this"]:
        cells = [f"{results[n][step]:.2f}" for n in names]
        if len(names) == 2:
            cells.append(f"{results['this'][step] / results['other'][step]:.2f}")
        print(f"| {step} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
