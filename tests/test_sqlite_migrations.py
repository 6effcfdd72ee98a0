"""An index file written before schema step 13 (three columns renamed to the server's
names, so both backends run one statement) keeps every cursor, title and vector: one of
step 11, and one of step 12 (the index of files written), as indexes in use have them."""

from __future__ import annotations

from pathlib import Path

import apsw
import pytest

from findsession.storage.base import TitleWrite
from findsession.storage.sqlite import Store, open_index
from findsession.storage.sqlite.migrations import MIGRATIONS, SCHEMA_VERSION


def _index_of_step(db: Path, last: int) -> None:
    conn = apsw.Connection(str(db))
    for version, step in enumerate(MIGRATIONS[:last], 1):
        step(conn)
        conn.execute(f"PRAGMA user_version = {version}")
    conn.execute(
        "INSERT INTO files (path, source, size, mtime_ns, offset, lines, tail_hash)"
        " VALUES ('/t.jsonl', 'claude-code', 900, 7, 812, 12, 'abc')"
    )
    conn.execute(
        "INSERT INTO title_writes (session_id, file_path, offset, line, title, written_at)"
        " VALUES ('s', '/t.jsonl', 812, x'0a', 'kept', '2026-01-02T00:00:00Z'),"
        " ('s', '/t.jsonl', NULL, NULL, 'index only', '2026-01-03T00:00:00Z')"
    )
    conn.execute(
        "INSERT INTO chunks (unit_id, field, start, end, scale, vec, code)"
        " VALUES (7, 'prompt', 3, 40, 0.01, x'00', x'00')"
    )
    conn.close()


@pytest.mark.parametrize("last", [11, 12])
def test_an_older_index_keeps_its_cursors_titles_and_chunk_spans(tmp_path: Path, last: int) -> None:
    db = tmp_path / "old.db"
    _index_of_step(db, last)
    with Store.open(db) as store:
        assert store.schema_version() == SCHEMA_VERSION
        state = store.file_states()["/t.jsonl"]
        assert (state.size, state.offset, state.lines, state.tail_hash) == (900, 812, 12, "abc")
        assert store.title_writes("s") == [
            TitleWrite("s", "/t.jsonl", "kept", 812, b"\n", "2026-01-02T00:00:00Z"),
            TitleWrite("s", "/t.jsonl", "index only", None, None, "2026-01-03T00:00:00Z"),
        ]
        assert store.query("SELECT unit_id, span_start, span_end FROM chunks") == [(7, 3, 40)]


@pytest.mark.parametrize("last", [11, 12])
def test_a_rebuild_of_an_older_index_keeps_the_titles_findsession_wrote(
    tmp_path: Path, last: int
) -> None:
    """The set-aside file is read as it is, before any upgrade: its offsets are under
    their old name, and the new index must still know which lines are findsession's."""
    db = tmp_path / "old.db"
    _index_of_step(db, last)
    store, notes = open_index(db, rebuild=True)
    try:
        assert not [n for n in notes if n.startswith("warning")], notes
        assert [(w.title, w.offset) for w in store.title_writes("s")] == [
            ("kept", 812),
            ("index only", None),
        ]
    finally:
        store.close()


def test_an_index_of_step_thirteen_keeps_its_redaction_counts_until_read_again(
    tmp_path: Path,
) -> None:
    """Step 14 counts secrets per line: the counts made per file before are kept (status
    says the same), and go when their file is next read from the top."""
    db = tmp_path / "old.db"
    conn = apsw.Connection(str(db))
    for version, step in enumerate(MIGRATIONS[:13], 1):
        step(conn)
        conn.execute(f"PRAGMA user_version = {version}")
    conn.execute(
        "INSERT INTO redactions (file_path, kind, n) VALUES ('/t.jsonl', 'github-token', 4),"
        " ('/u.jsonl', 'openai-key', 1)"
    )
    conn.close()
    with Store.open(db) as store:
        assert store.status().redacted == {"github-token": 4, "openai-key": 1}
        with store.transaction():
            store.forget_file_content("/t.jsonl")
            store.add_redactions("/t.jsonl", {("s", 3, "github-token"): 1})
            store.add_redactions("/t.jsonl", {("s", 3, "github-token"): 1})  # read again
        assert store.status().redacted == {"github-token": 1, "openai-key": 1}
