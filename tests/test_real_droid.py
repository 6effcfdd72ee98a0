"""Real Factory Droid session files of other people (`../shared/realfiles/droid/<owner+repo>/`,
the `.factory/sessions/<project>/<id>.jsonl` as their Droid wrote them and they published
them), through the real CLI, against the raw lines, never our reader.

LAF-US/IDAHO-VAULT @c1c3fe9 committed a Windows home's `.factory` (Droid of April 2026)
with one session file: its `session_start` line alone (`title` and `sessionTitle` both
`New Session`, `version: 2`, a `C:\\` working directory), a session opened and left before
anything was typed. It must read with no problem and give no session. These tests skip,
saying so, where the shared folder is absent.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import CLI, SHARED

REAL = SHARED / "realfiles" / "droid"
HOMES = sorted(p for p in REAL.iterdir() if p.is_dir()) if REAL.is_dir() else []
pytestmark = pytest.mark.skipif(
    not HOMES, reason=f"no real Droid sessions at {REAL} (only developers have them)"
)


def typed(path: Path) -> list[str]:
    """The user messages' text of one file, counted from its raw lines."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        obj = json.loads(line)
        message = obj.get("message") if obj.get("type") == "message" else None
        if isinstance(message, dict) and message.get("role") == "user":
            out += [b["text"] for b in message["content"] if b.get("type") == "text"]
    return out


@pytest.mark.parametrize("home", HOMES, ids=[p.name for p in HOMES])
def test_each_real_file_reads_without_a_problem(cli: CLI, home: Path) -> None:
    files = sorted(home.rglob("*.jsonl"))
    report = cli.json("index", "--no-embed", "--source", "droid", str(home))
    assert report["errors"] == report["problems"] == []
    assert files and report["files_seen"] == len(files)
    empty = 0
    for path in files:
        start = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
        assert start["type"] == "session_start"
        found = cli.run("read", start["id"], check=False)
        if typed(path):
            assert found.returncode == 0, path.name
        else:  # a session nothing was typed in is none
            assert found.returncode != 0, path.name
            empty += 1
    listed = {s["kind"]: s for s in cli.json("sources")["sources"]}
    assert listed["droid"]["sessions"] == len(files) - empty
