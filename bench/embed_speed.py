"""The embedding stage of a first index, this checkout against another, side by side.

    python bench/embed_speed.py CORPUS --src OTHER/src [--rounds 5] [--forks]
                                [--model all-MiniLM-L6-v2|multilingual-e5-small]

Each checkout indexes CORPUS once without vectors (`index --no-embed`), into a template
database of its own schema. Then, every round, each checkout gets a fresh copy of its
template and embeds it all with a real `findsession index --json` process; the run's own
`embedding` report gives the chunks stored and the seconds the embedding took (model
load included, as a person's first index pays it). The order alternates every round
(A B, B A, ...) so a noisy machine slows both alike, and the table gives each side's
median texts/s and the median of the per-round ratios.

`--forks` adds a second corpus: CORPUS with every Claude Code transcript forked once (its
lines copied under a new session id and new message ids, as a forked session repeats the
turns it was forked from), to measure texts that are embedded once and reused.
Prints tables; exits 0.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import uuid
from collections.abc import Iterable
from pathlib import Path

HERE = Path(__file__).resolve().parent
#: Keys of a Claude Code line that hold session or message ids.
ID_KEYS = ("sessionId", "uuid", "parentUuid", "leafUuid")


def _findsession(src: Path, args: list[str], db: Path, config: Path) -> dict:
    env = {
        **os.environ,
        "PYTHONPATH": str(src),
        "FINDSESSION_DB": str(db),
        "FINDSESSION_CONFIG": str(config),
        "NO_COLOR": "1",
    }
    done = subprocess.run(
        [sys.executable, "-m", "findsession", *args, "--json"],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(done.stdout)


def fork_corpus(corpus: Path, out: Path) -> int:
    """CORPUS copied to `out`, plus a fork of each Claude Code transcript beside it."""
    shutil.rmtree(out, ignore_errors=True)
    shutil.copytree(corpus, out)
    forked = 0
    for path in sorted(out.rglob("*.jsonl")):
        ids: dict[str, str] = {}
        lines = []
        for raw in path.read_text(encoding="utf-8", errors="surrogateescape").splitlines():
            try:
                record = json.loads(raw)
            except ValueError:
                lines.append(raw)  # a broken line stays broken in the fork too
                continue
            if isinstance(record, dict):
                for key in ID_KEYS:
                    if isinstance(record.get(key), str):
                        record[key] = ids.setdefault(record[key], str(uuid.uuid4()))
            lines.append(json.dumps(record, ensure_ascii=False))
        if not ids:
            continue  # not a Claude Code transcript
        name = ids.get(path.stem, f"fork-{path.stem}")
        target = path.with_name(f"{name}.jsonl")
        target.write_text("\n".join(lines) + "\n", encoding="utf-8", errors="surrogateescape")
        forked += 1
    return forked


def _remove(paths: Iterable[Path]) -> None:
    """An index's files: the database, its journals and its archive folder."""
    for path in paths:
        if path.is_dir():
            shutil.rmtree(path)
        else:
            path.unlink()


def bench(
    srcs: dict[str, Path], corpus: Path, work: Path, config: Path, rounds: int
) -> dict[str, list[dict]]:
    """Each checkout's embedding reports, one per round, alternating which goes first."""
    templates = {}
    for name, src in srcs.items():
        templates[name] = work / f"{name}-{corpus.name}-template.db"
        _remove(work.glob(f"{templates[name].name}*"))
        _findsession(src, ["index", str(corpus), "--no-embed"], templates[name], config)
    reports: dict[str, list[dict]] = {name: [] for name in srcs}
    order = list(srcs)
    for n in range(rounds):
        for name in order if n % 2 == 0 else order[::-1]:
            db = work / f"{name}-run.db"
            _remove(work.glob(f"{db.name}*"))
            shutil.copy(templates[name], db)
            run = _findsession(srcs[name], ["index", str(corpus)], db, config)
            reports[name].append(run["embedding"])
            e = run["embedding"]
            print(
                f"  {corpus.name} round {n} {name}: {e['chunks']} chunks in {e['seconds']:.1f}s,"
                f" {e['chunks'] / e['seconds']:.1f} texts/s",
                file=sys.stderr,
                flush=True,
            )
    return reports


def table(corpus: str, reports: dict[str, list[dict]]) -> None:
    this, other = reports["this"], reports["other"]
    rate = {k: [e["chunks"] / e["seconds"] for e in v] for k, v in reports.items()}
    ratios = [a / b for a, b in zip(rate["this"], rate["other"], strict=True)]
    reused = this[0].get("reused", 0)
    print(f"\n{corpus}: {this[0]['units']} units, {this[0]['chunks']} chunks\n")
    print("| checkout | texts/s (median) | texts run through the model | seconds (median) |")
    print("|---|---:|---:|---:|")
    for name, runs in (("other", other), ("this", this)):
        ran = runs[0]["chunks"] - runs[0].get("reused", 0)
        seconds = statistics.median(e["seconds"] for e in runs)
        print(f"| {name} | {statistics.median(rate[name]):.1f} | {ran} | {seconds:.1f} |")
    print(
        f"\nthis/other texts/s: median {statistics.median(ratios):.2f}"
        f" (rounds: {', '.join(f'{r:.2f}' for r in ratios)}); reused here: {reused}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("corpus", type=Path, help="a folder of Claude Code transcripts")
    parser.add_argument("--src", type=Path, required=True, help="the other checkout's src")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--model", default="all-MiniLM-L6-v2")
    parser.add_argument("--forks", action="store_true", help="also a corpus of forked sessions")
    parser.add_argument("--work", type=Path, default=Path("/tmp/findsession-embed-speed"))
    args = parser.parse_args()
    work = args.work
    work.mkdir(parents=True, exist_ok=True)
    config = work / "config.toml"
    config.write_text(f'[embedding]\nprovider = "bundled"\nmodel = "{args.model}"\n')
    srcs = {"this": HERE.parent / "src", "other": args.src.resolve()}
    corpora = [args.corpus.resolve()]
    if args.forks:
        corpora.append(work / "forked")
        print(f"forked {fork_corpus(corpora[0], corpora[1])} transcripts", file=sys.stderr)
    results = {c.name: bench(srcs, c, work, config, args.rounds) for c in corpora}
    print(f"\nembedding with {args.model}, {args.rounds} rounds, this vs other in turn")
    for corpus, reports in results.items():
        table(corpus, reports)
    return 0


if __name__ == "__main__":
    sys.exit(main())
