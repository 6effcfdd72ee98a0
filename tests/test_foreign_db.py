"""Reading an agent's own SQLite database: never write it, never hold its agent up, and
say in one line why a database could not be read now.

While its agent is not running, indexing a store leaves every byte of it and of the
files beside it as it was, and creates none (a read-only reader of a WAL store used to
create `-wal` and `-shm` beside it and rewrite `-shm` on every run); while a writer
(another process) holds it, reads stay correct."""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from conftest import CLI, SHARED
from crush_store import CrushStore
from crush_store import text as crush_text
from goose_store import GooseStore
from goose_store import text as goose_text
from kiro_store import KiroStore, prompt, reply
from opencode_store import OpenCodeStore
from zed_store import ZedStore
from zed_store import agent as zed_agent
from zed_store import text as zed_text
from zed_store import user as zed_user

from findsession.sources import Cursor, foreign_db

LINUX = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="other systems may leave -wal/-shm (see docs)"
)


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _store(path: Path, journal: str) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute(f"PRAGMA journal_mode = {journal}")
    conn.execute("CREATE TABLE messages (id INTEGER PRIMARY KEY, session TEXT, text TEXT)")
    conn.execute("INSERT INTO messages (session, text) VALUES ('s1', 'committed')")
    return conn


def test_a_live_wal_database_is_read_while_its_agent_writes(tmp_path: Path) -> None:
    """The agent (another process: a connection in this one would lose its locks the
    moment the test reads the file) is mid-transaction: the read sees what was
    committed, does not wait, and the agent's next commit is not blocked by it."""
    db = tmp_path / "agent.db"
    _store(db, "wal").close()
    agent = writer(
        db,
        """
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("INSERT INTO messages (session, text) VALUES ('s1', 'uncommitted')")
        print("ready", flush=True)
        sys.stdin.readline()
        conn.execute("COMMIT")
        print("ready", flush=True)
        sys.stdin.readline()
        """,
    )
    assert agent.stdin is not None and agent.stdout is not None
    try:
        before = _digest(db)
        started = time.perf_counter()
        with foreign_db.reading(db) as conn:
            texts = [r[0] for r in conn.execute("SELECT text FROM messages ORDER BY id")]
            agent.stdin.write("\n")  # the writer commits while we hold our snapshot
            agent.stdin.flush()
            assert agent.stdout.readline().strip() == "ready"
        assert texts == ["committed"]
        assert time.perf_counter() - started < 1.0
        assert _digest(db) == before  # the database file itself was not touched
        with foreign_db.reading(db) as conn:
            assert conn.execute("SELECT count(*) FROM messages").fetchone()[0] == 2
    finally:
        agent.kill()
        agent.wait()


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
    kept = foreign_db.cursor(4096, 2, tokens).stored()  # as the index keeps it
    assert foreign_db.tokens(Cursor.restored(4096, 2, kept)) == tokens
    assert foreign_db.tokens(Cursor(0, 0, "blake2b:abc")) == {} and foreign_db.tokens(None) == {}
    assert foreign_db.changed(tokens, {"ses_1": "3:17", "ses:2": "2:5", "new": "1:1"}) == [
        "ses:2",
        "new",
    ]
    line = foreign_db.line_of(42, 7)
    assert foreign_db.position_of(line) == (42, 7)
    assert foreign_db.line_of(42, 8) > line and foreign_db.line_of(43, 0) > line
    assert foreign_db.agent_id("opencode-1a2b3c4d:ses_9") == "ses_9"


def snapshot(folder: Path) -> dict[str, str]:
    """Every file in the folder, by name, with a digest of its bytes."""
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())
    }


def rows(db: Path) -> int:
    return _count(db, "SELECT count(*) FROM t")


def _count(db: Path, sql: str) -> int:
    with foreign_db.reading(db) as conn:
        return conn.execute(sql).fetchone()[0]


