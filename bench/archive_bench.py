"""The archive of transcripts on a real corpus: its size against the transcripts', and
what an appended turn costs it.

    python bench/archive_bench.py --roots DIR [DIR ...] --work DIR [--appends 20]

Indexes the Claude Code folders `--roots` into a fresh index in `--work` (no embedding;
the archive keeps Claude Code's transcripts by default), then prints the transcripts'
bytes, the archive's, and their ratio. Then copies the largest transcript into a folder
of its own under `--work` (the corpus is never written), indexes it, and `--appends`
times appends the next turn of it (its lines after a cut, one prompt and what followed
it) and indexes again: the bytes each run read, the bytes it added to the archive, and
whether the copy written back from the archive is the file byte for byte. Exits 0.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from findsession.api import Findsession  # noqa: E402
from findsession.domain import Root  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--roots", nargs="+", required=True, type=Path)
    parser.add_argument("--work", type=Path, default=None)
    parser.add_argument("--appends", type=int, default=20)
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="archive-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    os.environ["FINDSESSION_CONFIG"] = str(work / "none.toml")
    whole(args.roots, work)
    appended(args.roots, work, args.appends)
    return 0


def whole(roots: list[Path], work: Path) -> None:
    db = work / "whole" / "index.db"
    shutil.rmtree(db.parent, ignore_errors=True)
    with Findsession.open(db) as fs:
        started = time.perf_counter()
        report = fs.index([Root(r, "claude-code") for r in roots])
        seconds = time.perf_counter() - started
        files, archived = fs.archive.size()
        transcripts = sum(os.path.getsize(p) for p in fs.archive.held(fs.store.file_states()))
    print("| transcripts | files | archive | share | index run |")
    print("|---:|---:|---:|---:|---:|")
    print(
        f"| {transcripts / 1e6:.1f} MB | {files:,} | {archived / 1e6:.1f} MB |"
        f" {archived / transcripts:.1%} | {seconds:.1f} s ({report.files_read:,} files) |"
    )


def appended(roots: list[Path], work: Path, appends: int) -> None:
    largest = max((p for r in roots for p in r.rglob("*.jsonl")), key=lambda p: p.stat().st_size)
    lines = largest.read_bytes().splitlines(keepends=True)
    prompts = [n for n, raw in enumerate(lines) if _is_prompt(raw)]
    turns = min(appends, len(prompts) - 1)
    cuts = prompts[len(prompts) - turns - 1 :] + [len(lines)] if turns > 0 else [len(lines)]
    folder = work / "appended" / "projects" / "-bench"
    shutil.rmtree(folder.parent.parent, ignore_errors=True)
    folder.mkdir(parents=True)
    copy = folder / largest.name
    copy.write_bytes(b"".join(lines[: cuts[0]]))
    read, added, seconds = [], [], []
    with Findsession.open(work / "appended" / "index.db") as fs:
        root = [Root(folder.parent, "claude-code")]
        fs.index(root)
        for low, high in zip(cuts, cuts[1:], strict=False):
            with open(copy, "ab") as out:
                out.write(b"".join(lines[low:high]))
            started = time.perf_counter()
            report = fs.index(root)
            seconds.append(time.perf_counter() - started)
            read.append((report.bytes_read, sum(len(x) for x in lines[low:high])))
            added.append(report.archived_bytes)
        before = hashlib.sha256(copy.read_bytes()).hexdigest()
        written = b"".join(fs.archive.contents(str(copy)))
    same = hashlib.sha256(written).hexdigest() == before
    print()
    print(f"{len(read)} appended turns of {largest.name} ({largest.stat().st_size / 1e6:.1f} MB):")
    print("| turn (median) | read by the run | added to the archive | run p50 | copy == file |")
    print("|---:|---:|---:|---:|---|")
    print(
        f"| {statistics.median(n for _, n in read):,.0f} |"
        f" {'all and only the new bytes' if all(a == b for a, b in read) else read} |"
        f" {statistics.median(added):,.0f} B ({sum(added) / sum(n for _, n in read):.1%}) |"
        f" {statistics.median(seconds) * 1000:.0f} ms | {same} |"
    )


def _is_prompt(raw: bytes) -> bool:
    try:
        record = json.loads(raw)
    except ValueError:
        return False
    message = record.get("message") if isinstance(record, dict) else None
    return (
        record.get("type") == "user"
        and isinstance(message, dict)
        and isinstance(message.get("content"), str)
    )


if __name__ == "__main__":
    sys.exit(main())
