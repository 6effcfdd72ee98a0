"""Continue's sessions (`~/.continue/sessions/<id>.json`), through the real CLI: each
session counted by a reader of its own, what was typed apart from what was attached,
thinking, tool calls with their outputs (a failed one kept out of blame), titles and
Continue's placeholders, the folder from an editor's URI, times from Continue's list,
a session caught half written, and `cn --fork`.

The fixture (`fixtures/continue/sessions`) is written from Continue's own types
(`core/index.d.ts`, `core/util/history.ts`): an agent-mode session from the editor, a
chat-mode one titled with the editor's placeholder, and one from the CLI.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI

FIXTURE = Path(__file__).parent / "fixtures" / "continue" / "sessions"
HIVE = "7b1e4f20-1c2d-4e3f-8a9b-0c1d2e3f4a01"
WIND = "7b1e4f20-1c2d-4e3f-8a9b-0c1d2e3f4a02"
VENT = "7b1e4f20-1c2d-4e3f-8a9b-0c1d2e3f4a03"


@pytest.fixture
def sessions(cli: CLI, tmp_path: Path) -> Path:
    """The fixture in Continue's standard place under the CLI's home."""
    place = tmp_path / "home" / ".continue" / "sessions"
    shutil.copytree(FIXTURE, place)
    return place


def hits(cli: CLI, query: str) -> list[dict[str, Any]]:
    return cli.json("search", "--mode", "keyword", "--source", "continue", query)["results"]


def found(cli: CLI, query: str) -> list[str]:
    return [h["session"]["id"] for h in hits(cli, query)]


def index(cli: CLI) -> dict[str, Any]:
    return cli.json("index", "--no-embed")


def typed_prompts(path: Path) -> int:
    """A session's typed prompts, counted without findsession: user messages with text."""

    def text(content: Any) -> str:
        if isinstance(content, str):
            return content
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))

    history = json.loads(path.read_text())["history"]
    return sum(
        1
        for item in history
        if item["message"]["role"] == "user" and text(item["message"]["content"]).strip()
    )


def test_every_session_is_read_and_counted_and_the_list_is_not_one(
    cli: CLI, sessions: Path
) -> None:
    report = index(cli)
    assert str(sessions) in report["roots"] and report["errors"] == []
    assert report["files_read"] == 3  # not sessions.json
    [problem] = report["problems"]  # the role not known here
    assert (problem["line"], problem["reason"]) == (4, "unknown role")
    listed = {s["kind"]: s for s in cli.json("sources")["sources"]}["continue"]
    assert (listed["files"], listed["sessions"]) == (3, 3)
    for path in sorted(sessions.glob("7b1e*.json")):
        assert cli.json("read", path.stem)["total_turns"] == typed_prompts(path), path.name
    assert index(cli)["files_read"] == 0


def test_an_agent_session_gives_its_prompts_replies_thinking_and_tools(
    cli: CLI, sessions: Path
) -> None:
    index(cli)
    session = hits(cli, "beehive scale drift night")[0]["session"]
    assert session["id"] == HIVE and session["title"] == "Beehive scale calibration"
    assert session["cwd"] == "/home/dev/bee hive"  # the editor's file URI, unquoted
    assert session["started"] == "2026-05-28T20:26:40.000Z"  # from Continue's list
    assert found(cli, "TARE_OFFSET") == [HIVE]  # the driver the tool read
    assert found(cli, "whole prompt sent again") == []  # the prompt logs are not read
    messages = cli.json("read", HIVE, "--tools")["turns"][0]["messages"]
    assert [(m["kind"], m["tool"]) for m in messages] == [
        ("prompt", None),
        ("thinking", None),
        ("reply", None),
        ("tool_call", "read_file"),
        ("tool_output", "read_file"),
        ("tool_call", "create_new_file"),
        ("tool_call", "run_terminal_command"),
        ("tool_output", "create_new_file"),
        ("tool_output", "run_terminal_command"),
        ("thinking", None),
        ("reply", None),
    ]
    assert cli.json("read", HIVE, "--raw")["turns"] == cli.json("read", HIVE)["turns"]


def test_an_attached_file_is_context_and_a_placeholder_title_is_no_title(
    cli: CLI, sessions: Path
) -> None:
    index(cli)
    hive = cli.json("read", HIVE)["turns"][0]["messages"][0]
    assert "TARE_OFFSET" not in hive["text"]  # the attached file is not what was typed
    wind = hits(cli, "anemometer reed switch")[0]["session"]
    assert wind["id"] == WIND and wind["title"].startswith("How do I debounce")
    vent = hits(cli, "vent controller")[0]["session"]
    assert vent["title"].startswith("Rename the vent")  # not "Untitled Session"


