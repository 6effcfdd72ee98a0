"""The tables both backends hold are described once (findsession.storage.sql.tables):
each backend's tables are what the description says, and a table made from a
description is, in each backend, what the old ones are: keyed as the statements'
upserts expect, gone with its session, and on a team's server hidden from a colleague
until its project is shared, with no index a colleague's statement could walk."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import psycopg
import pytest
from postgres_server import Server
from psycopg import sql
from team import make_team, rows
from test_side_channels import _absent, _explain

from findsession.domain import Session
from findsession.storage import open_storage
from findsession.storage.base import Storage
from findsession.storage.postgresql import ddl as server_ddl
from findsession.storage.postgresql.migrations import SCHEMA
from findsession.storage.sql.tables import OWNER, SESSION, TABLES, UNIT, Column, Table
from findsession.storage.sqlite import ddl as file_ddl

#: Columns a backend adds to a described table, and why: who wrote a row and who may
#: read it (the server), a session's machine, the server's keyword columns, its vectors.
BACKEND_COLUMNS = {
    "sqlite": {},
    "postgresql": {
        "*": {"owner"},
        "content": {"shared", "audience"},
        "sessions": {"machine", "local_id"},
        "units": {"words", "tool_words", "cjk_grams"},
        "chunks": {"embedding"},
    },
}


def _columns(storage: Storage, table: str) -> set[str]:
    if storage.__module__.endswith("sqlite"):
        return {r[1] for r in storage.query(f"PRAGMA table_info({table})")}  # type: ignore[attr-defined]
    return {
        r[0]
        for r in storage.query(  # type: ignore[attr-defined]
            "SELECT column_name FROM information_schema.columns"
            " WHERE table_schema = ? AND table_name = ?",
            (SCHEMA, table),
        )
    }


def _added(backend: str, table: Table) -> set[str]:
    extra = BACKEND_COLUMNS[backend]
    added = set(extra.get(table.name, set()))
    if extra and table.belongs != "index":
        added |= extra["*"]
    if extra and table.belongs in (SESSION, UNIT):
        added |= extra["content"]
    return added


@pytest.mark.parametrize("table", sorted(TABLES))
def test_each_backends_tables_are_as_described(storage: Storage, table: str) -> None:
    backend = "sqlite" if storage.__module__.endswith("sqlite") else "postgresql"
    described = TABLES[table]
    wanted = {
        *described.names,
        *(["id"] if described.numbered else []),
        *_added(backend, described),
    }
    assert _columns(storage, table) == wanted
    if described.key:  # each statement's upsert names this target: the index must exist
        names = ", ".join(described.key)
        with storage.transaction():
            storage.execute(  # type: ignore[attr-defined]
                f"INSERT INTO {table} ({names}) SELECT {names} FROM {table} WHERE false"
                f" ON CONFLICT {storage.key(table)} DO NOTHING"  # type: ignore[attr-defined]
            )


#: A session's notes, and a person's own marks on sessions, as a later step would add.
NOTES = Table(
    "session_notes",
    (
        Column("session_id", required=True),
        Column("note", required=True),
        Column("pinned", "bool", True, "false"),
        Column("colour", later=True),
    ),
    SESSION,
    numbered=True,
    lookups=(("session_id",),),
)
MARKS = Table(
    "session_marks",
    (Column("session_id", required=True), Column("mark", required=True)),
    OWNER,
    key=("session_id", "mark"),
    with_session=True,
)


@pytest.fixture
def described(monkeypatch: pytest.MonkeyPatch) -> None:
    """The two tables as if described in findsession.storage.sql.tables."""
    monkeypatch.setitem(TABLES, NOTES.name, NOTES)
    monkeypatch.setitem(TABLES, MARKS.name, MARKS)


def _session(sid: str, cwd: str) -> Session:
    return Session(sid, "claude-code", f"{cwd}/t.jsonl", cwd, "t", "2026-01-01", "2026-01-02")


def _write_both(store: Any, sid: str) -> None:
    with store.transaction():
        store.save_session(_session(sid, "/home/alice/secretproj"))
        store.execute("INSERT INTO session_notes (session_id, note) VALUES (?, ?)", (sid, "n1"))
        for _ in range(2):  # the second is the same mark: the key holds it once
            store.execute(
                "INSERT INTO session_marks (session_id, mark) VALUES (?, ?)"
                f" ON CONFLICT {store.key('session_marks')} DO NOTHING",
                (sid, "starred"),
            )


def test_a_described_table_in_the_file_is_keyed_and_goes_with_its_session(
    tmp_path: Path, described: None
) -> None:
    store, _ = open_storage(tmp_path / "index.db")
    try:
        with store.transaction():
            for step in (
                file_ddl.create(NOTES),
                file_ddl.create(MARKS),
                file_ddl.add_column("session_notes", "colour"),
            ):
                step(store.db)  # type: ignore[attr-defined]
        assert _columns(store, "session_notes") == {"id", *NOTES.names}
        _write_both(store, "s1")
        assert store.query("SELECT note, pinned, colour FROM session_notes") == [("n1", 0, None)]  # type: ignore[attr-defined]
        assert store.query("SELECT mark FROM session_marks") == [("starred",)]  # type: ignore[attr-defined]
        with store.transaction():
            store.delete_session("s1")
        assert store.scalar("SELECT count(*) FROM session_notes") == 0  # type: ignore[attr-defined]
        assert store.scalar("SELECT count(*) FROM session_marks") == 0  # type: ignore[attr-defined]
    finally:
        store.close()


def test_a_described_table_on_the_server_hides_a_colleagues_rows_until_shared(
    pg_server: Server, pg_url: str, tmp_path: Path, described: None
) -> None:
    team = make_team(pg_server, pg_url, tmp_path)
    with psycopg.connect(team["admin"], autocommit=True) as db:
        db.execute(f"SET search_path = {SCHEMA}, public")
        with db.transaction():
            for step in (
                server_ddl.create(NOTES),
                server_ddl.create(MARKS),
                server_ddl.add_column("session_notes", "colour"),
            ):
                step(db)
    alice = open_storage(tmp_path / "a.db", backend="postgresql", url=team["alice"])[0]
    bob = open_storage(tmp_path / "b.db", backend="postgresql", url=team["bob"])[0]
    try:
        _write_both(alice, "a1")
        _write_both(bob, "b1")
        assert alice.query("SELECT note, pinned, colour FROM session_notes") == [
            ("n1", False, None)
        ]  # type: ignore[attr-defined]
        assert bob.query("SELECT session_id FROM session_notes") == [("b1",)]  # type: ignore[attr-defined]
        assert bob.query("SELECT session_id FROM session_marks") == [("b1",)]  # type: ignore[attr-defined]
        for column in ("session_id", "id", "note"):  # an index walk tells bob nothing
            value = rows(
                team["admin"],
                sql.SQL("SELECT {} FROM findsession.session_notes WHERE owner = 'alice'").format(
                    sql.Identifier(column)
                ),
            )[0][0]
            probe = sql.SQL("SELECT 1 FROM findsession.session_notes WHERE {} = %s").format(
                sql.Identifier(column)
            )
            assert _explain(team["bob"], probe, (value,)) == _explain(
                team["bob"], probe, (_absent(value),)
            ), column
        with alice.transaction():
            alice.execute("INSERT INTO shares (project) VALUES (?)", ("/home/alice/secretproj",))  # type: ignore[attr-defined]
        assert sorted(bob.query("SELECT session_id FROM session_notes")) == [("a1",), ("b1",)]  # type: ignore[attr-defined]
        assert bob.query("SELECT session_id FROM session_marks") == [("b1",)], "marks: hers alone"  # type: ignore[attr-defined]
        _write_both(alice, "a2")  # written into the project already shared: shown at once
        assert sorted(bob.query("SELECT session_id FROM session_notes")) == [  # type: ignore[attr-defined]
            ("a1",),
            ("a2",),
            ("b1",),
        ]
        with alice.transaction():
            alice.delete_session("a1")
        assert rows(team["admin"], "SELECT count(*) FROM findsession.session_notes")[0][0] == 2
        assert rows(team["admin"], "SELECT count(*) FROM findsession.session_marks")[0][0] == 2
    finally:
        alice.close()
        bob.close()
