"""The vector scan's arrays: packed in the index, kept current in a long-lived searcher.

A resident searcher (the MCP server, the service) searches while an indexer appends
units every few seconds. Reloading every chunk after each run cost seconds at a quarter
of a million units; it now applies only the changed units. These tests hold that the
live path runs, and that what it answers is exactly what a fresh process answers.
"""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest
from conftest import index
from transcripts import Transcript, project_dir

from findsession.embeddings.base import Embedder
from findsession.indexing.embed import embed_pending
from findsession.quantize import quantize
from findsession.search.engine import search
from findsession.search.filters import SearchOptions
from findsession.storage.base import Filters
from findsession.storage.sqlite import Store, UnitRow
from findsession.storage.sqlite.vector_index import VectorMatrix

TOPICS = [
    ("csv", "Write unit tests for the CSV parser and fix the off-by-one in column handling."),
    ("token", "Rotate the leaked API token and move it into the CI vault."),
    ("faq", "Fix the sticky header that covers anchor links on the FAQ page."),
    ("sql", "Speed up the slow SQL query on the orders table by adding an index."),
]
CWD = "/home/dev/code/shop"

#: A fresh process: loads the model and the matrix, prints each query's (session, cosine).
COLD = """
import json, sys
from pathlib import Path
from findsession.embeddings.onnx_local import OnnxEmbedder, bundled_model_dir
from findsession.search.engine import search
from findsession.quantize import quantize
from findsession.search.filters import SearchOptions
from findsession.storage.base import Filters
from findsession.storage.sqlite import Store, UnitRow
from findsession.storage.sqlite.vector_index import VectorMatrix
model = OnnxEmbedder(bundled_model_dir())
out = {"answers": []}
with Store.open(Path(sys.argv[1])) as store:
    for query, after in json.loads(sys.argv[2]):
        hits = search(store, query, SearchOptions(mode="vector", after=after), lambda: model).hits
        out["answers"].append([[h.session.id, round(h.cosine, 6)] for h in hits])
    out["origin"] = VectorMatrix.current(store).loaded.origin
print(json.dumps(out))
"""


def write_topics(projects: Path) -> dict[str, Path]:
    paths = {}
    for n, (name, prompt) in enumerate(TOPICS):
        t = Transcript(session_id=name, cwd=CWD, start=datetime(2026, 3, 1 + n, tzinfo=UTC))
        t.prompt(prompt).reply("Done.")
        paths[name] = t.write(project_dir(projects, CWD))
    return paths


@pytest.fixture
def corpus(store: Store, projects: Path, embedder: Embedder) -> dict[str, Path]:
    paths = write_topics(projects)
    index(store, projects)
    embed_pending(store, embedder)
    return paths


def vector(store: Store, embedder: Embedder, query: str, after: str | None = None) -> list:
    opts = SearchOptions(mode="vector", after=after)
    hits = search(store, query, opts, embedder=lambda: embedder).hits
    return [[h.session.id, round(h.cosine, 6)] for h in hits]


def cold(db: Path, queries: list[tuple[str, str | None]]) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", COLD, str(db), json.dumps(queries)],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout)


def test_a_cold_process_loads_the_pack_the_embedding_run_wrote(
    store: Store, corpus: dict[str, Path]
) -> None:
    queries = [("leaked credentials in CI", None), ("slow database query", None)]
    packed = cold(store.path, queries)
    assert packed["origin"] == "pack"
    with store.transaction():
        store.db.execute("DELETE FROM vector_pack")
    scanned = cold(store.path, queries)
    assert scanned["origin"] == "scan"
    assert packed["answers"] == scanned["answers"]
    assert packed["answers"][0][0][0] == "token"


def test_a_warm_searcher_finds_a_unit_appended_since_without_a_reload(
    store: Store, projects: Path, corpus: dict[str, Path], embedder: Embedder
) -> None:
    query = "renew the expired TLS certificate on the load balancer"
    assert vector(store, embedder, query)[0][0] != "faq"  # loads the matrix
    before = VectorMatrix.builds.copy()
    live = Transcript(session_id="faq", cwd=CWD, start=datetime(2026, 3, 9, tzinfo=UTC))
    live._n = 10  # new line uuids, after the ones written first
    live.prompt("The TLS certificate on the load balancer expired; renew it.")
    live.reply("Renewed it with certbot and reloaded the balancer.")
    live.append_to(corpus["faq"])
    index(store, projects)
    embed_pending(store, embedder)

    found = vector(store, embedder, query)

    assert found[0][0] == "faq"
    assert VectorMatrix.builds - before == {"changes": 1}


