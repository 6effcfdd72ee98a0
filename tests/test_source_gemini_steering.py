"""Gemini CLI: what the person typed while the agent worked, a subagent's nudges, and a
Windows project the CLI names in two spellings, through the real CLI; then real homes.

The small homes here are written by each test from the shapes in Gemini CLI's own
source: a hint typed during a tool run is sent, and recorded, as one `user` message
holding a text part (`User steering update:\\n<user_input>\\n…\\n</user_input>\\n
Internal instruction: …`) before the tools' `functionResponse` parts; a subagent gets
the same hints as `User hints:` with one `- hint` a line; a subagent that runs out of
turns is told "You have exceeded the maximum number of turns. You have one final
chance…". On Windows the slug folder's `.project_root` holds the path lower-cased while
`trustedFolders.json` keeps the person's spelling, and an older chat sits in a folder
named by the SHA-256 of that spelling.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI

MAIN = "eeee1111-0000-4000-8000-000000000001"
HELPER = "ffff2222-0000-4000-8000-000000000002"
INSTRUCTION = (
    "Internal instruction: Re-evaluate the active plan using this user steering update. "
    "Classify it as ADD_TASK, MODIFY_TASK, CANCEL_TASK, or EXTRA_CONTEXT."
)
NUDGE = (
    "You have exceeded the maximum number of turns. You have one final chance to complete"
    " the task with a short grace period. You MUST call `complete_task` immediately."
)


def index(cli: CLI) -> dict[str, Any]:
    return cli.json("index", "--no-embed")


def hits(cli: CLI, query: str) -> list[dict[str, Any]]:
    return cli.json("search", "--mode", "keyword", "--source", "gemini", query)["results"]


def user(mid: str, *parts: dict[str, Any]) -> dict[str, Any]:
    return {"id": mid, "timestamp": "2026-05-02T10:00:00Z", "type": "user", "content": list(parts)}


def gemini(mid: str, text: str, calls: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    msg = {"id": mid, "timestamp": "2026-05-02T10:00:05Z", "type": "gemini", "content": text}
    return msg | ({"toolCalls": calls} if calls else {})


def call(call_id: str, output: str) -> dict[str, Any]:
    response = {"id": call_id, "name": "run_shell_command", "response": {"output": output}}
    return {
        "id": call_id,
        "name": "run_shell_command",
        "args": {"command": "ls drawers/"},
        "result": [{"functionResponse": response}],
        "status": "success",
    }


def response(call_id: str, output: str) -> dict[str, Any]:
    return {
        "functionResponse": {
            "id": call_id,
            "name": "run_shell_command",
            "response": {"output": output},
        }
    }


def write_chat(path: Path, session_id: str, messages: list[dict[str, Any]], **meta: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    head = {"sessionId": session_id, "projectHash": "0" * 64, "startTime": "2026-05-02T10:00:00Z"}
    path.write_text(json.dumps(head | meta | {"messages": messages}, indent=2))


@pytest.fixture
def home(cli: CLI, tmp_path: Path) -> Path:
    """An empty Gemini home (`<home>/.gemini`), found through `GEMINI_CLI_HOME`."""
    cli.env["GEMINI_CLI_HOME"] = str(tmp_path / "gemini-home")
    gemini_dir = tmp_path / "gemini-home" / ".gemini"
    (gemini_dir / "tmp").mkdir(parents=True)
    return gemini_dir


def steering_home(home: Path) -> None:
    """A cabinet project: a hint typed during a tool run in the main chat (and a retry
    that shows it again), a subagent given two hints during its own run, and that
    subagent's last-chance nudge."""
    folder = home / "tmp" / "cabinet"
    (folder / ".project_root").parent.mkdir(parents=True)
    (folder / ".project_root").write_text("/home/dev/cabinet")
    hint = "User steering update:\n<user_input>\nuse brass hinges on the walnut doors\n"
    write_chat(folder / "chats" / "session-2026-05-02T10-00-eeee1111.json", MAIN, [
        user("u1", {"text": "Plan the cabinet drawer layout"}),
        gemini("g1", "Listing the drawers first.", [call("c1", "drawer_a drawer_b")]),
        user("u2", {"text": hint + "</user_input>\n" + INSTRUCTION}, response("c1", "drawer_a")),
        gemini("g2", "Switching the doors to brass hinges."),
        # A retry after a broken stream: sent as "Please continue.", shown as the
        # request it repeats.
        user("u3", {"text": "System: Please continue."})
        | {"displayContent": [{"text": hint + "</user_input>\n" + INSTRUCTION}]},
        gemini("g3", "Hinges ordered."),
    ], kind="main")  # fmt: skip
    hints = "User hints:\n<user_input>\n- skip the plinth\n- measure the dovetail joints\n"
    write_chat(folder / "chats" / MAIN / "helper.json", HELPER, [
        user("h1", {"text": "Survey the carcass joinery"}),
        gemini("h2", "Reading the joinery notes.", [call("c9", "notes.md")]),
        user("h3", {"text": hints + "</user_input>\n\n" + INSTRUCTION}, response("c9", "notes")),
        gemini("h4", "Checking the dovetail joints."),
        user("h5", {"text": NUDGE}),
        gemini("h6", "Survey done: the dovetails are sound."),
    ], kind="subagent")  # fmt: skip


