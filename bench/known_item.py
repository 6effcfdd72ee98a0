"""Known-item search: "which session was that?", scored per kind of query and per source.

    python bench/known_item.py [--data ../shared/benchmarks/known-item-dev]
                               [--corpus ../shared/corpus] [--model multilingual-e5-small]
                               [--db PATH] [--mode hybrid|keyword|vector] [--misses]
                           [--backend postgresql://...]

Every corpus file that `sessions.tsv` names is copied into a folder per source (so each
source's own discovery reads it, as it would read the agent's folder on a laptop) and
indexed and embedded through the core API, exactly as `findsession index` would. Each
query is then searched across everything (top 10 sessions). A hit counts for the session
its transcript file belongs to (`sessions.tsv`: a subagent, a tool result or a helper chat
counts for its parent), so what is scored is the session, as the query set's README says.

Prints hit@1, hit@5, hit@10 and MRR per query kind, per source and overall; for the
`none` queries (no answer in the corpus) and the answerable ones, how many got each
confidence level (strong, weak, nothing close), and the ROC AUC of the confidence score
between answerable and `none` queries. Exits 0; exits 2 without the shared data.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import shutil
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import backend_bench  # noqa: E402  (bench/backend_bench.py)

from findsession import Findsession, Root, SearchOptions  # noqa: E402
from findsession.domain import Confidence, Level
from findsession.sources import SOURCES

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
KS = (1, 5, 10)
TOP = 10


@dataclass
class Corpus:
    """The query set's view of the corpus: which session each file belongs to."""

    #: Relative path -> [(source, session id)], several for an Aider history file.
    files: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    #: Internal session id -> the session id the queries use (renamed fixtures).
    aliases: dict[str, str] = field(default_factory=dict)


def read_corpus(tsv: Path) -> Corpus:
    corpus = Corpus()
    with tsv.open(encoding="utf-8") as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            if not row["session_id"]:
                corpus.files.setdefault(row["file"], [])
                continue
            corpus.files.setdefault(row["file"], []).append((row["source"], row["session_id"]))
            if row.get("internal_session_id"):
                corpus.aliases[row["internal_session_id"]] = row["session_id"]
    return corpus


def stage(corpus: Corpus, source_dir: Path, work: Path) -> tuple[list[Root], list[str]]:
    """Copy each listed file under `work/<source>/`, keeping its path; the roots to index,
    and the sources the query set has that findsession does not read yet."""
    roots: dict[str, Root] = {}
    missing: set[str] = set()
    for rel, owners in corpus.files.items():
        kinds = {kind for kind, _ in owners} or {_source_of(rel, corpus)}
        for kind in kinds:
            if kind not in SOURCES:
                missing.add(kind)
                continue
            target = work / kind / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source_dir / rel, target)
            roots.setdefault(kind, Root(work / kind, kind))
    return list(roots.values()), sorted(missing)


def _source_of(rel: str, corpus: Corpus) -> str:
    """A file with no session of its own (an index, a sidecar) goes with its folder's."""
    folder = rel.rsplit("/", 1)[0]
    for other, owners in corpus.files.items():
        if owners and other.startswith(folder):
            return owners[0][0]
    return "claude-code"


def session_of(hit_path: str, first_ts: str | None, work: Path, corpus: Corpus) -> str | None:
    """The query set's session for a hit's transcript file (and start, for Aider files
    that hold several sessions)."""
    try:
        rel = Path(hit_path).resolve().relative_to(work.resolve())
    except ValueError:
        return None
    owners = corpus.files.get(Path(*rel.parts[1:]).as_posix(), [])
    ids = list(dict.fromkeys(sid for _, sid in owners))
    if len(ids) <= 1:
        return ids[0] if ids else None
    started = (first_ts or "").replace("T", " ").rstrip("Z")[:19]
    for sid in ids:  # `<file>::# aider chat started at 2025-10-23 17:04:56`
        if started and sid.endswith(started):
            return sid
    return None


