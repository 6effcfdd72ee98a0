"""Titles for agents whose format has no place for one: kept in the index, never written.

Codex rollouts are the example (the fixture home of tests/test_source_codex.py, copied):
`titles --write` leaves every byte of the Codex home as it was, the session's title in
the index becomes ours and stays ours when the rollout grows and is read again, and
`--undo` gives the session its own title back. A rebuilt index keeps the log of what we
wrote, so a Claude Code title line stays ours (and undoable) after `index --rebuild`.
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest
from conftest import CLI
from transcripts import Transcript, project_dir

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "codex" / "home"
LEGACY = "5e7c0d2a-1b34-4c56-9d78-0e1f2a3b4c5d"
NAMED = "019df26e-2d00-7f29-8645-deec08007ae4"  # renamed in session_index.jsonl


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture
def codex(cli: CLI, tmp_path: Path) -> Path:
    home = tmp_path / "codex"
    shutil.copytree(FIXTURE, home)
    cli.env["CODEX_HOME"] = str(home)
    cli.env.pop("FINDSESSION_MACHINE", None)  # no writer machine: none is needed here
    cli.run("index", "--no-embed")
    return home


def test_codex_titles_live_in_the_index_and_its_files_are_untouched(cli: CLI, codex: Path) -> None:
    before = snapshot(codex)
    listed = {r["session"]["id"]: r for r in cli.json("titles")["sessions"]}
    assert listed[LEGACY]["place"] == "index" and listed[LEGACY]["status"] == "proposed"
    assert listed[NAMED]["title_kind"] == "ai" and listed[NAMED]["status"] == "skipped"
    title = listed[LEGACY]["title"]
    assert "pruning" in title.split("-") and "calendar" in title.split("-")

    written = {r["session"]["id"]: r for r in cli.json("titles", "--write")["sessions"]}
    assert written[LEGACY]["status"] == "indexed" and written[LEGACY]["reason"] is None
    assert snapshot(codex) == before
    assert cli.json("read", LEGACY)["session"]["title"] == title
    assert LEGACY not in {r["session"]["id"] for r in cli.json("titles")["sessions"]}

    rollout = next(codex.rglob(f"rollout-*{LEGACY}.jsonl"))
    with open(rollout, "a", encoding="utf-8") as fh:
        fh.write(
            '{"type": "message", "role": "user", "content": [{"type": "input_text",'
            ' "text": "And where do the grafting notes go?"}]}\n'
        )
    assert cli.json("index", "--no-embed")["files_read"] == 1
    assert cli.json("read", LEGACY)["session"]["title"] == title  # read again, still ours

    undone = cli.json("titles", "--undo", "--session", LEGACY[:8])["undone"]
    assert [(u["status"], u["offset"]) for u in undone] == [("removed", None)]
    own = "Explain the pruning calendar file format"  # its first prompt, as before
    assert cli.json("read", LEGACY)["session"]["title"] == own


def test_a_rebuilt_index_still_knows_the_lines_we_wrote(cli: CLI, tmp_path: Path) -> None:
    root = tmp_path / "home" / ".claude" / "projects"
    t = Transcript(session_id="5ac30ab5-0000-4000-8000-000000000001", cwd="/home/dev/notes")
    t.prompt("syncthing conflict copies keep appearing in my notes folder").reply("Merged.")
    path = t.write(project_dir(root, t.cwd))
    then = time.time() - 7200
    os.utime(path, (then, then))
    (tmp_path / "config.toml").write_text('[titles]\nwriter = "desk"\n')
    cli.env["FINDSESSION_MACHINE"] = "desk"
    original = path.read_bytes()
    cli.run("index", "--no-embed")
    cli.run("titles", "--write")
    assert path.read_bytes() != original

    cli.run("index", "--no-embed", "--rebuild")
    assert cli.json("titles")["sessions"] == []  # ours, not mistaken for the person's
    assert cli.json("titles", "--undo")["undone"][0]["status"] == "removed"
    assert path.read_bytes() == original
