"""An index written by an earlier findsession upgrades on open and searches the same."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import psycopg
import pytest

from findsession.storage.base import UnitRow
from findsession.storage.postgresql import init_server, open_index
from findsession.storage.postgresql.migrations import MIGRATIONS, SCHEMA, SCHEMA_VERSION


def _schema_at(db: psycopg.Connection, step: int) -> None:
    """The schema as findsession's step `step` left it, empty, on `db`'s search path."""
    db.execute(f"DROP SCHEMA IF EXISTS {SCHEMA} CASCADE")
    db.execute("CREATE EXTENSION IF NOT EXISTS vector")
    db.execute(f"CREATE SCHEMA {SCHEMA}")
    db.execute(f"SET search_path = {SCHEMA}, public")
    for migration in MIGRATIONS[:step]:
        migration(db)
    db.execute("INSERT INTO settings (key, value) VALUES ('schema_version', %s)", (str(step),))


def test_an_index_of_step_one_counts_its_units_after_the_upgrade(
    pg_url: str, tmp_path: Path
) -> None:
    """The unit count the keyword ranking divides by starts from the units already there."""
    with psycopg.connect(pg_url, autocommit=True) as db:
        _schema_at(db, 1)
        for ordinal, text in enumerate(["alpha one", "beta two", "gamma three"], 1):
            db.execute(
                "INSERT INTO units (session_id, kind, ordinal, source, prompt, hash)"
                " VALUES ('s', 'turn', %s, 'claude-code', %s, %s)",
                (ordinal, text, f"h{ordinal}"),
            )
    store, _ = open_index(pg_url, local=tmp_path / "index.db")
    try:
        assert store.schema_version() == SCHEMA_VERSION
        assert store.word_rarity(["alpha"])["alpha"] == pytest.approx(math.log(4 / 2))
        with store.transaction():
            store.sync_units(
                "t", [UnitRow("turn", 1, "claude-code", None, "", "delta", "", "", [], [])]
            )
        assert store.word_rarity(["alpha"])["alpha"] == pytest.approx(math.log(5 / 2))
    finally:
        store.close()


def test_an_index_of_step_four_searches_its_vectors_across_the_new_graph(
    pg_url: str, tmp_path: Path
) -> None:
    """Step 5 drops the graph over single precision; until the admin's `server init` (or
    the next embedding run or push) builds the half-precision one, searches scan exactly
    and still find the vectors."""
    from findsession.storage.base import Filters

    with psycopg.connect(pg_url, autocommit=True) as db:
        _schema_at(db, 4)
        db.execute(
            "INSERT INTO settings (key, value) VALUES ('embedding_model', 'm'),"
            " ('embedding_dims', '3')"
        )
        db.execute(
            "INSERT INTO sessions (id, source, file_path, cwd, title, first_ts, last_ts)"
            " VALUES ('s', 'claude-code', '/f', '/p', 't', '2026-01-01', '2026-01-01')"
        )
        for ordinal, vec in enumerate(([1, 0, 0], [0, 1, 0], [0, 0, 1]), 1):
            unit = db.execute(
                "INSERT INTO units (session_id, kind, ordinal, source, prompt, hash)"
                " VALUES ('s', 'turn', %s, 'claude-code', 'x', %s) RETURNING id",
                (ordinal, f"h{ordinal}"),
            ).fetchone()[0]
            db.execute(
                "INSERT INTO chunks (unit_id, field, span_start, span_end, scale, vec, code,"
                " embedding) VALUES (%s, 'prompt', 0, 1, 1, '\\x00', '\\x00', %s::vector)",
                (unit, str([127 * v for v in vec])),
            )
            db.execute("INSERT INTO embedded (unit_id, chunks) VALUES (%s, 1)", (unit,))
        db.execute("SELECT ensure_graph(3)")
        old = db.execute("SELECT pg_get_indexdef(to_regclass('chunks_hnsw_3'))").fetchone()[0]
        assert "vector_cosine_ops" in old

    store, _ = open_index(pg_url, local=tmp_path / "index.db")
    try:
        assert store.schema_version() == SCHEMA_VERSION
        assert store.scalar("SELECT to_regclass('chunks_hnsw_3')") is None
        found = store.vector_search(np.array([0.1, 0.9, 0.0], dtype=np.float32), Filters(), 3)
        assert [m.ordinal for m in found][:1] == [2], "an exact scan until the graph is back"
        assert init_server(pg_url, local=tmp_path / "index.db") == ("postgres", True)
        assert init_server(pg_url, local=tmp_path / "index.db")[1] is False, "built once"
        made = store.scalar(  # the admin's own vectors' graph (schema step 12)
            "SELECT string_agg(indexdef, ' ') FROM pg_indexes"
            " WHERE indexname LIKE 'chunks\\_hnsw\\_3\\_%'"
        )
        assert "halfvec(3)" in made and "halfvec_cosine_ops" in made
        assert "audience = 'postgres'" in made
        found = store.vector_search(np.array([0.0, 0.2, 0.9], dtype=np.float32), Filters(), 3)
        assert [m.ordinal for m in found][:1] == [3]
    finally:
        store.close()


def test_an_index_of_step_ten_finds_its_words_through_their_new_rows(
    pg_url: str, tmp_path: Path
) -> None:
    """Step 11 writes each stored unit's words as rows: the units already there are
    found by a one-word search after the upgrade, as are those written after it, and
    a deleted unit's rows go with it."""
    from findsession.query import Query
    from findsession.storage.base import Filters

    with psycopg.connect(pg_url, autocommit=True) as db:
        _schema_at(db, 10)
        for ordinal, text in enumerate(["the flamingo deploy", "a canary"], 1):
            db.execute(
                "INSERT INTO units (session_id, kind, ordinal, source, prompt, hash)"
                " VALUES ('s', 'turn', %s, 'claude-code', %s, %s)",
                (ordinal, text, f"h{ordinal}"),
            )
    store, _ = open_index(pg_url, local=tmp_path / "index.db")

    def row(ordinal: int, prompt: str) -> UnitRow:
        return UnitRow("turn", ordinal, "claude-code", None, "", prompt, "", "", [], [])

    def found(text: str) -> list[int]:
        return [m.ordinal for m in store.keyword_search(Query.parse(text), Filters(), 10)]

    try:
        assert store.schema_version() == SCHEMA_VERSION
        assert found("flamingo") == [1] and found("canary") == [2]
        with store.transaction():
            store.sync_units(
                "s",
                [row(1, "the flamingo deploy"), row(4, "another flamingo"), row(5, "数据库迁移")],
            )
        assert sorted(found("flamingo")) == [1, 4] and found("canary") == []
        assert found("迁移") == [5]
        assert store.scalar("SELECT count(*) FROM postings WHERE lexeme = 'canari'") == 0
    finally:
        store.close()


def test_an_index_of_step_twelve_keeps_its_redaction_counts_as_its_owners(
    pg_url: str, tmp_path: Path
) -> None:
    """Step 13 counts secrets per line, in a table made anew: the counts made per file
    before are kept with their owner, and a session's go when it is forgotten."""
    with psycopg.connect(pg_url, autocommit=True) as db:
        _schema_at(db, 12)
        db.execute(
            "INSERT INTO redactions (file_path, kind, n) VALUES ('/t.jsonl', 'github-token', 4)"
        )
    store, _ = open_index(pg_url, local=tmp_path / "index.db")
    try:
        assert store.schema_version() == SCHEMA_VERSION
        assert store.status().redacted == {"github-token": 4}
        with store.transaction():
            store.add_redactions("/u.jsonl", {("s", 2, "openai-key"): 1})
        assert store.status().redacted == {"github-token": 4, "openai-key": 1}
        with store.transaction():
            store.drop_session_content("s")
        assert store.status().redacted == {"github-token": 4}
    finally:
        store.close()
