"""VS Code Copilot Chat sessions: the operation log replayed into the session it holds,
found in VS Code's `User` folder, searched, read back and read again when it changes,
through the real CLI.

The fixture (`fixtures/vscode-copilot/home/.config/Code/User`), written from the
documented format, holds a workspace whose `chatSessions/` has an operation log (a
request pushed, its response pushed and then truncated and re-pushed, thinking, a
terminal tool call, a file edit, a title set, duplicate tool-call rounds, an unsent
draft, a request pushed then truncated away, a malformed line, an operation on a path
that does not exist) beside its stale `.json` twin and an editing-state folder; a second
workspace opened from a `.code-workspace` file with an older `.json` session; and an
empty window's session.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI

FIXTURE = Path(__file__).parent / "fixtures" / "vscode-copilot" / "home" / ".config"
HIVE = "4d2b8e61-0c7a-4f39-b5e2-8a1c6d9f3e07"
SCALE = "a7f3c1e9-5b28-4d60-9e14-2c8b0f6a4d91"
NUC = "c3e9a5b7-1d46-4f82-a0c3-7e5b9d1f2a68"


@pytest.fixture
def user(cli: CLI) -> Path:
    """A copy of the fixture as the CLI's `~/.config/Code/User`."""
    config = Path(cli.env["HOME"]) / ".config"
    shutil.copytree(FIXTURE, config)
    cli.env["XDG_CONFIG_HOME"] = str(config)
    return config / "Code" / "User"


def log(user: Path) -> Path:
    return next((user / "workspaceStorage").glob(f"*/chatSessions/{HIVE}.jsonl"))


def hits(cli: CLI, query: str) -> list[dict[str, Any]]:
    return cli.json("search", "--mode", "keyword", "--source", "vscode-copilot", query)["results"]


def found(cli: CLI, query: str) -> list[str]:
    return [h["session"]["id"] for h in hits(cli, query)]


def test_vs_codes_places_are_indexed_and_a_session_found(cli: CLI, user: Path) -> None:
    report = cli.json("index", "--no-embed")
    assert str(user / "workspaceStorage") in report["roots"]
    assert str(user / "globalStorage" / "emptyWindowChatSessions") in report["roots"]
    # The log, the older workspace's `.json` and the empty window's log; not the stale
    # `.json` twin of the log, not the editing state.
    assert report["files_read"] == 3 and report["errors"] == []
    listed = {s["kind"]: s for s in cli.json("sources")["sources"]}["vscode-copilot"]
    assert (listed["files"], listed["sessions"]) == (3, 3)

    hit = hits(cli, "log hive temperature every ten minutes")[0]
    session = hit["session"]
    assert session["id"] == HIVE and session["turns"] == 2
    assert session["title"] == "Hive temperature logging"  # the `customTitle` set later
    assert session["cwd"] == "/home/dev/beehive"  # the workspace's folder
    assert session["started"].startswith("2026-03-07")  # the request's own time
    assert hit["resume"]["available"] is False and "chat view" in hit["resume"]["reason"]
    # Truncated away, an unsent draft, duplicated rounds, a stale twin, editing state:
    for gone in ("honey supers", "excluder", "varroa", "wax moths", "propolis"):
        assert found(cli, gone) == [], gone
    assert cli.json("index", "--no-embed")["files_read"] == 0  # unchanged: a stat each


def test_a_request_reads_as_a_turn_of_prompt_reply_and_tools(cli: CLI, user: Path) -> None:
    report = cli.json("index", "--no-embed")
    assert [(p["path"], p["line"], p["reason"]) for p in report["problems"]] == [
        (str(log(user)), 8, "malformed JSON")
    ]
    turns = cli.json("read", HIVE, "--tools")["turns"]
    first = [(m["kind"], m["tool"], m["text"]) for m in turns[0]["messages"]]
    thought = "The sensor already polls every minute; only the logging interval changes."
    assert first == [
        ("prompt", None, "How do I log hive temperature every ten minutes?"),
        ("reply", None, "Use a scheduler rather than a sleep loop."),
        ("thinking", None, thought),
        ("tool_call", "run_in_terminal", "crontab -l\nRan `crontab -l`"),
        ("reply", None, "Add `*/10 * * * * hive-log` to the crontab."),
    ]  # fmt: skip
    second = [(m["kind"], m["tool"], m["text"]) for m in turns[1]["messages"]]
    assert second[1] == ("tool_call", "edit", "/home/dev/beehive/chart.py")
    # An inline file reference reads as the name it shows.
    assert second[2] == ("reply", None, "Added chart.py, which plots each frame's temperature.")
    edit = hits(cli, "chart readings per frame")[0]
    assert "/home/dev/beehive/chart.py" in edit["match"]["files"]
    raw = cli.json("read", HIVE, "--raw")["turns"][1]["messages"]
    assert raw[0]["text"] == "Now chart the readings per frame"


