"""`titles --undo` while an agent holds its transcript open: nothing it writes is lost.

An agent keeps its transcript open with `O_APPEND` for the whole session. Undo edits the
file in place, through the same inode: a file written anew and renamed over it would leave
the agent appending to a deleted file, and would replace a transcript that is a symbolic
link with a regular file. Each test drives the real CLI over real files (the fixtures
of `test_titles_write`) and checks every byte.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import CLI
from test_titles_write import NOTES, age, configure, corpus  # noqa: F401 - the fixture
from transcripts import Transcript

from findsession.titles.cut import collapses

#: An agent's lines, appended one `write` each on a descriptor opened once, until stdin
#: closes; it prints how many it wrote.
APPENDER = """
import os, sys, threading, time
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_APPEND)
stop = threading.Event()
threading.Thread(target=lambda: (sys.stdin.read(), stop.set()), daemon=True).start()
print("ready", flush=True)
n = 0
while not stop.is_set():
    os.write(fd, b'{"type":"progress","agentLine":%d}\\n' % n)
    n += 1
    time.sleep(0.0005)
print(n, flush=True)
"""


def _agent_lines(n: int) -> bytes:
    return b"".join(b'{"type":"progress","agentLine":%d}\n' % i for i in range(n))


def test_an_agent_holding_the_file_open_keeps_its_next_line(
    cli: CLI, corpus: dict[str, Path]  # noqa: F811
) -> None:
    path = corpus["notes"]
    original = path.read_bytes()
    cli.run("titles", "--write", "--session", NOTES)
    ours = path.read_bytes()[len(original) :]
    later = Transcript(session_id=NOTES, cwd="/home/dev/notes")
    later.time = later.time.replace(hour=15)
    agent = later.prompt("and the .stignore file?").reply("It ignores nothing yet.").append_to(path)
    age(path, 45)
    cli.run("index", "--no-embed")
    held = os.open(path, os.O_WRONLY | os.O_APPEND)  # the agent's own descriptor
    try:
        (undone,) = cli.json("titles", "--undo")["undone"]
        assert undone["status"] == "removed", undone
        os.write(held, b'{"type":"progress","after":"undo"}\n')
    finally:
        os.close(held)
    assert path.read_bytes() == original + agent + b'{"type":"progress","after":"undo"}\n'
    assert ours not in path.read_bytes()


def test_a_transcript_that_is_a_link_stays_a_link(
    cli: CLI, corpus: dict[str, Path], tmp_path: Path  # noqa: F811
) -> None:
    """The link's target holds the line (the write went through the link), the agent's
    lines follow it; undo takes ours out of the target and leaves the link a link."""
    path = corpus["deploy"]
    store = tmp_path / "home" / ".claude" / "projects" / ".kept"
    store.mkdir()
    target = store / "deploy.jsonl.kept"
    path.rename(target)
    path.symlink_to(target)
    original = target.read_bytes()
    cli.run("index", "--no-embed")
    written = cli.json("titles", "--write", "--session", "7c1e4a52")["sessions"]
    assert [r["status"] for r in written] == ["written"], written
    assert target.read_bytes() != original
    later = Transcript(session_id="7c1e4a52-0000-4000-8000-000000000002")
    later.time = later.time.replace(hour=15)
    agent = later.prompt("and the rollback?").reply("Rolled back.").append_to(path)
    age(target, 45)
    cli.run("index", "--no-embed")
    (undone,) = cli.json("titles", "--undo")["undone"]
    assert undone["status"] == "removed", undone
    assert path.is_symlink() and path.resolve() == target
    assert target.read_bytes() == original + agent


@pytest.mark.skipif(
    sys.platform == "win32", reason="a second process appending on POSIX semantics"
)
def test_undo_while_an_agent_appends_loses_no_line(
    cli: CLI, corpus: dict[str, Path], tmp_path: Path  # noqa: F811
) -> None:
    """With no quiet period, undo cuts our line out of the middle while another process
    appends a line every half millisecond: each of its lines is there once, in order."""
    path = corpus["notes"]
    if not collapses(str(path)):
        pytest.skip(
            "this file system cannot collapse a range (tmpfs, btrfs): undo shortens the"
            " file there, and an append in the microseconds before the cut could be lost"
        )
    original = path.read_bytes()
    cli.run("titles", "--write", "--session", NOTES)
    ours = path.read_bytes()[len(original) :]
    configure(cli, tmp_path, 'writer = "desk"\nquiet_minutes = 0')
    agent = subprocess.Popen(
        [sys.executable, "-c", APPENDER, str(path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert agent.stdout is not None and agent.stdin is not None
    assert agent.stdout.readline().strip() == "ready"
    try:
        time.sleep(0.2)  # lines after ours before undo starts
        (undone,) = cli.json("titles", "--undo")["undone"]
        time.sleep(0.2)  # and after it is done
    finally:
        agent.stdin.close()
        written = int(agent.stdout.readline())
        agent.wait(10)
    assert undone["status"] == "removed", undone
    data = path.read_bytes()
    assert ours not in data
    assert data == original + _agent_lines(written), "a line of the agent's went missing"


def test_our_line_last_is_cut_with_nothing_else(
    cli: CLI, corpus: dict[str, Path], tmp_path: Path  # noqa: F811
) -> None:
    """No agent line after ours: the file is exactly as before the write, mode and all."""
    path = corpus["notes"]
    path.chmod(0o640)
    original = path.read_bytes()
    cli.run("titles", "--write", "--session", NOTES)
    assert cli.json("titles", "--undo")["undone"][0]["status"] == "removed"
    assert path.read_bytes() == original and path.stat().st_mode & 0o777 == 0o640
    assert not [p for p in path.parent.iterdir() if p.name.startswith(".")]

