"""The OpenHands CLI's conversations (`~/.openhands/conversations/<id>/`), through the real
CLI: each conversation's prompts counted by a reader of its own, one file per event read
together, the folder from `base_state.json`, thinking apart from what the agent said,
tool calls and their outputs (rejected and failed ones kept out of blame), a subagent's
conversation under its parent's, a new event read when it lands, and `openhands --resume`.
Then the OpenHands app's conversations (`~/.openhands/sessions/<id>/`): prompts, replies,
calls and outputs per event file, the title and branch from `metadata.json`, a
conversation with nothing said left out.

The fixture (`fixtures/openhands/conversations`) is written from the OpenHands agent
SDK's event models (`openhands/sdk/event/`, `persistence_const.py`) and the CLI's
`locations.py`: a conversation with a subagent. The app's (`fixtures/openhands/app`) is
synthetic text laid out as real app conversations are (`tests/test_real_openhands.py`).
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
APP = Path(__file__).parent / "fixtures" / "openhands" / "app" / "sessions"
WATERING = "b7e2c41d9a0f4e3c8d1a2b3c4d5e6f70"


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


@pytest.fixture
def app_sessions(cli: CLI, tmp_path: Path) -> Path:
    place = tmp_path / "home" / ".openhands" / "sessions"
    shutil.copytree(APP, place)
    return place


def app_counts(folder: Path) -> tuple[int, int, int]:
    """Typed prompts, tool calls and outputs of an app conversation, counted without
    findsession: the person's `message` actions, actions the model called as a tool
    (`tool_call_metadata`) less `finish`, and observations with content other than the
    app's state changes, recalls and empty ones."""
    events = [json.loads(p.read_text()) for p in (folder / "events").glob("*.json")]
    said = sum(e.get("action") == "message" and e.get("source") == "user" for e in events)
    calls = sum("action" in e and "tool_call_metadata" in e and e["action"] != "finish"
                for e in events)  # fmt: skip
    quiet = ("agent_state_changed", "recall", "null")
    outputs = sum(e.get("observation") not in (None, *quiet) and bool(e.get("content"))
                  for e in events)  # fmt: skip
    return said, calls, outputs


def test_the_apps_conversations_are_read(cli: CLI, app_sessions: Path) -> None:
    report = index(cli)
    assert str(app_sessions) in report["roots"]
    assert report["errors"] == report["problems"] == [] and report["files_read"] == 2
    listed = {s["kind"]: s for s in cli.json("sources")["sources"]}["openhands"]
    assert listed["sessions"] == 1  # the conversation where nothing was said gives none
    read = cli.json("read", WATERING, "--tools")
    messages = [m for t in read["turns"] for m in t["messages"]]
    kinds = [m["kind"] for m in messages]
    counted = (kinds.count("prompt"), kinds.count("tool_call"), kinds.count("tool_output"))
    assert counted == app_counts(app_sessions / WATERING) == (2, 3, 4)
    session = read["session"]
    assert (session["title"], session["git_branch"]) == ("Greenhouse watering schedule", "main")
    assert [m["text"] for m in messages if m["kind"] == "reply"] == [
        "Let me look for the existing schedules first.",
        "The watering schedule is in watering.md; the beds by the door need water twice a"
        " day in July.",
        "Not yet: the cucumbers are missing from it.",
    ]  # the app's own "All done!" is no reply
    failed = [m["text"] for m in messages if m["kind"] == "tool_output" and m["is_error"]]
    assert len(failed) == 2 and "No such file" in failed[1]  # exit code 2
    assert found(cli, "system prompt") == found(cli, "Repository notes") == []
    writes = cli.json("blame", "/workspace/greenhouse/watering.md")["writers"]
    assert [(w["session"]["id"], w["op"]) for w in writes] == [(WATERING, "create")]
    resume = hits(cli, "cucumbers")[0]["resume"]
    assert resume["command"] is None and WATERING in resume["reason"]
    assert index(cli)["files_read"] == 0
    (app_sessions / WATERING / "events" / "20.json").write_text(json.dumps({
        "id": 20, "timestamp": "2026-05-04T09:12:00.000000", "source": "user",
        "message": "Add the cucumbers too", "action": "message",
        "args": {"content": "Add the cucumbers too", "image_urls": []},
    }))  # fmt: skip
    assert index(cli)["files_read"] == 1
    assert cli.json("read", WATERING)["total_turns"] == app_counts(app_sessions / WATERING)[0]
