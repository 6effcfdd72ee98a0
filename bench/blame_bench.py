"""`findsession blame` at a heavy user's scale: warm and cold latency at 240k units.

    python bench/blame_bench.py [--work DIR] [--units 240000] [--repeat 30]

Builds (once, kept in --work) an index written straight into the store, as
`bench/speed.py --million` does: sessions of ten turn units with text from
`bench/corpus.py`'s generator, 50 projects of 400 files each, and the files each session
wrote as the indexer stores them (`indexing/writes.py`'s rows: about seven a session,
Edit-sized and Write-sized texts of code-like lines). File names follow what real
projects repeat: every project has a README.md, an __init__.py in most folders, a
config and a utils module, so a common name has thousands of writes across projects
and the lookup has to sort them out. Then, in one process (warm) and as a `findsession
blame` process (cold), it traces:
- a rare file (a project's own module), whole and with a 10-line range;
- a common name (one project's README.md among every project's), whole and ranged;
- a file no session wrote.
Prints a table of p50/p95 ms; exits 0.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import corpus  # noqa: E402  (bench/corpus.py, a sibling script)

from findsession.api import BlameOptions, Findsession  # noqa: E402
from findsession.domain import Session  # noqa: E402
from findsession.indexing.writes import absolute, file_name  # noqa: E402
from findsession.storage.base import WriteRow  # noqa: E402
from findsession.storage.sqlite import Store, UnitRow  # noqa: E402

PROJECTS = 50
FILES_PER_PROJECT = 400
PER_SESSION = 10
#: Folders a project's files sit in; each holds an __init__.py.
FOLDERS = ["src", "src/api", "src/core", "src/db", "src/web", "tests", "scripts", "docs"]
COMMON = ["README.md", "config.py", "utils.py", "package.json", "Makefile"]


def project_files(rng: random.Random, root: str) -> list[str]:
    files = [f"{root}/{name}" for name in COMMON]
    files += [f"{root}/{folder}/__init__.py" for folder in FOLDERS]
    while len(files) < FILES_PER_PROJECT:
        folder = rng.choice(FOLDERS)
        stem = "_".join(rng.sample(["user", "order", "cart", "price", "auth", "cache", "queue",
                                    "job", "report", "tax", "mail", "sync", "store", "view",
                                    "model", "form", "route", "token"], 2))  # fmt: skip
        files.append(f"{root}/{folder}/{stem}_{len(files)}.py")
    return files


def code(rng: random.Random, lines: int) -> str:
    words = ["total", "price", "items", "order", "user", "cache", "result", "value", "rows"]
    out = []
    for n in range(lines):
        a, b = rng.sample(words, 2)
        out.append(f"    {a}_{n} = compute_{b}({a}, {rng.randint(0, 999)})")
    return "\n".join(out)


def build(db: Path, roots: Path, units: int) -> tuple[int, int]:
    """The synthetic index; (sessions, writes)."""
    rng = random.Random(7)
    files = [project_files(rng, str(roots / f"p{k}")) for k in range(PROJECTS)]
    sessions = units // PER_SESSION
    writes = 0
    started = time.perf_counter()
    with Store.open(db) as store:
        for s in range(sessions):
            if s % 2000 == 0:
                if s:
                    store.db.execute("COMMIT")
                store.db.execute("BEGIN")
            topic, things = rng.choice(corpus.TOPICS)
            sid = f"synthetic-{s:07d}"
            project = s % PROJECTS
            cwd = str(roots / f"p{project}")
            ts = f"2025-{1 + s % 12:02d}-{1 + s % 28:02d}T{s % 24:02d}:00:00Z"
            store.save_session(
                Session(sid, "claude-code", None, cwd, f"{topic} {things[0]}", ts, ts,
                        n_turns=PER_SESSION)  # fmt: skip
            )
            store.sync_units(sid, [
                UnitRow("turn", i + 1, "claude-code", ts, "",
                        corpus.fill(rng, rng.choice(corpus.ASKS), topic, things),
                        corpus.fill(rng, rng.choice(corpus.REPLIES), topic, things), "", [], [])
                for i in range(PER_SESSION)
            ])  # fmt: skip
            rows = []
            for seq in range(max(0, round(rng.lognormvariate(1.7, 0.7)))):
                path = rng.choice(files[project][:40] if rng.random() < 0.5 else files[project])
                whole = rng.random() < 0.3
                rows.append(WriteRow(
                    turn=rng.randint(1, PER_SESSION), seq=seq, ts=ts, tool="Write" if whole
                    else "Edit", op="create" if whole else "edit", path=path,
                    abs_path=absolute(path, cwd), name=file_name(path), cwd=cwd,
                    text=code(rng, 40 if whole else 6), removed="" if whole else code(rng, 4),
                    truncated=whole and rng.random() < 0.4))  # fmt: skip
            store.save_file_writes(sid, rows)
            writes += len(rows)
        store.db.execute("COMMIT")
    print(f"built {sessions} sessions, {writes} writes in {time.perf_counter() - started:.0f} s",
          file=sys.stderr)  # fmt: skip
    return sessions, writes


def targets(db: Path, roots: Path) -> dict[str, tuple[str, int | None, int | None]]:
    """The files traced, made real on disk (a range is read from the file as it is now)."""
    with Store.open(db) as store:
        common = ", ".join(f"'{name}'" for name in [*COMMON, "__init__.py"])
        rare = store.query(
            f"SELECT abs_path, count(*) n FROM file_writes WHERE name NOT IN ({common})"
            " GROUP BY abs_path ORDER BY n DESC LIMIT 1"
        )[0][0]
        readme = str(roots / "p3" / "README.md")
        texts = {}
        for path in (rare, readme):
            (text,) = store.query(
                "SELECT text FROM file_writes WHERE abs_path = ? ORDER BY ts DESC, seq DESC"
                " LIMIT 1",
                (path,),
            )[0]
            texts[path] = text
        readmes = store.scalar("SELECT count(*) FROM file_writes WHERE name = 'README.md'")
    for path, text in texts.items():
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text("# header\n" + text + "\n")
    print(f"README.md: {readmes} writes in all projects", file=sys.stderr)
    return {
        "rare file, whole": (rare, None, None),
        "rare file, 10 lines": (rare, 2, 11),
        "common name, whole": (readme, None, None),
        "common name, 10 lines": (readme, 2, 11),
        "never written": (str(roots / "p3" / "nobody.py"), None, None),
    }


def warm(db: Path, cases: dict, repeat: int) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {}
    with Findsession.open(db) as fs:
        for name, (path, first, last) in cases.items():
            fs.blame(path, BlameOptions(first, last))  # warm-up
            times = []
            for _ in range(repeat):
                t = time.perf_counter()
                result = fs.blame(path, BlameOptions(first, last))
                times.append((time.perf_counter() - t) * 1000)
            out[name] = times
            print(f"{name}: {result.total} writes matched", file=sys.stderr)
    return out


def cold(db: Path, cases: dict, repeat: int) -> dict[str, list[float]]:
    env = {**os.environ, "FINDSESSION_DB": str(db), "FINDSESSION_NO_SERVICE": "1"}
    out: dict[str, list[float]] = {}
    for name, (path, first, last) in cases.items():
        target = path if first is None else f"{path}:{first}-{last}"
        times = []
        for _ in range(max(3, repeat // 6)):
            t = time.perf_counter()
            subprocess.run([sys.executable, "-m", "findsession", "blame", target, "--json"],
                           env=env, check=True, capture_output=True)  # fmt: skip
            times.append((time.perf_counter() - t) * 1000)
        out[name] = times
    return out


def pct(values: list[float], p: int) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[p - 1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--work", type=Path, default=Path("/tmp/findsession-blame-bench"))
    parser.add_argument("--units", type=int, default=240_000)
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    db = args.work / f"index-{args.units}.db"
    roots = args.work / "projects"
    if not db.exists():
        build(db, roots, args.units)
    with Store.open(db) as store:
        units = store.scalar("SELECT count(*) FROM units")
        writes = store.scalar("SELECT count(*) FROM file_writes")
    cases = targets(db, roots)
    hot, fresh = warm(db, cases, args.repeat), cold(db, cases, args.repeat)
    print(f"\n{units} units, {writes} files written, DB {db.stat().st_size / 1e6:.0f} MB\n")
    print("| trace | warm p50 ms | warm p95 ms | cold CLI p50 ms |")
    print("|---|---:|---:|---:|")
    for name in cases:
        print(f"| {name} | {pct(hot[name], 50):.1f} | {pct(hot[name], 95):.1f} |"
              f" {statistics.median(fresh[name]):.0f} |")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
