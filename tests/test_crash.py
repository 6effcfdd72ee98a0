"""A killed index run leaves a consistent database that the next run completes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import apsw
from conftest import CLI
from transcripts import Transcript, project_dir

N_FILES = 240


def write_corpus(projects: Path) -> None:
    for i in range(N_FILES):
        t = Transcript(session_id=f"s{i:04d}", cwd=f"/home/dev/code/p{i % 7}")
        for turn in range(25):
            t.prompt(f"session {i} question {turn}: why does module_{turn} fail on input {i}?")
            t.reply(f"Module {turn} fails because input {i} is not normalised. " * 3)
            t.tool("Bash", {"command": f"pytest tests/test_m{turn}.py"}, "F" * 300 + " failed")
        t.title(f"work item {i}")
        t.write(project_dir(projects, t.cwd))


def content(db: Path) -> list[list[tuple]]:
    """Everything an index run produces, minus run bookkeeping and row ids."""
    conn = apsw.Connection(str(db))
    try:
        conn.execute("INSERT INTO units_fts(units_fts) VALUES ('integrity-check')")
        return [
            list(conn.execute(sql))
            for sql in (
                "SELECT * FROM sessions ORDER BY id",
                "SELECT session_id, kind, ordinal, title, prompt, reply, tools, hash FROM units"
                " ORDER BY session_id, kind, ordinal",
                "SELECT session_id, file_path, line, part, kind, text FROM messages"
                " ORDER BY file_path, line, part",
                "SELECT path, size, offset, lines, tail_hash, status FROM files ORDER BY path",
                "SELECT u.session_id, u.ordinal FROM units_fts"
                " JOIN units u ON u.id = units_fts.rowid"
                " WHERE units_fts MATCH 'normalised' ORDER BY 1, 2",
            )
        ]
    finally:
        conn.close()


def committed_files(db: Path) -> int:
    if not db.exists():
        return 0
    conn = apsw.Connection(str(db))
    conn.set_busy_timeout(5000)
    try:
        return conn.execute("SELECT count(*) FROM files").fetchone()[0]
    except apsw.SQLError:
        return 0  # schema not created yet
    finally:
        conn.close()


def test_sigkill_mid_run_then_rerun_equals_uninterrupted(tmp_path: Path) -> None:
    projects = tmp_path / "projects"
    write_corpus(projects)
    killed_db, clean_db = tmp_path / "killed.db", tmp_path / "clean.db"

    proc = subprocess.Popen(
        [sys.executable, "-m", "findsession", "index", str(projects), "--db", str(killed_db)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    while committed_files(killed_db) < 20 and proc.poll() is None:
        assert time.monotonic() < deadline, "index made no progress"
        time.sleep(0.005)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    done_when_killed = committed_files(killed_db)
    assert 0 < done_when_killed < N_FILES, "the run must be killed in the middle"

    cli = CLI(tmp_path, killed_db)
    status = cli.json("status")
    assert status["last_run"]["interrupted"] is True
    cli.run("index", str(projects))
    CLI(tmp_path, clean_db).run("index", str(projects))

    assert content(killed_db) == content(clean_db)


def test_ctrl_c_stops_cleanly_and_says_how_to_finish(tmp_path: Path) -> None:
    projects = tmp_path / "projects"
    write_corpus(projects)
    db = tmp_path / "interrupted.db"
    proc = subprocess.Popen(
        [sys.executable, "-m", "findsession", "index", str(projects), "--db", str(db)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 120
    while committed_files(db) < 20 and proc.poll() is None:
        assert time.monotonic() < deadline, "index made no progress"
        time.sleep(0.005)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert "Traceback" not in err
    assert "interrupted:" in err and "run `findsession index` again to finish" in err
    cli = CLI(tmp_path, db)
    assert cli.json("status")["last_run"]["interrupted"] is True
    cli.run("index", str(projects))
    assert cli.json("status")["sessions"] == N_FILES
