"""A text is embedded once: repeated turns (forked or resumed sessions) reuse its vector.

With the real bundled model. A thin wrapper counts the texts handed to the model, so
"reused" means no model run, not only a number in the report.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import apsw
import numpy as np
import pytest
from conftest import index
from transcripts import Transcript, project_dir

from findsession.embeddings.base import Embedder, Role
from findsession.embeddings.onnx_local import OnnxEmbedder, bundled_model_dir
from findsession.indexing.embed import BATCH_UNITS, embed_pending
from findsession.storage.sqlite import Store
from findsession.storage.sqlite.migrations import MIGRATIONS, SCHEMA_VERSION

TURNS = [
    ("Why does the nightly backup job skip the photos folder?", "The exclude glob matched it."),
    ("yes, fix it", "Narrowed the glob to *.tmp and ran the job: 412 photos copied."),
    ("Add a test for the glob", "Added test_backup_keeps_photos; it fails on the old glob."),
]


class Counting:
    """The real model, counting the texts it is asked to embed."""

    def __init__(self, model: Embedder) -> None:
        self.model = model
        self.identity, self.dims = model.identity, model.dims
        self.min_cosine, self.cosine_margin = model.min_cosine, model.cosine_margin
        self.texts = 0

    def embed(self, texts: list[str], role: Role) -> np.ndarray:
        self.texts += len(texts)
        return self.model.embed(texts, role)

    def spans(self, text: str) -> list[tuple[int, int]]:
        return self.model.spans(text)


def session(session_id: str, turns: list[tuple[str, str]], day: int = 1) -> Transcript:
    t = Transcript(session_id=session_id, start=datetime(2026, 5, day, 9, tzinfo=UTC))
    for prompt, reply in turns:
        t.prompt(prompt).reply(reply)
    return t


def vectors(store: Store, session_id: str) -> list[tuple[int, str, int, int, bytes]]:
    """Each chunk of a session's turns: (turn, field, start, end, int8 vector)."""
    return store.query(
        "SELECT u.ordinal, c.field, c.span_start, c.span_end, c.vec FROM chunks c"
        " JOIN units u ON u.id = c.unit_id WHERE u.session_id = ? AND u.kind = 'turn'"
        " ORDER BY u.ordinal, c.field, c.span_start",
        (session_id,),
    )


def test_a_fork_indexed_later_reuses_every_vector_without_a_model_run(
    store: Store, projects: Path, embedder: Embedder
) -> None:
    session("original", TURNS).write(project_dir(projects, "/home/dev/code/app"))
    index(store, projects)
    counting = Counting(embedder)
    first = embed_pending(store, counting)
    # The session's own summary unit repeats its last reply: reused already.
    assert counting.texts == first.chunks - first.reused > 0

    # A fork: the same turns under another session id, with message ids of its own.
    session("forked", TURNS, day=2).write(project_dir(projects, "/home/dev/code/app"))
    index(store, projects)
    counting.texts = 0
    second = embed_pending(store, counting)
    turn_chunks = len(vectors(store, "forked"))
    assert second.units >= len(TURNS) and second.reused >= turn_chunks
    assert counting.texts == second.chunks - second.reused
    assert vectors(store, "forked") == vectors(store, "original")


def test_a_text_repeated_in_one_batch_runs_through_the_model_once(
    store: Store, projects: Path, embedder: Embedder
) -> None:
    for n in range(3):
        session(f"copy{n}", TURNS, day=1 + n).write(project_dir(projects, "/home/dev/code/app"))
    index(store, projects)
    counting = Counting(embedder)
    report = embed_pending(store, counting)
    assert store.scalar("SELECT count(*) FROM units") <= BATCH_UNITS  # one batch
    assert counting.texts == report.chunks - report.reused
    assert report.reused >= 2 * len(vectors(store, "copy0"))
    assert vectors(store, "copy1") == vectors(store, "copy0") == vectors(store, "copy2")


def test_a_turn_with_other_neighbours_is_embedded_again(
    store: Store, projects: Path, embedder: Embedder
) -> None:
    """A short prompt is embedded with the turns around it: same words, other context,
    another text, so its own vector."""
    session("a", TURNS).write(project_dir(projects, "/home/dev/code/app"))
    other = [TURNS[0], (TURNS[1][0], "Deleted the whole photos folder by mistake."), TURNS[2]]
    session("b", other, day=2).write(project_dir(projects, "/home/dev/code/app"))
    index(store, projects)
    embed_pending(store, embedder)
    short = {
        sid: [v for turn, field, _, _, v in vectors(store, sid) if (turn, field) == (2, "prompt")]
        for sid in ("a", "b")
    }
    assert short["a"] != short["b"]


def test_parallel_runs_give_the_vectors_of_one_run_at_a_time(
    embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    texts = [
        f"note {n}: " + "the cache is warmed before the first request " * (n % 9) for n in range(90)
    ]
    monkeypatch.setenv("FINDSESSION_THREADS", "1")
    serial = OnnxEmbedder(bundled_model_dir())
    together, alone = embedder.embed(texts, "document"), serial.embed(texts, "document")
    assert np.allclose(together, alone, atol=1e-5)


@pytest.mark.parametrize("model", ["all-MiniLM-L6-v2", "multilingual-e5-small"])
def test_a_texts_vector_does_not_depend_on_the_texts_embedded_beside_it(model: str) -> None:
    # Both bundled models quantize activations per run of the model: packed with other
    # texts, a turn got another vector than alone (and than its query twin), so the
    # same file embedded in two indexes ranked differently among look-alike sessions.
    embedder = OnnxEmbedder(bundled_model_dir(model))
    text = "Narrowed the exclude glob to *.tmp and ran the backup job: 412 photos copied."
    mates = [f"log {n}: " + "retrying the upload after a timeout " * (n % 7) for n in range(40)]
    alone = embedder.embed([text], "document")[0]
    beside = embedder.embed([*mates, text, *mates[::-1]], "document")[len(mates)]
    assert np.array_equal(alone, beside)


def test_an_index_from_schema_8_keeps_its_vectors_and_reuses_only_new_ones(
    tmp_path: Path, projects: Path, embedder: Embedder
) -> None:
    db = tmp_path / "old.db"
    conn = apsw.Connection(str(db))
    for version, step in enumerate(MIGRATIONS[:8], 1):
        step(conn)
        conn.execute(f"PRAGMA user_version = {version}")
    conn.execute(
        "INSERT INTO chunks (unit_id, field, start, end, scale, vec, code)"
        " VALUES (7, 'prompt', 0, 4, 0.01, x'00', x'00')"
    )
    conn.close()
    with Store.open(db) as store:
        assert store.schema_version() == SCHEMA_VERSION
        assert store.query("SELECT unit_id, text_hash FROM chunks") == [(7, None)]
        session("s", TURNS).write(project_dir(projects, "/home/dev/code/app"))
        index(store, projects)
        counting = Counting(embedder)
        report = embed_pending(store, counting)
        assert report.units == store.scalar("SELECT count(*) FROM units")
        assert counting.texts == report.chunks - report.reused
        assert store.scalar("SELECT count(*) FROM chunks WHERE text_hash IS NULL") == 1
