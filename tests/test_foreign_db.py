"""Reading an agent's own SQLite database: never write it, never hold its agent up, and
say in one line why a database could not be read now."""

from __future__ import annotations

import hashlib
import sqlite3
import time
from pathlib import Path

import pytest

from findsession.sources import foreign_db


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _store(path: Path, journal: str) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute(f"PRAGMA journal_mode = {journal}")
    conn.execute("CREATE TABLE messages (id INTEGER PRIMARY KEY, session TEXT, text TEXT)")
    conn.execute("INSERT INTO messages (session, text) VALUES ('s1', 'committed')")
    return conn


def test_a_live_wal_database_is_read_while_its_agent_writes(tmp_path: Path) -> None:
    """The agent is mid-transaction: the read sees what was committed, does not wait,
    and the agent's next commit is not blocked by it."""
    db = tmp_path / "agent.db"
    agent = _store(db, "wal")
    agent.execute("BEGIN IMMEDIATE")
    agent.execute("INSERT INTO messages (session, text) VALUES ('s1', 'uncommitted')")
    before = _digest(db)
    started = time.perf_counter()
    with foreign_db.reading(db) as conn:
        texts = [r[0] for r in conn.execute("SELECT text FROM messages ORDER BY id")]
        agent.execute("COMMIT")  # the writer commits while we hold our snapshot
    assert texts == ["committed"]
    assert time.perf_counter() - started < 1.0
    assert _digest(db) == before  # the database file itself was not touched
    with foreign_db.reading(db) as conn:
        assert conn.execute("SELECT count(*) FROM messages").fetchone()[0] == 2
    agent.close()


def test_nothing_can_be_written_through_a_reading(tmp_path: Path) -> None:
    db = tmp_path / "agent.db"
    _store(db, "wal").close()
    before = _digest(db)
    with pytest.raises(OSError), foreign_db.reading(db) as conn:
        conn.execute("DELETE FROM messages")
    assert _digest(db) == before


def test_a_database_locked_past_the_timeout_is_reported_not_waited_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A rollback-journal database the agent holds exclusively: one line that says so,
    after the busy timeout, and nothing read past the lock."""
    monkeypatch.setattr(foreign_db, "BUSY_SECONDS", 0.2)
    db = tmp_path / "agent.db"
    agent = _store(db, "delete")
    agent.execute("BEGIN EXCLUSIVE")
    agent.execute("INSERT INTO messages (session, text) VALUES ('s1', 'half')")
    with pytest.raises(OSError, match="locked by its agent"), foreign_db.reading(db) as conn:
        conn.execute("SELECT count(*) FROM messages").fetchone()
    agent.execute("ROLLBACK")
    agent.close()


def test_a_file_that_is_no_database_is_reported(tmp_path: Path) -> None:
    db = tmp_path / "store.db"
    db.write_bytes(b"not a database at all, just text " * 200)
    with pytest.raises(OSError, match="not a readable SQLite database"), foreign_db.reading(db):
        pass
    assert db.read_bytes().startswith(b"not a database")


def test_session_tokens_and_line_numbers_round_trip() -> None:
    tokens = {"ses_1": "3:17", "ses:2": "1:4"}
    assert foreign_db.decode(foreign_db.encode(tokens)) == tokens
    assert foreign_db.decode("blake2b:abc") == {} and foreign_db.decode(None) == {}
    assert foreign_db.changed(tokens, {"ses_1": "3:17", "ses:2": "2:5", "new": "1:1"}) == [
        "ses:2",
        "new",
    ]
    line = foreign_db.line_of(42, 7)
    assert foreign_db.position_of(line) == (42, 7)
    assert foreign_db.line_of(42, 8) > line and foreign_db.line_of(43, 0) > line
    assert foreign_db.agent_id("opencode-1a2b3c4d:ses_9") == "ses_9"
