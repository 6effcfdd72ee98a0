"""TRAE CLI 2.0's rollouts (`~/.trae/cli/sessions/…/rollout-*.jsonl` and
`archived_sessions/`), through the real CLI and Codex's reader: each session's prompts
counted by a reader of its own, a spawned subagent under its parent, the archived
rollout, blame through `apply_patch`, nothing written to the store, and
`traecli resume`.

The fixture (`fixtures/trae-cli/home/.trae/cli`) is laid out as other tools' readers
found TRAE CLI's real rollouts (Codex's shape, field for field), with synthetic text.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI

FIXTURE = Path(__file__).parent / "fixtures" / "trae-cli" / "home" / ".trae" / "cli"
MAIN = "01a2b3c4-0d1e-7f20-8a31-000000000101"
CHILD = "01a2b3c4-0d1e-7f20-8a31-000000000102"
OLD = "01a2b3c4-0d1e-7f20-8a31-000000000103"


@pytest.fixture
def home(cli: CLI, tmp_path: Path) -> Path:
    place = tmp_path / "home" / ".trae" / "cli"
    shutil.copytree(FIXTURE, place)
    return place


def hits(cli: CLI, query: str) -> list[dict[str, Any]]:
    return cli.json("search", "--mode", "keyword", "--source", "trae-cli", query)["results"]


def counted(path: Path) -> int:
    """A rollout's typed prompts, counted without findsession: its `user_message` events."""
    return sum(
        json.loads(line)["payload"].get("type") == "user_message"
        for line in path.read_text().splitlines()
        if json.loads(line)["type"] == "event_msg"
    )


def test_every_rollout_is_read_and_counted_and_none_written(cli: CLI, home: Path) -> None:
    before = {p: p.read_bytes() for p in home.rglob("*") if p.is_file()}
    report = cli.json("index", "--no-embed")
    assert str(home) in report["roots"] and report["errors"] == []
    assert report["files_read"] == 3 and report["problems"] == []
    listed = {s["kind"]: s for s in cli.json("sources")["sources"]}["trae-cli"]
    assert (listed["sessions"], listed["subagents"]) == (2, 1)
    for session in (MAIN, CHILD, OLD):
        [path] = home.rglob(f"rollout-*-{session}.jsonl")
        assert cli.json("read", session)["total_turns"] == counted(path), session
    assert cli.json("index", "--no-embed")["files_read"] == 0
    assert {p: p.read_bytes() for p in home.rglob("*") if p.is_file()} == before


def test_a_session_its_subagent_blame_and_resume(cli: CLI, home: Path) -> None:
    cli.json("index", "--no-embed")
    session = hits(cli, "night tram service day rolls over")[0]["session"]
    assert session["id"] == MAIN and session["cwd"] == "/home/dev/tram-timetable"
    agent = [h for h in hits(cli, "pocket timetable GTFS exporter") if h["session"]["subagent"]]
    assert [(h["session"]["id"], h["session"]["parent_id"]) for h in agent] == [(CHILD, MAIN)]
    assert [h["session"]["id"] for h in hits(cli, "Nordring depot")] == [OLD]  # archived
    writes = cli.json("blame", "/home/dev/tram-timetable/src/timetable.py")["writers"]
    assert [(w["session"]["id"], w["op"]) for w in writes] == [(MAIN, "patch")]
    resume = hits(cli, "night tram service day")[0]["resume"]
    assert resume["command"] == ["traecli", "resume", MAIN]
    assert resume["cwd"] == "/home/dev/tram-timetable" and "Codex" in resume["note"]
    assert cli.json("read", MAIN, "--raw")["turns"] == cli.json("read", MAIN)["turns"]