def test_blame_and_cn_fork(cli: CLI, sessions: Path) -> None:
    index(cli)
    writes = cli.json("blame", "/home/dev/bee hive/src/thermal.py")["writers"]
    assert [(w["session"]["id"], w["op"]) for w in writes] == [(HIVE, "create")]
    edits = cli.json("blame", "/home/dev/greenhouse/vent.py")["writers"]
    assert [(w["session"]["id"], w["op"]) for w in edits] == [(VENT, "edit")]
    resume = hits(cli, "vent controller")[0]["resume"]
    assert resume["command"] == ["cn", "--fork", VENT]
    assert resume["cwd"] == "/home/dev/greenhouse" and "fork" in resume["note"]


def test_a_session_rewritten_in_place_and_one_caught_half_written(cli: CLI, sessions: Path) -> None:
    index(cli)
    path = sessions / f"{WIND}.json"
    doc = json.loads(path.read_text())
    doc["history"] += [
        {"message": {"role": "user", "content": "And the rain gauge tipping bucket?"},
         "contextItems": []},
        {"message": {"role": "assistant", "content": "Count each tip as a fifth of a millimetre."},
         "contextItems": []},
    ]  # fmt: skip
    whole = json.dumps(doc, indent=2)
    path.write_text(whole[: whole.index("fifth of")])  # Continue is still writing it
    report = index(cli)
    [problem] = [p for p in report["problems"] if p["path"] == str(path)]
    assert problem["reason"] == "truncated JSON" and report["errors"] == []
    assert found(cli, "tipping bucket") == []
    assert found(cli, "anemometer") == [WIND]  # what was indexed stays
    path.write_text(whole)
    index(cli)
    assert found(cli, "tipping bucket") == [WIND]
    assert cli.json("read", WIND)["total_turns"] == 2


def step(kind: str, description: str, hide: bool = False, deleted: bool = False,
         **fields: Any) -> dict[str, Any]:  # fmt: skip
    """A node of the 2023 extension's timeline: a step (its class, what it showed) and
    the node's flags."""
    body = {"name": kind, "hide": hide, "description": description, "class_name": kind,
            "chat_context": [], "manage_own_chat_context": False}  # fmt: skip
    return {"step": {**body, **fields}, "observation": None, "depth": 0, "deleted": deleted,
            "active": False, "logs": [], "context_used": []}  # fmt: skip


def test_a_session_of_the_2023_extension_gives_its_steps(cli: CLI, sessions: Path) -> None:
    """Continue's first extension (its Python server, 2023) saved a session as its whole
    state: `history.timeline` of steps, and `session_info` for the title, time and folder.
    Such a file gave nothing, and said nothing."""
    key = "3c9d2a10-5e6f-4a7b-8c9d-0e1f2a3b4c5d"
    timeline = [
        step("StepsOnStartupStep", "Running steps on startup", hide=True),
        step("UserInputStep", "Why does the greenhouse fan stall at dawn?",
             user_input="Why does the greenhouse fan stall at dawn?"),
        step("SimpleChatStep", "The fan's relay chatters while the dew sensor warms up."),
        step("UserInputStep", "a question taken back", deleted=True,
             user_input="a question taken back"),
        step("UserInputStep", "Add a warm-up delay to the relay",
             user_input="Add a warm-up delay to the relay"),
        step("SimpleChatStep", "The relay now waits ninety seconds after sunrise."),
    ]  # fmt: skip
    state = {
        "history": {"timeline": timeline, "current_index": len(timeline) - 1},
        "active": False, "user_input_queue": [], "selected_context_items": [],
        "session_info": {"session_id": key, "title": "Greenhouse fan stall",
                         "date_created": "1697509954.2427506",
                         "workspace_directory": "c:\\Users\\dev\\greenhouse"},
    }  # fmt: skip
    (sessions / f"{key}.json").write_text(json.dumps(state), encoding="utf-8")
    report = index(cli)
    assert [p for p in report["problems"] if key in p["path"]] == [] and report["errors"] == []
    [session] = [h["session"] for h in hits(cli, "fan stall dawn") if h["session"]["id"] == key]
    assert session["title"] == "Greenhouse fan stall"
    assert session["cwd"] == "c:\\Users\\dev\\greenhouse"
    assert session["started"] == "2023-10-17T02:32:34.242Z"
    turns = cli.json("read", key)["turns"]
    assert [[(m["kind"], m["text"]) for m in t["messages"]] for t in turns] == [
        [("prompt", "Why does the greenhouse fan stall at dawn?"),
         ("reply", "The fan's relay chatters while the dew sensor warms up.")],
        [("prompt", "Add a warm-up delay to the relay"),
         ("reply", "The relay now waits ninety seconds after sunrise.")],
    ]  # fmt: skip
    assert found(cli, "question taken back") == []  # a step the person deleted
