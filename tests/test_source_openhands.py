"""The OpenHands CLI's conversations (`~/.openhands/conversations/<id>/`), through the real
CLI: each conversation's prompts counted by a reader of its own, one file per event read
together, the folder from `base_state.json`, thinking apart from what the agent said,
tool calls and their outputs (rejected and failed ones kept out of blame), a subagent's
conversation under its parent's, a new event read when it lands, and `openhands --resume`.

The fixture (`fixtures/openhands/conversations`) is written from the OpenHands agent
SDK's event models (`openhands/sdk/event/`, `persistence_const.py`) and the CLI's
`locations.py`: a conversation with a subagent.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI

FIXTURE = Path(__file__).parent / "fixtures" / "openhands" / "conversations"
VENT = "8d2f6a1c4b3e4f5a9c0d1e2f3a4b5c6d"
SENSOR = "8d2f6a1c4b3e4f5a9c0d1e2f3a4b5c7e"


@pytest.fixture
def conversations(cli: CLI, tmp_path: Path) -> Path:
    place = tmp_path / "home" / ".openhands" / "conversations"
    shutil.copytree(FIXTURE, place)
    return place


def hits(cli: CLI, query: str) -> list[dict[str, Any]]:
    return cli.json("search", "--mode", "keyword", "--source", "openhands", query)["results"]


def found(cli: CLI, query: str) -> list[str]:
    return [h["session"]["id"] for h in hits(cli, query)]


def index(cli: CLI) -> dict[str, Any]:
    return cli.json("index", "--no-embed")


def prompts(folder: Path) -> int:
    """A conversation's typed prompts, counted without findsession: the person's
    `MessageEvent`s with text, one event file each."""
    count = 0
    for path in (folder / "events").glob("event-*.json"):
        event = json.loads(path.read_text())
        message = event.get("llm_message") or {}
        if event.get("kind") == "MessageEvent" and event.get("source") == "user":
            count += any(c.get("text", "").strip() for c in message.get("content", []))
    return count


def test_every_conversation_is_read_and_counted(cli: CLI, conversations: Path) -> None:
    report = index(cli)
    assert str(conversations) in report["roots"] and report["errors"] == []
    assert report["files_read"] == 2
    [problem] = report["problems"]
    assert problem["reason"] == "unknown event" and problem["line"] == 18
    listed = {s["kind"]: s for s in cli.json("sources")["sources"]}["openhands"]
    assert (listed["sessions"], listed["subagents"]) == (1, 1)
    for sid, folder in ((VENT, conversations / VENT),
                        (SENSOR, conversations / VENT / "subagents" / SENSOR)):  # fmt: skip
        assert cli.json("read", sid)["total_turns"] == prompts(folder), sid
    assert index(cli)["files_read"] == 0


def test_a_conversation_gives_its_folder_prompts_thinking_replies_and_tools(
    cli: CLI, conversations: Path
) -> None:
    index(cli)
    session = hits(cli, "greenhouse vent shut thirty")[0]["session"]
    assert session["id"] == VENT and session["cwd"] == "/home/dev/greenhouse"
    assert session["started"] == "2026-06-16T05:39:45.000Z"
    assert found(cli, "REPOSITORY_INFO") == []  # the context the SDK added is no prompt
    messages = cli.json("read", VENT, "--tools")["turns"][0]["messages"]
    assert [(m["kind"], m["tool"]) for m in messages] == [
        ("prompt", None),
        ("thinking", None),
        ("reply", None),
        ("tool_call", "file_editor"),
        ("tool_output", "file_editor"),
        ("tool_call", "file_editor"),
        ("tool_output", "file_editor"),
        ("tool_call", "terminal"),
        ("tool_output", "terminal"),
        ("tool_call", "task"),
        ("tool_output", "task"),
        ("thinking", None),
        ("reply", None),
    ]
    assert "<think>" not in messages[2]["text"]  # the reply without its thinking
    assert cli.json("read", VENT, "--raw")["turns"] == cli.json("read", VENT)["turns"]
    resume = hits(cli, "greenhouse vent")[0]["resume"]
    assert resume["command"] == ["openhands", "--resume", VENT]
    assert resume["cwd"] == "/home/dev/greenhouse"


def test_a_subagent_conversation_and_blame(cli: CLI, conversations: Path) -> None:
    index(cli)
    [sub] = [h for h in hits(cli, "NORTH_WALL_THERMISTOR") if h["session"]["subagent"]]
    assert sub["session"]["id"] == SENSOR and sub["session"]["parent_id"] == VENT
    edits = cli.json("blame", "/home/dev/greenhouse/vent.py")["writers"]
    assert [(w["session"]["id"], w["op"]) for w in edits] == [(VENT, "edit")]
    rejected = cli.json("blame", "/home/dev/greenhouse/humidity.py")["writers"]
    assert rejected == []  # the person rejected the write: nothing was written


def test_a_new_event_file_is_read_when_it_lands(cli: CLI, conversations: Path) -> None:
    index(cli)
    events = conversations / VENT / "events"
    event = {
        "id": "00000000-0000-0000-0000-00000000ffff",
        "timestamp": "2026-06-16T07:00:00.000000",
        "source": "user",
        "llm_message": {"role": "user", "content": [{"type": "text",
                        "text": "Shade the seedlings at noon"}]},
        "extended_content": [],
        "kind": "MessageEvent",
    }  # fmt: skip
    (events / "event-00019-00000000-0000-0000-0000-00000000ffff.json").write_text(json.dumps(event))
    assert index(cli)["files_read"] == 1
    assert found(cli, "seedlings noon") == [VENT]
    assert cli.json("read", VENT)["total_turns"] == prompts(conversations / VENT) == 3
