"""What one watcher round costs when an agent writes a file of a project's own code.

    PYTHONPATH=TREE/src python bench/watcher_paths.py [--projects 300] [--files 20]

Builds a folder of `--projects` projects, each with `--files` source files and an Aider
chat history, names it as an Aider root (as `[sources.aider] roots = ["~/code"]`
does), indexes it, then `--repeat` times rewrites one source file and runs the index
over that changed path alone, as the resident service's watcher does. Prints whether
the round fell back to a full scan, the files it looked at, and its median time. Run
it once per tree (PYTHONPATH) to compare two checkouts side by side.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from findsession.domain import Root
from findsession.indexing import index_roots
from findsession.storage.sqlite import Store

HISTORY = Path(__file__).resolve().parents[1] / "tests/fixtures/aider/weather-station"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--projects", type=int, default=300)
    parser.add_argument("--files", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=9)
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp())
    code = base / "code"
    for p in range(args.projects):
        src = code / f"project{p}" / "src"
        src.mkdir(parents=True)
        for f in range(args.files):
            (src / f"module{f}.py").write_text("x = 1\n", encoding="utf-8")
        shutil.copyfile(HISTORY / ".aider.chat.history.md", src.parent / ".aider.chat.history.md")
    roots = [Root(code, "aider")]
    with Store.open(base / "index.db") as store:
        index_roots(store, roots)
        written = code / "project7" / "src" / "module3.py"
        times, report = [], None
        for i in range(args.repeat):
            written.write_text(f"x = {i}\n", encoding="utf-8")
            started = time.perf_counter()
            report = index_roots(store, roots, only=[str(written)])
            times.append(time.perf_counter() - started)
    assert report is not None
    print("| projects | files | full scan | files looked at | median ms |")
    print("|---:|---:|---|---:|---:|")
    print(
        f"| {args.projects} | {args.projects * (args.files + 1)} | {report.full_scan} "
        f"| {report.files_seen} | {statistics.median(times) * 1000:.1f} |"
    )
    shutil.rmtree(base)


if __name__ == "__main__":
    main()
