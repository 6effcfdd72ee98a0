"""A killed index run leaves a consistent database that the next run completes."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import apsw
import pytest
from conftest import CLI
from transcripts import Transcript, project_dir

from findsession.interrupts import Held

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
                "SELECT path, size, read_offset, lines, tail_hash, status FROM files ORDER BY path",
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


def index_until(
    args: list[str], ready: Callable[[], bool], sig: int
) -> subprocess.CompletedProcess:
    """Run `findsession index ARGS`, send `sig` once `ready()` holds, and wait for the exit."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "findsession", "index", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # A suite started in the background by a shell inherits an ignored SIGINT, and
        # Python then never raises KeyboardInterrupt: give the child a terminal's default.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 120
    while not ready() and proc.poll() is None:
        assert time.monotonic() < deadline, "index made no progress"
        time.sleep(0.005)
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=60)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def test_sigkill_mid_run_then_rerun_equals_uninterrupted(tmp_path: Path) -> None:
    projects = tmp_path / "projects"
    write_corpus(projects)
    killed_db, clean_db = tmp_path / "killed.db", tmp_path / "clean.db"

    index_until(
        [str(projects), "--db", str(killed_db), "--no-embed"],
        lambda: committed_files(killed_db) >= 20,
        signal.SIGKILL,
    )
    done_when_killed = committed_files(killed_db)
    assert 0 < done_when_killed < N_FILES, "the run must be killed in the middle"

    cli = CLI(tmp_path, killed_db)
    status = cli.json("status")
    assert status["last_run"]["interrupted"] is True
    cli.run("index", str(projects), "--no-embed")
    CLI(tmp_path, clean_db).run("index", str(projects), "--no-embed")

    assert content(killed_db) == content(clean_db)


def test_ctrl_c_stops_cleanly_and_says_how_to_finish(tmp_path: Path) -> None:
    projects = tmp_path / "projects"
    write_corpus(projects)
    db = tmp_path / "interrupted.db"
    proc = index_until(
        [str(projects), "--db", str(db), "--no-embed"],
        lambda: committed_files(db) >= 20,
        signal.SIGINT,
    )
    assert proc.returncode == 130
    assert "Traceback" not in proc.stderr
    assert "interrupted:" in proc.stderr
    assert "run `findsession index` again to finish" in proc.stderr
    cli = CLI(tmp_path, db)
    assert cli.json("status")["last_run"]["interrupted"] is True
    cli.run("index", str(projects), "--no-embed")
    assert cli.json("status")["sessions"] == N_FILES


def test_ctrl_c_while_embedding_keeps_finished_vectors_and_resumes(tmp_path: Path) -> None:
    projects = tmp_path / "projects"
    for i in range(40):
        t = Transcript(session_id=f"e{i:03d}", cwd="/home/dev/code/app")
        for turn in range(3):
            t.prompt(f"step {turn} of task {i}: explain the retry logic in worker {i}")
            t.reply(f"Worker {i} retries {turn + 2} times with exponential backoff. " * 4)
        t.write(project_dir(projects, t.cwd))
    db = tmp_path / "embedding.db"
    proc = index_until(
        [str(projects), "--db", str(db)], lambda: embedded_units(db) >= 40, signal.SIGINT
    )
    err = proc.stderr
    assert proc.returncode == 130 and "Traceback" not in err
    assert "embedding interrupted" in err and "run `findsession index` again" in err
    cli = CLI(tmp_path, db)
    status = cli.json("status")
    done = status["embedded_units"]
    assert 40 <= done < status["units"]
    again = cli.json("index", str(projects))
    assert again["embedding"]["units"] == status["units"] - done  # only the rest
    status = cli.json("status")
    assert status["embedded_units"] == status["units"]
    conn = apsw.Connection(str(db))
    try:
        per_unit = conn.execute(
            "SELECT max(n) FROM (SELECT count(*) AS n FROM chunks"
            " GROUP BY unit_id, field, span_start)"
        ).fetchone()[0]
    finally:
        conn.close()
    assert per_unit == 1  # no chunk stored twice


def embedded_units(db: Path) -> int:
    if not db.exists():
        return 0
    conn = apsw.Connection(str(db))
    conn.set_busy_timeout(5000)
    try:
        return conn.execute("SELECT count(*) FROM embedded").fetchone()[0]
    except apsw.SQLError:
        return 0
    finally:
        conn.close()


def test_two_index_runs_at_once_both_finish(tmp_path: Path) -> None:
    """A background indexer (the MCP server's) and a CLI run may write at the same time."""
    roots = []
    for r in range(2):
        root = tmp_path / f"root{r}"
        for i in range(60):
            t = Transcript(session_id=f"r{r}-{i:03d}", cwd=f"/home/dev/p{r}")
            for turn in range(8):
                t.prompt(f"question {turn} in {r}/{i}").reply("answer " * 40)
            t.write(project_dir(root, t.cwd))
        roots.append(root)
    db = tmp_path / "shared.db"
    CLI(tmp_path, db).run("status")  # create the schema first
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "findsession",
                "index",
                str(root),
                "--no-embed",
                "--db",
                str(db),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        for root in roots
    ]
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
    assert CLI(tmp_path, db).json("status")["sessions"] == 120


@pytest.fixture
def python_handles_ctrl_c() -> Iterator[None]:
    """Python's own SIGINT handler, as in a CLI started at a terminal. A test worker may
    have inherited SIGINT ignored (a run started in the background by a shell without job
    control), and `Held` rightly leaves an ignored or custom handler alone."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def test_ctrl_c_inside_a_files_writes_waits_for_them_to_end(python_handles_ctrl_c: None) -> None:
    """Ctrl-C landing inside a file's savepoint once left its transaction half closed: a
    traceback at exit, and the run's last COMMIT could keep part of a file without its
    cursor. Inside `Held` the block runs to its end, then the interrupt is raised."""
    finished = []
    with pytest.raises(KeyboardInterrupt), Held():
        signal.raise_signal(signal.SIGINT)  # to this thread, as a terminal's Ctrl-C is
        time.sleep(0.05)  # the signal is handled here, at the next bytecode
        finished.append("the file's writes")
    assert finished == ["the file's writes"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    with Held():  # without Ctrl-C nothing is raised
        finished.append("another file")
    assert finished[-1] == "another file"


def test_a_process_that_ignores_ctrl_c_keeps_ignoring_it() -> None:
    """`Held` takes over only Python's own handler: where SIGINT is ignored (a background
    job) it stays ignored, and nothing is raised."""
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with Held():
            signal.raise_signal(signal.SIGINT)
            time.sleep(0.05)
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, previous)
