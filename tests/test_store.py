"""The SQLite file: WAL, versioned migrations, FTS kept in sync, private permissions.

What every backend does alike (the protocols' behaviour) is tested on each of them in
tests/test_storage_backends.py; this file holds what is the SQLite file's own.
"""

from __future__ import annotations

import stat
import threading
import time
from pathlib import Path

import apsw
import pytest

from findsession.errors import DatabaseError
from findsession.storage.sqlite import Store, UnitRow
from findsession.storage.sqlite.migrations import MIGRATIONS, SCHEMA_VERSION, migrate


def unit(ordinal: int, prompt: str) -> UnitRow:
    return UnitRow("turn", ordinal, "claude-code", None, "", prompt, "", "", [], [])


def fts(store: Store, term: str) -> list[int]:
    return [
        r[0]
        for r in store.query(
            "SELECT u.ordinal FROM units_fts JOIN units u ON u.id = units_fts.rowid"
            " WHERE units_fts MATCH ? ORDER BY 1",
            (term,),
        )
    ]


def test_new_database_is_private_wal_and_current(db_path: Path) -> None:
    with Store.open(db_path) as store:
        assert store.scalar("PRAGMA journal_mode") == "wal"
        assert store.schema_version() == SCHEMA_VERSION == len(MIGRATIONS)
        assert store.scalar("SELECT count(*) FROM units_fts") == 0
    assert stat.S_IMODE(db_path.stat().st_mode) == 0o600
    assert stat.S_IMODE(db_path.parent.stat().st_mode) == 0o700


def test_keyword_index_follows_inserts_updates_and_deletes(store: Store) -> None:
    with store.transaction():
        store.sync_units("s", [unit(1, "alpha beta"), unit(2, "gamma")])
    assert fts(store, "alpha") == [1]
    with store.transaction():
        written = store.sync_units("s", [unit(1, "alpha beta"), unit(2, "delta")])
    assert written == 1  # the unchanged unit was not rewritten
    assert fts(store, "gamma") == [] and fts(store, "delta") == [2]
    with store.transaction():
        store.sync_units("s", [unit(1, "alpha beta")])
    assert fts(store, "delta") == []
    store.db.execute("INSERT INTO units_fts(units_fts) VALUES ('integrity-check')")


def test_porter_stemming_matches_word_forms(store: Store) -> None:
    with store.transaction():
        store.sync_units("s", [unit(1, "the deploys were failing")])
    assert fts(store, "deploy") == [1] and fts(store, "fail") == [1]


def test_migration_runs_each_step_once_and_records_the_version(tmp_path: Path) -> None:
    conn = apsw.Connection(str(tmp_path / "old.db"))
    assert migrate(conn) == 0
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert migrate(conn) == SCHEMA_VERSION  # nothing to do the second time


def test_failed_migration_leaves_the_old_database_untouched(tmp_path: Path) -> None:
    conn = apsw.Connection(str(tmp_path / "old.db"))
    conn.execute("CREATE TABLE files (path TEXT)")  # clashes with migration 1
    conn.execute("INSERT INTO files VALUES ('kept')")
    with pytest.raises(apsw.SQLError):
        migrate(conn)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 0
    assert conn.execute("SELECT path FROM files").fetchall() == [("kept",)]


def test_not_a_database_gets_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "junk.db"
    path.write_bytes(b"this is not sqlite" * 500)
    with pytest.raises(DatabaseError, match="not a findsession index"):
        Store.open(path)


def test_a_write_transaction_that_reads_first_is_not_refused(db_path: Path) -> None:
    """Two processes' index runs: one reads then writes while the other commits between.

    A deferred transaction fails at once with "database is locked" (SQLite cannot wait
    out that conflict); taking the write lock up front makes the other writer wait.
    """
    first, second = Store.open(db_path), Store.open(db_path)

    def other_writer() -> None:
        with second.transaction():
            second.set_setting("from-second", "1")

    with first.transaction():
        first.scalar("SELECT count(*) FROM sessions")
        writer = threading.Thread(target=other_writer)
        writer.start()
        time.sleep(0.3)  # the other writer tries to commit in between
        first.set_setting("from-first", "1")
    writer.join(timeout=30)
    assert first.setting("from-first") == "1" and first.setting("from-second") == "1"
    first.close()
    second.close()