def test_a_hint_typed_during_a_tool_run_is_a_prompt(cli: CLI, home: Path) -> None:
    steering_home(home)
    index(cli)
    [hit] = hits(cli, "brass hinges walnut doors")
    assert hit["session"]["id"] == MAIN and hit["session"]["turns"] == 2
    turns = cli.json("read", MAIN, "--tools")["turns"]
    assert [t["messages"][0]["text"] for t in turns] == [
        "Plan the cabinet drawer layout",
        "use brass hinges on the walnut doors",  # without the CLI's wrapper
    ]
    # The tool's output answers the call before the hint, and is kept once.
    assert [(m["kind"], m["text"]) for m in turns[0]["messages"][-2:]] == [
        ("tool_call", "command: ls drawers/"),
        ("tool_output", "drawer_a drawer_b"),
    ]
    assert [m["text"] for m in turns[1]["messages"][1:]] == [
        "Switching the doors to brass hinges.",
        "Hinges ordered.",  # the retry is no prompt of its own
    ]
    assert hits(cli, "Classify ADD_TASK MODIFY_TASK") == []  # the CLI's instruction


def test_a_subagents_hints_are_prompts_and_its_nudge_is_not(cli: CLI, home: Path) -> None:
    steering_home(home)
    index(cli)
    [hit] = hits(cli, "plinth dovetail")
    assert hit["session"]["id"] == HELPER and hit["session"]["parent_id"] == MAIN
    turns = cli.json("read", HELPER)["turns"]
    assert [t["messages"][0]["text"] for t in turns] == [
        "Survey the carcass joinery",
        "skip the plinth\nmeasure the dovetail joints",
    ]
    # The nudge is the harness talking: the reply after it closes the hints' turn.
    assert turns[1]["messages"][-1]["text"] == "Survey done: the dovetails are sound."
    assert hits(cli, "exceeded maximum number turns") == []


def windows_home(home: Path, trusted: bool) -> tuple[str, str]:
    """The same Windows project twice: an older chat in the folder named by the hash of
    its trusted spelling, a newer one in a slug folder whose marker is lower-cased."""
    spelled = "C:\\Users\\Dev\\Joinery"
    if trusted:
        (home / "trustedFolders.json").write_text(json.dumps({spelled: "TRUST_FOLDER"}))
    (home / "projects.json").write_text(json.dumps({"projects": {spelled.lower(): "joinery"}}))
    older = home / "tmp" / hashlib.sha256(spelled.encode()).hexdigest() / "chats"
    write_chat(older / "session-2026-03-01T09-00-aaaa0001.json", "aaaa0001-older", [
        user("w1", {"text": "Cut the mortise for the oak rail"}),
        gemini("w2", "Mortise gauge set to eight millimetres."),
    ])  # fmt: skip
    newer = home / "tmp" / "joinery"
    newer.mkdir()
    (newer / ".project_root").write_text(spelled.lower())
    write_chat(newer / "chats" / "session-2026-04-01T09-00-aaaa0002.json", "aaaa0002-newer", [
        user("w3", {"text": "Glue up the oak rail tenon"}),
        gemini("w4", "Clamp for an hour."),
    ])  # fmt: skip
    return spelled, spelled.lower()


def test_a_windows_project_has_one_spelling(cli: CLI, home: Path) -> None:
    spelled, _ = windows_home(home, trusted=True)
    index(cli)
    found = [h["session"]["cwd"] for h in hits(cli, "oak rail")]
    assert found == [spelled, spelled]  # not the marker's `c:\users\dev\joinery`


def test_a_lowered_path_stays_when_nothing_spells_it_otherwise(cli: CLI, home: Path) -> None:
    _, lowered = windows_home(home, trusted=False)
    index(cli)
    # The hashed chat's folder is named by no file: no project, never a guess.
    assert {h["session"]["cwd"] for h in hits(cli, "oak rail")} == {lowered, None}