def wal_store(path: Path, n: int = 3) -> Path:
    """A WAL store its agent wrote and closed: no file beside it."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode = wal")
    conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT)")
    conn.executemany("INSERT INTO t (body) VALUES (?)", [(f"row {i}",) for i in range(n)])
    conn.close()
    return path


def writer(db: Path, script: str) -> subprocess.Popen:
    """Another process with its own connection to `db` (the agent): runs `script` with
    `conn` open, says `ready`, then waits for a line on stdin before the rest."""
    code = textwrap.dedent(
        f"""
        import sqlite3, sys
        conn = sqlite3.connect({str(db)!r}, isolation_level=None, timeout=30)
        conn.execute("PRAGMA wal_autocheckpoint = 0")
        """
    ) + textwrap.dedent(script)
    proc = subprocess.Popen(
        [sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    return proc


@LINUX
def test_a_closed_wal_store_is_read_without_a_byte_written(tmp_path: Path) -> None:
    db = wal_store(tmp_path / "agent.db")
    before = snapshot(tmp_path)
    assert list(before) == ["agent.db"]
    for _ in range(2):
        assert rows(db) == 3
        assert snapshot(tmp_path) == before


@LINUX
def test_leftover_side_files_are_not_rewritten(tmp_path: Path) -> None:
    """An empty `-wal` and a `-shm` left by an earlier reader: both stay as they are."""
    db = wal_store(tmp_path / "agent.db")
    sqlite3.connect(f"{db.as_uri()}?mode=ro", uri=True).execute("SELECT 1 FROM t").fetchall()
    before = snapshot(tmp_path)
    assert sorted(before) == ["agent.db", "agent.db-shm", "agent.db-wal"]
    assert rows(db) == 3
    assert snapshot(tmp_path) == before


@LINUX
def test_commits_left_in_the_wal_by_a_dead_agent_are_read_and_nothing_written(
    tmp_path: Path,
) -> None:
    """An agent killed before its checkpoint (or a store copied with its log, as people
    commit `crush.db-wal` to their repositories): its last commits live in `-wal` only."""
    db = wal_store(tmp_path / "agent.db")
    agent = writer(
        db,
        """
        conn.execute("INSERT INTO t (body) VALUES ('in the log')")
        print("ready", flush=True)
        sys.stdin.readline()
        """,
    )
    agent.send_signal(signal.SIGKILL)
    agent.wait()
    before = snapshot(tmp_path)
    assert (tmp_path / "agent.db-wal").stat().st_size > 0
    assert rows(db) == 4  # the commit in the log is read
    assert _count(db, "SELECT count(*) FROM t WHERE body = 'in the log'") == 1
    assert snapshot(tmp_path) == before


@LINUX
def test_reads_stay_correct_while_a_writer_holds_the_store(tmp_path: Path) -> None:
    """The agent runs: its commits wait in `-wal`, and it holds a write transaction with
    rows not yet committed. The read sees every commit and nothing uncommitted; the
    database file and its log are not written."""
    db = wal_store(tmp_path / "agent.db")
    agent = writer(
        db,
        """
        conn.execute("INSERT INTO t (body) VALUES ('committed, in the log')")
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("INSERT INTO t (body) VALUES ('not committed')")
        print("ready", flush=True)
        sys.stdin.readline()
        conn.execute("COMMIT")
        print("ready", flush=True)
        sys.stdin.readline()
        """,
    )
    try:
        kept = {n: d for n, d in snapshot(tmp_path).items() if not n.endswith("-shm")}
        assert rows(db) == 4
        assert _count(db, "SELECT count(*) FROM t WHERE body = 'not committed'") == 0
        assert {n: d for n, d in snapshot(tmp_path).items() if not n.endswith("-shm")} == kept
        assert agent.stdin is not None and agent.stdout is not None
        agent.stdin.write("\n")
        agent.stdin.flush()
        assert agent.stdout.readline().strip() == "ready"
        assert rows(db) == 5
    finally:
        agent.kill()
        agent.wait()


@LINUX
def test_a_rollback_journal_writer_mid_transaction(tmp_path: Path) -> None:
    db = tmp_path / "agent.db"
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT)")
    conn.execute("INSERT INTO t (body) VALUES ('committed')")
    conn.close()
    agent = writer(
        db,
        """
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("INSERT INTO t (body) VALUES ('not committed')")
        print("ready", flush=True)
        sys.stdin.readline()
        """,
    )
    try:
        before = hashlib.sha256(db.read_bytes()).hexdigest()
        assert rows(db) == 1
        assert hashlib.sha256(db.read_bytes()).hexdigest() == before
    finally:
        agent.kill()
        agent.wait()


@LINUX
def test_an_agent_that_starts_during_a_read_makes_it_wait_for_the_next_run(
    tmp_path: Path,
) -> None:
    """A quiet store is read in place with no lock SQLite knows of; an agent that starts
    meanwhile and checkpoints could change pages under the read, so such a read is
    refused and the next one sees the agent's work."""
    db = wal_store(tmp_path / "agent.db")
    with pytest.raises(OSError, match="changed while it was read"), foreign_db.reading(db) as conn:
        assert conn.execute("SELECT count(*) FROM t").fetchone()[0] == 3
        subprocess.run(
            [
                sys.executable,
                "-c",
                f"import sqlite3; c = sqlite3.connect({str(db)!r}, isolation_level=None);"
                " c.execute(\"INSERT INTO t (body) VALUES ('new')\");"
                " c.execute('PRAGMA wal_checkpoint(TRUNCATE)'); c.close()",
            ],
            check=True,
        )
    assert rows(db) == 4