def test_after_changes_a_warm_searcher_answers_as_a_fresh_process(
    store: Store, projects: Path, corpus: dict[str, Path], embedder: Embedder, tmp_path: Path
) -> None:
    """A unit's text replaced (its chunks deleted, and new ones that take the freed ids),
    a session forgotten, a turn's time moved: the warm arrays must match the rows."""
    queries = [
        ("speed up the slow SQL query on the orders table", None),
        ("unit tests for the CSV parser, off-by-one in column handling", "2026-02-15T00:00:00Z"),
        ("how long should sourdough proof", None),
    ]
    first = [vector(store, embedder, q, after) for q, after in queries]
    for query, after in queries:  # a second search keeps the int8 vectors in memory
        vector(store, embedder, query, after)
    assert first[0][0][0] == "sql" and first[1][0][0] == "csv"
    # Units are embedded in id order: the last session indexed holds the highest chunk
    # ids, and its new chunks take the same ids again.
    changed = Transcript(session_id="sql", cwd=CWD, start=datetime(2026, 3, 4, tzinfo=UTC))
    changed.prompt("How long should a sourdough loaf proof before baking?").reply("Done.")
    changed.write(project_dir(projects, CWD))
    moved = Transcript(session_id="csv", cwd=CWD, start=datetime(2026, 2, 1, tzinfo=UTC))
    moved.prompt(TOPICS[0][1]).reply("Done.")  # the same text, a month earlier
    moved.write(project_dir(projects, CWD))
    index(store, projects)
    embed_pending(store, embedder)
    store.forget(["token"])
    before = VectorMatrix.builds.copy()

    warm = [vector(store, embedder, q, after) for q, after in queries]

    assert VectorMatrix.builds - before == {"changes": 1}
    assert warm == every_row(store, tmp_path, queries)
    assert "sql" not in [s for s, _ in warm[0]]  # its old text is gone
    assert "csv" not in [s for s, _ in warm[1]]  # its turn now lies before --after
    assert warm[2][0][0] == "sql"
    assert all(s != "token" for answer in warm for s, _ in answer)


def every_row(store: Store, tmp_path: Path, queries: list[tuple[str, str | None]]) -> list:
    """The answers of a fresh process that builds its arrays from every row (a copy of
    the index without its pack): the reference the live path must equal."""
    copy = tmp_path / "copy.db"
    store.db.execute("VACUUM INTO ?", (str(copy),))
    with Store.open(copy) as other, other.transaction():
        other.db.execute("DELETE FROM vector_pack")
    answer = cold(copy, queries)
    assert answer["origin"] == "scan"
    return answer["answers"]


def add_units(store: Store, session: str, count: int, rng: np.random.Generator) -> None:
    """`count` turns with random vectors (two chunks each), as an embedding run leaves them."""
    with store.transaction():
        rows = [unit_row(i, f"{session} step {i}") for i in range(count)]
        store.sync_units(session, rows)
        for unit_id, unit_hash in store.query(
            "SELECT id, hash FROM units WHERE session_id = ?", (session,)
        ):
            vecs = rng.standard_normal((2, 384)).astype(np.float32)
            packed = quantize(vecs / np.linalg.norm(vecs, axis=1, keepdims=True))
            store.save_vectors(unit_id, unit_hash, [("prompt", 0, 4, *packed[0], None),
                                                    ("reply", 0, 4, *packed[1], None)])  # fmt: skip
        store.set_setting("embedding_dims", "384")
        store.pack_vectors()


def unit_row(ordinal: int, text: str) -> UnitRow:
    return UnitRow("turn", ordinal + 1, "claude-code", None, "", text, "", "", [], [])


def test_searchers_behind_a_repack_or_keeping_up_both_answer_as_the_rows_say(
    db_path: Path, tmp_path: Path
) -> None:
    """The log is pruned when the pack is written again: a searcher that kept up still
    finds its changes in the log, one that fell further behind loads the new pack."""
    rng = np.random.default_rng(5)
    queries = rng.standard_normal((5, 384)).astype(np.float32)
    with Store.open(db_path) as behind, Store.open(db_path) as writer:
        add_units(writer, "a", 3000, rng)  # the first pack
        behind.vector_search(queries[0], Filters(), 50)
        for session in ("b", "c"):  # 6,000 changes each: the pack is written again twice
            add_units(writer, session, 3000, rng)
        assert writer.scalar("SELECT min(seq) FROM vector_log") > 6000  # pruned
        before = VectorMatrix.builds.copy()
        answers = [behind.vector_search(q, Filters(), 50) for q in queries]
        assert VectorMatrix.builds - before == {"pack": 1}
        add_units(writer, "d", 10, rng)  # a live run: the searcher kept up
        before = VectorMatrix.builds.copy()
        answers = [behind.vector_search(q, Filters(), 50) for q in queries]
        assert VectorMatrix.builds - before == {"changes": 1}
        copy = tmp_path / "copy.db"
        writer.db.execute("VACUUM INTO ?", (str(copy),))
    with Store.open(copy) as fresh:
        with fresh.transaction():
            fresh.db.execute("DELETE FROM vector_pack")
        assert answers == [fresh.vector_search(q, Filters(), 50) for q in queries]
        assert VectorMatrix.current(fresh).loaded.origin == "scan"
