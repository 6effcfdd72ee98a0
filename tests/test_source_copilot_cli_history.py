"""GitHub Copilot CLI's first layout, `~/.copilot/history-session-state/
session_<id>_<ms>.json` (one JSON document per session: `chatMessages` in OpenAI's form
and a `timeline` of what the CLI showed), and 1.0.10's title as `summary:` in
`workspace.yaml`, through the real CLI.

The documents are written here from that layout, with synthetic text.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI

FIXTURE = Path(__file__).parent / "fixtures" / "copilot-cli" / "home" / ".copilot"
FIRST = "0b5e7c1a-2d3f-4a6b-8c9d-1e2f3a4b5c6d"
LOGGED = "3f6c2a1e-8b4d-4c7a-9e21-5d0b7f3a1c44"  # the fixture's session with a log


def document(sid: str) -> dict[str, Any]:
    """A first-layout session: two prompts (the CLI added the time to the first one it
    sent), a reply, a tool call and its result."""
    return {
        "sessionId": sid,
        "startTime": "2025-10-08T21:10:16.398Z",
        "chatMessages": [
            {"role": "system", "content": "You are the GitHub Copilot CLI."},
            {"role": "user", "content": "why does the kiln controller overshoot\n\n"
             "<current_datetime>2025-10-08T21:10:16.400Z</current_datetime>"},
            {"role": "assistant", "content": "Let me read the PID loop.", "tool_calls": [
                {"id": "call_1", "type": "function", "function": {
                    "name": "str_replace_editor",
                    "arguments": json.dumps({"command": "view", "path": "/home/dev/kiln/pid.c"}),
                }},
            ]},
            {"role": "tool", "tool_call_id": "call_1", "name": "str_replace_editor",
             "content": "float kp = 9.5; /* integral windup */"},
            {"role": "assistant", "content": "The integral term winds up: clamp it."},
            {"role": "user", "content": "clamp the integral at forty"},
            {"role": "assistant", "content": "Clamped the integral at forty."},
        ],
        "timeline": [
            {"id": "t1", "timestamp": "2025-10-08T21:10:16.400Z", "type": "user",
             "text": "why does the kiln controller overshoot", "mentions": []},
            {"id": "t2", "timestamp": "2025-10-08T21:10:20.000Z", "type": "copilot",
             "text": "Let me read the PID loop."},
            {"id": "t3", "timestamp": "2025-10-08T21:12:40.000Z", "type": "user",
             "text": "clamp the integral at forty", "mentions": []},
        ],
    }  # fmt: skip


@pytest.fixture
def copilot(cli: CLI, tmp_path: Path) -> Path:
    home = tmp_path / "copilot-home"
    shutil.copytree(FIXTURE, home)
    cli.env["COPILOT_HOME"] = str(home)
    history = home / "history-session-state"
    history.mkdir()
    (history / f"session_{FIRST}_1759957816398.json").write_text(json.dumps(document(FIRST)))
    # A session the later CLI carried into `session-state/`: its log is the one read.
    (history / f"session_{LOGGED}_1759900000000.json").write_text(json.dumps(document(LOGGED)))
    return home


def test_the_first_layout_is_found_read_and_searched(cli: CLI, copilot: Path) -> None:
    report = cli.json("index", "--no-embed")
    assert str(copilot / "history-session-state") in report["roots"]
    assert report["errors"] == []
    assert [p for p in report["problems"] if "history-session-state" in p["path"]] == []
    sources = {s["kind"]: s for s in cli.json("sources")["sources"]}["copilot-cli"]
    assert (sources["files"], sources["sessions"]) == (3, 3)  # two logs and one document

    hit = cli.json("search", "--mode", "keyword", "integral windup")["results"][0]
    assert hit["session"]["id"] == FIRST and hit["resume"]["command"][:2] == ["copilot", "--resume"]
    turns = cli.json("read", FIRST, "--tools")["turns"]
    assert [t["timestamp"] for t in turns] == [
        "2025-10-08T21:10:16.400Z",
        "2025-10-08T21:12:40.000Z",
    ]
    first = [(m["kind"], m["tool"], m["text"]) for m in turns[0]["messages"]]
    assert first == [
        ("prompt", None, "why does the kiln controller overshoot"),
        ("reply", None, "Let me read the PID loop."),
        ("tool_call", "str_replace_editor", "command: view\npath: /home/dev/kiln/pid.c"),
        ("tool_output", "str_replace_editor", "float kp = 9.5; /* integral windup */"),
        ("reply", None, "The integral term winds up: clamp it."),
    ]
    assert turns[1]["messages"][0]["text"] == "clamp the integral at forty"
    assert cli.json("read", FIRST, "--raw")["turns"] == cli.json("read", FIRST)["turns"]
    assert cli.json("index", "--no-embed")["files_read"] == 0


def test_a_document_with_only_a_timeline_is_read_from_it(cli: CLI, copilot: Path) -> None:
    doc = document(FIRST)
    del doc["chatMessages"]
    doc["timeline"] += [
        {"id": "t4", "timestamp": "2025-10-08T21:12:45.000Z", "type": "tool_call_completed",
         "callId": "c9", "name": "bash", "arguments": {"command": "make flash"},
         "result": {"type": "success", "log": "flashed the kiln firmware"}},
    ]  # fmt: skip
    path = next((copilot / "history-session-state").glob(f"session_{FIRST}_*.json"))
    path.write_text(json.dumps(doc))
    cli.run("index", "--no-embed")
    turns = cli.json("read", FIRST, "--tools")["turns"]
    assert [[m["kind"] for m in t["messages"]] for t in turns] == [
        ["prompt", "reply"],
        ["prompt", "tool_call", "tool_output"],
    ]


def test_a_title_written_as_summary_names_the_session(cli: CLI, copilot: Path) -> None:
    """Copilot CLI 1.0.10 writes the session's title as `summary:`, with no `name:`."""
    workspace = copilot / "session-state" / LOGGED / "workspace.yaml"
    lines = [ln for ln in workspace.read_text().splitlines() if not ln.startswith("name:")]
    workspace.write_text("\n".join([*lines, "summary: Kiln humidity sensor at midnight"]) + "\n")
    cli.run("index", "--no-embed")
    hit = cli.json("search", "--mode", "keyword", "humidity sensor midnight")["results"][0]
    assert (hit["session"]["id"], hit["session"]["title"]) == (
        LOGGED,
        "Kiln humidity sensor at midnight",
    )


def test_the_folder_a_document_says_was_trusted_is_its_project(cli: CLI, copilot: Path) -> None:
    """A document names no folder but in what the CLI showed: the folder the person
    trusted at its start (as the flat logs of the same CLI do), else the working
    directory its system prompt gives."""
    doc = document(FIRST)
    trust = "Folder /home/dev/kiln has been added to trusted folders."
    doc["timeline"].insert(0, {"id": "t0", "timestamp": "2025-10-08T21:10:16.399Z",
                               "type": "info", "text": trust})  # fmt: skip
    path = next((copilot / "history-session-state").glob(f"session_{FIRST}_*.json"))
    path.write_text(json.dumps(doc))
    cli.run("index", "--no-embed")
    assert cli.json("read", FIRST)["session"]["cwd"] == "/home/dev/kiln"

    doc = document(FIRST)
    doc["chatMessages"][0]["content"] += "\n* Current working directory: /home/dev/kiln-two\n"
    path.write_text(json.dumps(doc))
    cli.run("index", "--no-embed")
    assert cli.json("read", FIRST)["session"]["cwd"] == "/home/dev/kiln-two"
