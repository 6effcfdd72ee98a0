"""A query set over several people's histories, one index per person (known-item-large).

The set's `FILES.tsv` names each person's repository; its `build.py` lays the files out
as `CORPUS/<owner>__<name>/<path>`. Each person's Claude Code folder (`.claude/projects`,
or `projects` where the home folder itself was committed) is indexed into an index of its
own under `--work`, kept between runs (an unchanged file costs a stat), and that person's
queries are asked of it: each person searches their own history. A hit on a subagent's or
a tool result's file counts for its parent session (`sessions.tsv`).
"""

from __future__ import annotations

import csv
import json
import time
from dataclasses import dataclass
from pathlib import Path

from scoring import Row

from findsession import Findsession, Root, SearchOptions

TOP = 10


@dataclass
class Person:
    repo: str
    folder: Path  # CORPUS/<owner>__<name>
    #: The file's path inside the repository -> the session a hit on it counts for.
    sessions: dict[str, str]

    @property
    def slug(self) -> str:
        return self.repo.replace("/", "__")

    def projects(self) -> Path:
        for candidate in (".claude/projects", "projects"):
            if (self.folder / candidate).is_dir():
                return self.folder / candidate
        raise SystemExit(f"no Claude Code folder under {self.folder}")

    def session_of(self, path: str, fallback: str) -> str:
        try:
            rel = Path(path).resolve().relative_to(self.folder.resolve()).as_posix()
        except ValueError:
            return fallback
        return self.sessions.get(rel, fallback)


def people(data: Path, corpus: Path) -> dict[str, Person]:
    found: dict[str, Person] = {}
    with (data / "sessions.tsv").open(encoding="utf-8") as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            repo = row["repo"]
            person = found.setdefault(
                repo, Person(repo, corpus / repo.replace("/", "__"), {})
            )
            owner = row["parent_session_id"] if row["role"] != "main" else row["session_id"]
            person.sessions[row["path"]] = owner or row["session_id"]
    return found


def index_path(work: Path, person: Person) -> Path:
    return work / f"{person.slug}.db"


def build(work: Path, person: Person) -> str:
    """Index and embed one person's history into its own index; a line saying what it cost."""
    started = time.perf_counter()
    with Findsession.open(index_path(work, person)) as fs:
        report = fs.index([Root(person.projects(), "claude-code")])
        read = time.perf_counter() - started
        fs.embed()
    total = time.perf_counter() - started
    return (
        f"{person.repo}: {report.files_read} files read ({report.sessions_changed} sessions"
        f" changed) keyword {read:.0f} s, with vectors {total:.0f} s"
    )


def ask(work: Path, person: Person, queries: list[dict], mode: str, dump=None) -> list[Row]:
    rows = []
    with Findsession.open(index_path(work, person)) as fs:
        fs.search("warm up", SearchOptions(top=1, mode=mode))
        for q in queries:
            t0 = time.perf_counter()
            response = fs.search(q["query"], SearchOptions(top=TOP, mode=mode))
            ms = (time.perf_counter() - t0) * 1000
            ranked: list[str] = []
            for hit in response.hits:
                fallback = hit.session.parent_id or hit.session.id
                sid = person.session_of(hit.session.file_path or "", fallback)
                if sid not in ranked:
                    ranked.append(sid)
            row = Row(q, ranked, response.confidence, ms)
            rows.append(row)
            if dump is not None:
                c = response.confidence
                dump.write(json.dumps({
                    "id": q["id"], "kind": q["kind"], "lang": q.get("lang"),
                    "repo": q.get("repo"), "index": person.slug,
                    "target": q.get("session_id"), "rank": row.rank, "ranked": ranked,
                    "level": c.level.value, "score": c.score, "coverage": c.coverage,
                    "lift": c.lift, "agreement": c.agreement, "margin": c.margin,
                    "standout": c.standout,
                    "notes": response.notes,
                    "pins": [h.pinned for h in response.hits[:5]],
                    "parts": [
                        [h.parts.ranks, h.parts.keyword, h.parts.meaning, h.parts.further]
                        for h in response.hits[:5]
                        if h.parts is not None
                    ],
                    "cosines": [h.cosine for h in response.hits[:5]],
                    "strategy": response.strategy,
                }, ensure_ascii=False) + "\n")
    return rows
