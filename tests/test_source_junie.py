"""JetBrains Junie's sessions (`~/.junie/sessions/<session>/events.jsonl`), through the
real CLI: each session's prompts counted by a reader of its own, every block of the
agent's work read once though Junie sends it again as it changes, thinking, replies,
shell calls and their failures, titles and folders from `index.jsonl`, the agent's
scratch folders left out, and no resume.

The fixture (`fixtures/junie/sessions`) follows what other tools' readers found in
captured Junie logs (JetBrains publishes no format): a session with two tasks and a
question the agent asked, and a short one with an event of a kind not known here.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI

FIXTURE = Path(__file__).parent / "fixtures" / "junie" / "sessions"
ODO = "session-260601-093000-ab12"
CADENCE = "session-260602-101500-cd34"


@pytest.fixture
def sessions(cli: CLI, tmp_path: Path) -> Path:
    place = tmp_path / "home" / ".junie" / "sessions"
    shutil.copytree(FIXTURE, place)
    return place


def hits(cli: CLI, query: str) -> list[dict[str, Any]]:
    return cli.json("search", "--mode", "keyword", "--source", "junie", query)["results"]


def found(cli: CLI, query: str) -> list[str]:
    return [h["session"]["id"] for h in hits(cli, query)]


def index(cli: CLI) -> dict[str, Any]:
    return cli.json("index", "--no-embed")


def prompts(log: Path) -> int:
    """A session's prompts, counted without findsession: its prompt and answer lines."""
    kinds = [json.loads(line).get("kind") for line in log.read_text().splitlines()]
    return sum(k in ("UserPromptEvent", "UserResponseEvent") for k in kinds)


def test_every_session_is_read_and_counted(cli: CLI, sessions: Path) -> None:
    report = index(cli)
    assert str(sessions) in report["roots"] and report["errors"] == []
    assert report["files_read"] == 2  # not the agent's scratch log under a task folder
    [problem] = report["problems"]
    assert problem["reason"] == "unknown event" and problem["line"] == 3
    for sid in (ODO, CADENCE):
        assert cli.json("read", sid)["total_turns"] == prompts(sessions / sid / "events.jsonl")
    assert found(cli, "scratch state") == []
    assert index(cli)["files_read"] == 0


def test_each_block_once_as_its_last_copy_says(cli: CLI, sessions: Path) -> None:
    index(cli)
    session = hits(cli, "odometer battery swap")[0]["session"]
    assert session["id"] == ODO and session["title"] == "Odometer survives battery swap"
    assert session["cwd"] == "/home/dev/bike computer"
    first = cli.json("read", ODO, "--tools")["turns"][0]["messages"]
    assert [(m["kind"], m["tool"]) for m in first] == [
        ("prompt", None),
        ("thinking", None),
        ("tool_call", "terminal"),
        ("tool_output", "terminal"),
        ("tool_call", "viewfiles"),
        ("tool_call", "terminal"),
        ("tool_output", "terminal"),
        ("reply", None),
        ("reply", None),
    ]
    assert first[0]["text"].startswith("Why does the bike computer")  # typed, not sent
    assert first[1]["text"].endswith("never flushed to flash.")  # the block's last copy
    assert first[7]["text"].endswith("every kilometre.")
    assert found(cli, "odometer_ram") == [ODO]
    answer = cli.json("read", ODO)["turns"][2]["messages"][0]
    assert answer["kind"] == "prompt" and "rider resets" in answer["text"]
    assert cli.json("read", ODO, "--raw")["turns"] == cli.json("read", ODO)["turns"]
    resume = hits(cli, "odometer")[0]["resume"]
    assert resume["command"] is None and "Junie" in resume["reason"]


def test_the_folder_and_a_new_title_from_the_index(cli: CLI, sessions: Path) -> None:
    index(cli)
    cadence = hits(cli, "cadence sensor constants")[0]["session"]
    assert cadence["cwd"] == "/home/dev/cadence"  # its log names no folder
    listing = sessions / "index.jsonl"
    entries = [json.loads(line) for line in listing.read_text().splitlines()]
    entries[1]["taskName"] = "Pedal cadence names"
    listing.write_text("".join(json.dumps(e) + "\n" for e in entries))
    index(cli)
    assert hits(cli, "cadence sensor constants")[0]["session"]["title"] == "Pedal cadence names"
