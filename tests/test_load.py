"""Eight searches at once while another process writes: none fails, none changes."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

from conftest import index
from transcripts import Transcript, project_dir

from findsession.search.engine import search
from findsession.search.filters import SearchOptions
from findsession.storage.sqlite import Store

QUERIES = ["retry backoff", "cache eviction", "schema migration"]


def ids(store: Store, query: str) -> set[str]:
    opts = SearchOptions(mode="keyword", project="/home/dev/base", top=50)
    return {h.session.id for h in search(store, query, opts).hits}


def test_concurrent_searches_while_an_index_run_writes(
    store: Store, db_path: Path, projects: Path, tmp_path: Path
) -> None:
    for i in range(12):
        t = Transcript(session_id=f"base-{i:02d}", cwd="/home/dev/base")
        t.prompt(f"{QUERIES[i % 3]} question {i}").reply("answer " * 30)
        t.write(project_dir(projects, "/home/dev/base"))
    index(store, projects)
    expected = {q: ids(store, q) for q in QUERIES}
    assert all(len(v) == 4 for v in expected.values())
    extra = tmp_path / "extra"
    for i in range(200):  # the same words, in another project: must never leak in
        t = Transcript(session_id=f"extra-{i:03d}", cwd="/home/dev/extra")
        for turn in range(6):
            t.prompt(f"{QUERIES[turn % 3]} again {i}").reply("more " * 50)
        t.write(project_dir(extra, "/home/dev/extra"))
    writer = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "findsession",
            "index",
            str(extra),
            "--no-embed",
            "--db",
            str(db_path),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    errors: list[str] = []
    changed: list[str] = []
    served = [0]
    lock = threading.Lock()

    def loop(n: int) -> None:
        with Store.open(db_path) as own:
            while writer.poll() is None or served[0] < 80:
                q = QUERIES[n % 3]
                try:
                    got = ids(own, q)
                except Exception as exc:  # noqa: BLE001 - every failure is the finding
                    with lock:
                        errors.append(repr(exc))
                    continue
                with lock:
                    served[0] += 1
                    if got != expected[q]:
                        changed.append(q)

    threads = [threading.Thread(target=loop, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    _, err = writer.communicate(timeout=300)
    for t in threads:
        t.join(timeout=300)
    assert writer.returncode == 0, err
    assert errors == [] and changed == []
    assert served[0] >= 80
    assert store.scalar("SELECT count(*) FROM sessions") == 212