def auc(positive: list[float], negative: list[float]) -> float | None:
    """Probability that an answerable query's score beats a `none` query's (ties half)."""
    if not positive or not negative:
        return None
    wins = sum((p > n) + 0.5 * (p == n) for p in positive for n in negative)
    return wins / (len(positive) * len(negative))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=SHARED / "benchmarks" / "known-item-dev")
    parser.add_argument("--corpus", type=Path, default=SHARED / "corpus")
    parser.add_argument("--model", default="multilingual-e5-small")
    parser.add_argument("--db", type=Path, help="keep the index here (and the staged corpus)")
    parser.add_argument("--mode", default="hybrid", choices=("hybrid", "keyword", "vector"))
    parser.add_argument("--misses", action="store_true", help="list queries not in the top 5")
    parser.add_argument(
        "--backend",
        metavar="URL",
        help="also index the same files into this PostgreSQL database (emptied first), give it"
        " the SQLite index's vectors, and ask it the same queries",
    )
    args = parser.parse_args()
    if not (args.data / "queries.jsonl").exists() or not args.corpus.is_dir():
        print(f"known-item data not found at {args.data} / {args.corpus}", file=sys.stderr)
        return 2
    corpus = read_corpus(args.data / "sessions.tsv")
    queries = [json.loads(line) for line in (args.data / "queries.jsonl").open(encoding="utf-8")]
    home = Path(tempfile.mkdtemp(prefix="known-item-"))
    db = args.db or home / "index.db"
    work = db.parent / "known-item-corpus"
    config = home / "config.toml"
    config.write_text(f'[embedding]\nmodel = "{args.model}"\n', encoding="utf-8")
    os.environ["FINDSESSION_CONFIG"] = str(config)
    # Aider's run headers are local times without a zone: read them as UTC, so a run's
    # start matches the query set's header on any machine.
    os.environ["TZ"] = "UTC"
    time.tzset()
    # Copied again each run (mtimes kept): a source added since reads its files, and an
    # unchanged file costs the index a stat.
    roots, missing = stage(corpus, args.corpus, work)
    started = time.perf_counter()
    with Findsession.open(db) as fs:
        report = fs.index(roots)
        fs.embed()
        indexed = time.perf_counter() - started
        rows = ask(fs, queries, args.mode, work, corpus)
    print(
        f"indexed {report.files_read} files ({report.sessions_changed} sessions) in {indexed:.0f} s"
    )
    if missing:
        print(f"sources the query set has that findsession does not read: {', '.join(missing)}")
    print_table(rows, args.misses)
    if args.backend:
        served = on_server(db, args.backend, roots, queries, args.mode, work, corpus)
        print("\nOn the PostgreSQL backend, the same files and vectors:")
        print_table(served, args.misses)
    return 0


def ask(fs: Findsession, queries: list[dict], mode: str, work: Path, corpus: Corpus) -> list:
    """Each query's (query, ranked sessions, confidence, ms)."""
    rows = []
    for q in queries:
        t0 = time.perf_counter()
        response = fs.search(q["query"], SearchOptions(top=TOP, mode=mode))
        ms = (time.perf_counter() - t0) * 1000
        ranked: list[str] = []
        for hit in response.hits:
            sid = session_of(hit.session.file_path or "", hit.session.first_ts, work, corpus)
            sid = corpus.aliases.get(sid or "", sid) or hit.session.id
            if sid not in ranked:
                ranked.append(sid)
        rows.append((q, ranked, response.confidence, ms))
    return rows


def on_server(
    db: Path,
    url: str,
    roots: list[Root],
    queries: list[dict],
    mode: str,
    work: Path,
    corpus: Corpus,
) -> list:
    """The same staged files indexed into the server (its database emptied first), given
    the SQLite index's vectors, and asked the same queries."""
    backend_bench.reset(url)
    os.environ["FINDSESSION_STORAGE_URL"] = url
    try:
        with Findsession.open(db.with_suffix(".server.db")) as fs:
            fs.index(roots)
        copied, left = backend_bench.copy_vectors(db, url)
        print(f"copied the vectors of {copied} units to the server ({left} left)")
        with Findsession.open(db.with_suffix(".server.db")) as fs:
            return ask(fs, queries, mode, work, corpus)
    finally:
        del os.environ["FINDSESSION_STORAGE_URL"]


def print_table(rows: list[tuple[dict, list[str], Confidence, float]], misses: bool) -> None:
    groups: dict[str, list[int | None]] = defaultdict(list)
    for q, ranked, _, _ in rows:
        if q["kind"] == "none":
            continue
        rank = ranked.index(q["session_id"]) + 1 if q["session_id"] in ranked else None
        for name in (f"kind: {q['kind']}", f"source: {q['source']}", "all answerable"):
            groups[name].append(rank)
        if misses and (rank is None or rank > 5):
            print(f"  miss {q['id']} ({q['kind']}, {q['source']}): rank {rank}  {q['query']}")
    print()
    print("| queries | n | hit@1 | hit@5 | hit@10 | MRR |")
    print("|---|---:|---:|---:|---:|---:|")
    for name in sorted(groups, key=lambda n: (n.startswith("all"), n)):
        ranks = groups[name]
        hits = [sum(r is not None and r <= k for r in ranks) / len(ranks) for k in KS]
        mrr = sum(1 / r for r in ranks if r) / len(ranks)
        cells = " | ".join(f"{h:.2f}" for h in hits)
        print(f"| {name} | {len(ranks)} | {cells} | {mrr:.3f} |")
    nones = [r for r in rows if r[0]["kind"] == "none"]
    answerable = [r for r in rows if r[0]["kind"] != "none"]
    print()
    print("| confidence | none queries | answerable | answerable, target first |")
    print("|---|---:|---:|---:|")
    for level in Level:
        n = sum(r[2].level == level for r in nones)
        a = [r for r in answerable if r[2].level == level]
        first = sum(bool(r[1]) and r[1][0] == r[0]["session_id"] for r in a)
        print(
            f"| {level.value} | {n}/{len(nones)} | {len(a)}/{len(answerable)} | {first}/{len(a)} |"
        )
    area = auc([r[2].score for r in answerable], [r[2].score for r in nones])
    if area is not None:
        print(f"\nconfidence ROC AUC (answerable vs none): {area:.2f}")
    latencies = sorted(r[3] for r in rows)
    print(f"search p50 {latencies[len(latencies) // 2]:.0f} ms over {len(rows)} queries")


if __name__ == "__main__":
    sys.exit(main())
