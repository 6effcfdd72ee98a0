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

A set over several people's histories (known-item-large: its `FILES.tsv` names each
person's repository) is run one index per person instead (`bench/known_item_people.py`):

    python bench/known_item.py --data ../shared/benchmarks/known-item-large \
        --corpus OUT_DIR --work DIR [--people owner/name,...] [--dump FILE]

Prints hit@1, hit@5, hit@10 and MRR per query kind, per source or language and overall;
for the `none` queries (no answer in the corpus) and the answerable ones, how many got
each confidence level (strong, weak, nothing close), the shares answered "nothing close",
a reliability table of the stated score and the ROC AUC of the confidence score between
answerable and `none` queries (`bench/scoring.py`). Exits 0; exits 2 without the data.
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
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import backend_bench  # noqa: E402  (bench/backend_bench.py)
import known_item_people  # noqa: E402
import scoring  # noqa: E402

from findsession import Findsession, Root, SearchOptions  # noqa: E402
from findsession.sources import SOURCES

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
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
    parser.add_argument(
        "--work",
        type=Path,
        help="a set over people's histories (FILES.tsv): keep each person's index here",
    )
    parser.add_argument("--people", help="only these repositories (comma-separated)")
    parser.add_argument("--dump", type=Path, help="write each query's outcome here (JSON lines)")
    parser.add_argument(
        "--foreign",
        action="store_true",
        help="also ask each person's queries of the others' indexes (kind 'foreign': work"
        " the index never saw, the far negatives a confidence is fitted on)",
    )
    args = parser.parse_args()
    if (args.data / "FILES.tsv").exists():
        return by_person(args)
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
    scoring.print_all(rows, ("kind", "source"), args.misses)
    if args.backend:
        served = on_server(db, args.backend, roots, queries, args.mode, work, corpus)
        print("\nOn the PostgreSQL backend, the same files and vectors:")
        scoring.print_all(served, ("kind", "source"), args.misses)
    return 0


def by_person(args: argparse.Namespace) -> int:
    """A set over several people's histories: one index per person (known_item_people)."""
    if not args.corpus.is_dir() or args.corpus == SHARED / "corpus":
        print("give --corpus: the folder the set's build.py laid the histories out in",
              file=sys.stderr)
        return 2
    work = args.work or Path(tempfile.mkdtemp(prefix="known-item-people-"))
    work.mkdir(parents=True, exist_ok=True)
    config = work / "config.toml"
    config.write_text(f'[embedding]\nmodel = "{args.model}"\n', encoding="utf-8")
    os.environ["FINDSESSION_CONFIG"] = str(config)
    queries = [json.loads(line) for line in (args.data / "queries.jsonl").open(encoding="utf-8")]
    everyone = known_item_people.people(args.data, args.corpus)
    wanted = args.people.split(",") if args.people else list(everyone)
    rows = []
    dump = args.dump.open("w", encoding="utf-8") if args.dump else None
    for repo in wanted:
        person = everyone[repo]
        print(known_item_people.build(work, person), flush=True)
        mine = [q for q in queries if q["repo"] == repo]
        rows += known_item_people.ask(work, person, mine, args.mode, dump)
        if args.foreign:
            others = [
                {**q, "id": f"{q['id']}@{person.slug}", "kind": "foreign", "session_id": None}
                for q in queries
                if q["repo"] != repo and q["kind"] != "none"
            ]
            rows += known_item_people.ask(work, person, others, args.mode, dump)
    if dump:
        dump.close()
    scoring.print_all(rows, ("kind", "lang", "repo"), args.misses)
    return 0


def ask(
    fs: Findsession, queries: list[dict], mode: str, work: Path, corpus: Corpus
) -> list[scoring.Row]:
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
        rows.append(scoring.Row(q, ranked, response.confidence, ms))
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


if __name__ == "__main__":
    sys.exit(main())