def test_other_places_and_the_older_json_form(cli: CLI, user: Path) -> None:
    cli.run("index", "--no-embed")
    scale = hits(cli, "swarm trap scale drifting")[0]
    assert scale["session"]["id"] == SCALE
    assert scale["session"]["cwd"] == "/home/dev/apiary"  # the .code-workspace's folder
    nuc = hits(cli, "nucleus colony")[0]
    assert nuc["session"]["id"] == NUC and nuc["session"]["cwd"] is None  # empty window


def test_a_changed_log_is_replayed_again_and_a_compacted_one_too(cli: CLI, user: Path) -> None:
    cli.run("index", "--no-embed")
    path = log(user)
    with path.open("a") as fh:
        request = {"requestId": "request_b4", "timestamp": 1772900200000,
                   "message": {"text": "Alert me when a frame drops below 30 degrees"},
                   "response": [{"value": "A cold-frame alert fires below 30 C."}]}  # fmt: skip
        fh.write(json.dumps({"kind": 2, "k": ["requests"], "v": [request]}) + "\n")
    assert cli.json("index", "--no-embed")["files_read"] == 1
    hit = hits(cli, "cold frame alert degrees")[0]
    assert hit["session"]["id"] == HIVE and hit["match"]["turn"] == 3
    before = cli.json("read", HIVE, "--tools")

    # VS Code compacts a long log into one snapshot: the same session, nothing doubled.
    state = {
        "version": 3,
        "sessionId": HIVE,
        "creationDate": 1772900000000,
        "customTitle": "Hive temperature logging",
        "requests": _requests(path),
    }
    path.write_text(json.dumps({"kind": 0, "v": state}) + "\n")
    report = cli.json("index", "--no-embed")
    assert report["files_read"] == 1 and report["problems"] == []
    assert cli.json("read", HIVE, "--tools")["turns"] == before["turns"]
    assert found(cli, "cold frame alert")[0] == HIVE