@LINUX
def test_indexing_stores_of_agents_not_running_writes_nothing_beside_them(
    cli: CLI, tmp_path: Path
) -> None:
    """Crush, Goose, OpenCode and Kiro CLI stores, each in WAL mode and closed by its
    agent, and a Zed store in its rollback-journal mode, indexed through the real CLI
    twice: every file beside them byte-identical, no file created."""
    stores = tmp_path / "stores"
    crush = CrushStore(stores / "crush" / ".crush" / "crush.db")
    crush.session("c-1", "Rivet torque table")
    crush.message("c-1", "user", [crush_text("why does the rivet torque table round")])
    crush.close()
    goose = GooseStore(stores / "goose" / "sessions.db")
    goose.session("g-1", "/home/dev/ferry", "Ferry timetable")
    goose.message("g-1", "user", goose_text("scrape the harbour ferry timetable"))
    goose.close()
    opencode = OpenCodeStore(stores / "opencode" / "opencode.db")
    opencode.project("/home/dev/lamp", "prj_lamp")
    opencode.session("ses_1", "/home/dev/lamp", "Lighthouse lamp", project="prj_lamp")
    opencode.turn("ses_1", "why does the lighthouse lamp flicker", "A loose contact.")
    opencode.close()
    kiro = KiroStore(stores / "kiro" / "data.sqlite3")
    kiro.put("/home/dev/hive", "k-1", [
        {"user": prompt("calibrate the beehive scale", "/home/dev/hive"),
         "assistant": reply("m-1", "Tare it empty.")},
    ])  # fmt: skip
    kiro.close()
    zed = ZedStore(stores / "zed" / "threads.db")
    asked = zed_user("why does the kiln overshoot")
    zed.save("z-1", "Kiln ramp", [asked, zed_agent(zed_text("Windup."))])
    zed.close()
    folders = {
        "crush": stores / "crush" / ".crush",
        "goose": stores / "goose",
        "opencode": stores / "opencode",
        "kiro": stores / "kiro",
        "zed": stores / "zed",
    }
    before = {kind: snapshot(folder) for kind, folder in folders.items()}
    assert all(len(files) == 1 for files in before.values())  # no side file yet
    for _ in range(2):
        for kind, folder in folders.items():
            report = cli.json("index", "--no-embed", "--source", kind, str(folder))
            assert report["errors"] == [] and report["problems"] == []
        assert {kind: snapshot(folder) for kind, folder in folders.items()} == before
    counts = {s["kind"]: s["sessions"] for s in cli.json("sources")["sources"]}
    assert all(counts[kind] == 1 for kind in folders)