def test_a_file_vs_code_is_still_writing_is_read_again_next_run(cli: CLI, user: Path) -> None:
    cli.run("index", "--no-embed")
    older = next((user / "workspaceStorage").glob(f"*/chatSessions/{SCALE}.json"))
    whole = older.read_bytes()
    older.write_bytes(whole[: len(whole) // 2])  # caught mid-rewrite
    fresh = (
        user
        / "globalStorage"
        / "emptyWindowChatSessions"
        / "0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9.jsonl"
    )
    fresh.write_text('{"kind": 0, "v": {"version": 3, "requests": [')  # mid-write

    report = cli.json("index", "--no-embed")
    errors = {Path(e["path"]).name: e["error"] for e in report["errors"]}
    assert set(errors) == {older.name, fresh.name}
    assert all("may be writing it" in e for e in errors.values())
    assert found(cli, "swarm trap scale")[0] == SCALE  # what it held is kept meanwhile

    older.write_bytes(whole)
    fresh.write_text(
        json.dumps({"kind": 0, "v": {"version": 3, "requests": [
            {"requestId": "request_f1", "message": {"text": "How many frames fit a deep box?"},
             "response": [{"value": "Ten frames fit a standard deep box."}]}]}}) + "\n"
    )  # fmt: skip
    report = cli.json("index", "--no-embed")
    # The older file is back to the bytes last indexed: nothing to read again.
    assert report["errors"] == [] and report["files_read"] == 1
    assert found(cli, "deep box")[0] == fresh.stem


def test_a_machine_without_vs_code_hears_nothing_of_it(cli: CLI) -> None:
    cli.env["XDG_CONFIG_HOME"] = str(Path(cli.env["HOME"]) / ".config")
    proc = cli.run("index", "--no-embed")
    said = proc.stdout + proc.stderr
    assert "vscode-copilot" not in said and "Code/User" not in said
    listed = {s["kind"]: s for s in cli.json("sources")["sources"]}["vscode-copilot"]
    assert listed["enabled"] and listed["sessions"] == 0
    assert not any(r["exists"] for r in listed["roots"])


def _requests(path: Path) -> list[dict[str, Any]]:
    """The session's requests as the log resolves them, replayed by hand for the test:
    Initial, Set and Push (with truncation) at the paths this fixture uses."""
    state: dict[str, Any] = {}
    for raw in path.read_text().splitlines():
        try:
            op = json.loads(raw)
        except ValueError:
            continue
        keys, node = op.get("k", []), state
        if op["kind"] == 0:
            state = op["v"]
            continue
        for key in keys[:-1]:
            node = node[key] if isinstance(node, dict) or key < len(node) else None
            if node is None:
                break
        if node is None:
            continue
        last = keys[-1]
        if op["kind"] == 1 and (isinstance(node, dict) or last < len(node)):
            node[last] = op["v"]
        elif op["kind"] == 2:
            target = node[last]
            del target[op.get("i", len(target)) :]
            target.extend(op.get("v", []))
    return state["requests"]


def test_an_exported_chat_named_as_a_root_takes_its_folder_from_the_reply(
    cli: CLI, tmp_path: Path
) -> None:
    """A chat exported with "Chat: Export Chat..." and kept in a repository has no
    `workspace.json` beside it: its folder is the one VS Code resolved the reply's links
    against (`baseUri`), spelled as a workspace's folder is."""
    base = {"$mid": 1, "path": "/c:/Users/dev/beehive/", "scheme": "file"}
    export = {
        "responderUsername": "GitHub Copilot",
        "initialLocation": "panel",
        "requests": [
            {
                "requestId": "request_1",
                "message": {"text": "Why does the hive scale drift at night?", "parts": []},
                "variableData": {"variables": []},
                "response": [
                    {"kind": "mcpServersStarting", "didStartServerIds": []},
                    {"value": "The load cell cools and its zero moves.", "baseUri": base},
                ],
                "timestamp": 1767225600000,
            }
        ],
    }
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(export, indent=2), encoding="utf-8")
    cli.run("index", "--no-embed", "--source", "vscode-copilot", str(path))
    [hit] = hits(cli, "hive scale drift")
    assert hit["session"]["cwd"] == "c:/Users/dev/beehive"


def test_two_edits_of_one_file_in_one_request_are_two(cli: CLI, user: Path) -> None:
    """Agent mode edits a file twice in one answer: each replace call is followed by its
    own `textEditGroup` of the same file, as real logs have them; neither is a repeat."""
    cli.run("index", "--no-embed")
    uri = {"$mid": 1, "scheme": "file", "path": "/home/dev/hive/sensors.py"}
    response: list[dict[str, Any]] = [{"value": "Two changes to the sensor file."}]
    for n in (1, 2):
        response += [
            {"kind": "toolInvocationSerialized", "toolId": "copilot_replaceString",
             "toolCallId": f"call_swap{n}", "isComplete": True,
             "invocationMessage": {"value": f"Replacing line {n} in sensors.py"}},
            {"kind": "textEditGroup", "uri": uri, "edits": [[]], "done": True},
        ]  # fmt: skip
    request = {"requestId": "request_b5", "timestamp": 1772900300000,
               "message": {"text": "Swap both sensor pins"}, "response": response}  # fmt: skip
    with log(user).open("a") as fh:
        fh.write(json.dumps({"kind": 2, "k": ["requests"], "v": [request]}) + "\n")
    cli.run("index", "--no-embed")
    turn = cli.json("read", HIVE, "--tools")["turns"][-1]
    calls = [m["tool"] for m in turn["messages"] if m["kind"] == "tool_call"]
    assert calls == ["copilot_replaceString", "edit", "copilot_replaceString", "edit"]