REAL = SHARED / "realfiles"
#: Each real store: its source, where it lies under `REAL`, and the query that counts its
#: sessions with messages without findsession (a store without the table holds none).
REAL_STORES = [
    ("crush", "crush/gleicon+mcpfier/.crush/crush.db",
     "SELECT count(DISTINCT session_id) FROM messages WHERE role = 'user'"),
    ("crush", "crush/jsanchezdaza+conecta4/.crush/crush.db",
     "SELECT count(DISTINCT session_id) FROM messages WHERE role = 'user'"),
    ("opencode", "opencode/suhd550/opencode.db", "SELECT count(DISTINCT session_id) FROM message"),
    ("goose", "goose/sessions.db", "SELECT count(DISTINCT session_id) FROM messages"),
    ("kiro", "kiro/data.sqlite3", "SELECT count(DISTINCT conversation_id) FROM conversations_v2"),
]  # fmt: skip


@LINUX
@pytest.mark.skipif(not REAL.is_dir(), reason="needs ../shared/realfiles")
def test_real_stores_are_read_without_a_byte_written_beside_them(
    cli: CLI, tmp_path: Path
) -> None:
    """Real stores as people's machines left them (two Crush stores committed with a
    4 MB `-wal` of commits beside them): every session is read, and no file of a store
    changes or appears."""
    expected: dict[str, int] = {}
    for kind, rel, count in REAL_STORES:
        real = REAL / rel
        if not real.exists():
            continue
        folder = tmp_path / rel.replace("/", "_")
        folder.mkdir()
        for f in real.parent.iterdir():
            if f.name.startswith(real.name):
                shutil.copyfile(f, folder / f.name)
                os.chmod(folder / f.name, 0o644)
        # Counted without findsession, on a copy of its own (SQLite replays the log there).
        other = tmp_path / "count" / folder.name
        shutil.copytree(folder, other)
        conn = sqlite3.connect(other / real.name)
        try:
            n = conn.execute(count).fetchone()[0]
        except sqlite3.OperationalError:
            n = 0  # no such table yet: a store before its first session
        conn.close()
        expected[kind] = expected.get(kind, 0) + n
        before = snapshot(folder)
        report = cli.json("index", "--no-embed", "--source", kind, str(folder / real.name))
        assert report["errors"] == [] and report["problems"] == []
        assert snapshot(folder) == before, rel
    assert expected.get("crush", 0) > 0
    counts = {s["kind"]: s["sessions"] for s in cli.json("sources")["sources"]}
    assert {kind: counts[kind] for kind in expected} == expected


def test_text_that_is_not_utf8_costs_its_characters_not_the_store(tmp_path: Path) -> None:
    """A store holding one text value that is not UTF-8 (a writer that stored Latin-1)
    could not be read at all: fetching the row raised, so every session was lost."""
    db = tmp_path / "agent.db"
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT)")
    conn.execute("INSERT INTO t (body) VALUES ('fine')")
    conn.execute("INSERT INTO t (body) VALUES (CAST(x'66e96e' AS TEXT))")  # Latin-1 "fén"
    conn.commit()
    conn.close()
    with foreign_db.reading(db) as reader:
        bodies = [r[0] for r in reader.execute("SELECT body FROM t ORDER BY id")]
    assert bodies == ["fine", "f\ufffdn"]


@LINUX
def test_a_store_too_big_to_copy_is_read_the_ordinary_way(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Commits in the log of a store past the copy limit: read in place, read-only, the
    log's commits included (SQLite then writes its `-shm`, as docs/sources.md says)."""
    from findsession.sources import foreign_quiet

    monkeypatch.setattr(foreign_quiet, "COPY_LIMIT", 1024)
    db = wal_store(tmp_path / "agent.db")
    agent = writer(
        db,
        """
        conn.execute("INSERT INTO t (body) VALUES ('in the log')")
        print("ready", flush=True)
        sys.stdin.readline()
        """,
    )
    agent.send_signal(signal.SIGKILL)
    agent.wait()
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    assert rows(db) == 4
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before
