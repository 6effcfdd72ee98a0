"""CodeBuddy Code's sessions (`~/.codebuddy/projects/<project>/<id>.jsonl`), through the
real CLI: prompts, calls and results counted by a reader of its own, a failed edit and a
failed shell command, thinking, the title its model gave, blame through `Write` and
`Edit`, `codebuddy --resume`, a subagent under its parent, a malformed line, and a
session read on from where the last run stopped.

The sessions were written by the real CodeBuddy Code 2.117.0 (the CLI inside
`@tencent-ai/agent-sdk` 0.3.201) with `-p`, against a scripted OpenAI-compatible model on
localhost (`CODEBUDDY_BASE_URL`): `greeter` of six prompts, five of them given on
`--resume <id>` or `-c` (a `Write`, an `Edit` refused because the resumed session had not
read the file, a test command that failed, a `Read` and the `Edit` again, an `Agent`
subagent that ran `Glob`, and a `/rename` that `-p` sent the model as a prompt);
`notes` of three prompts, the last two in a terminal, where CodeBuddy asked its model
for the session's title. Then the folders were renamed to `/home/dev/…`; nothing else
was changed.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI
from read_counts import read_in_two_parts

FIXTURE = Path(__file__).parent / "fixtures" / "codebuddy" / "home" / ".codebuddy"
GREETER = "69c487d2-f5c8-49bc-b814-87663ad1f12d"
NOTES = "00a39c13-9ef9-43e9-bb92-1817c9936577"
AGENT = "agent-4e3a1a38"
GREETER_FILE = f"projects/home-dev-greeter/{GREETER}.jsonl"
AGENT_FILE = f"projects/home-dev-greeter/{GREETER}/subagents/{AGENT}.jsonl"
NOTES_FILE = f"projects/home-dev-notes/{NOTES}.jsonl"


@pytest.fixture
def home(cli: CLI, tmp_path: Path) -> Path:
    place = tmp_path / "home" / ".codebuddy"
    shutil.copytree(FIXTURE, place)
    return place


def items(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def counted(path: Path) -> dict[str, Any]:
    """What the file holds, read without findsession: the user items' texts, and the
    calls and results by their `callId`."""
    lines = items(path)
    names = {x["callId"]: x["name"] for x in lines if x.get("type") == "function_call"}
    return {
        "prompts": [
            " ".join(c["text"] for c in x["content"])
            for x in lines
            if x.get("type") == "message" and x.get("role") == "user"
        ],
        "calls": [x["name"] for x in lines if x.get("type") == "function_call"],
        # Each result under the name of the call whose `callId` it carries.
        "results": [names[x["callId"]] for x in lines if x.get("type") == "function_call_result"],
        "replies": sum(x.get("type") == "message" and x.get("role") == "assistant" for x in lines),
    }


def messages(cli: CLI, sid: str) -> list[dict[str, Any]]:
    turns = cli.json("read", sid, "--tools")["turns"]
    return [m for t in turns for m in t["messages"]]


def hits(cli: CLI, query: str) -> list[dict[str, Any]]:
    return cli.json("search", "--mode", "keyword", "--source", "codebuddy", query)["results"]


def test_each_session_and_subagent_and_what_they_hold(cli: CLI, home: Path) -> None:
    report = cli.json("index", "--no-embed")
    assert str(home / "projects") in report["roots"] and report["errors"] == []
    assert (report["files_read"], report["problems"]) == (3, [])
    listed = {s["kind"]: s for s in cli.json("sources")["sources"]}["codebuddy"]
    assert (listed["sessions"], listed["subagents"]) == (2, 1)
    for sid, name in ((GREETER, GREETER_FILE), (NOTES, NOTES_FILE), (AGENT, AGENT_FILE)):
        want = counted(home / name)
        got = messages(cli, sid)
        assert [m["text"] for m in got if m["kind"] == "prompt"] == want["prompts"], sid
        calls = [m["tool"] for m in got if m["kind"] == "tool_call"]
        assert calls == want["calls"], sid
        outputs = [m["tool"] for m in got if m["kind"] == "tool_output"]
        assert outputs == want["results"], sid
        assert sum(m["kind"] == "reply" for m in got) == want["replies"], sid
    assert len(counted(home / GREETER_FILE)["prompts"]) == 6
    assert counted(home / GREETER_FILE)["calls"] == [
        "Write", "Edit", "Bash", "Read", "Edit", "Agent",
    ]  # fmt: skip
    assert cli.json("index", "--no-embed")["files_read"] == 0


def test_failures_thinking_and_the_subagent(cli: CLI, home: Path) -> None:
    cli.json("index", "--no-embed")
    got = messages(cli, GREETER)
    failed = [(m["tool"], m["is_error"]) for m in got if m["kind"] == "tool_output"]
    assert failed == [
        ("Write", False), ("Edit", True), ("Bash", True),
        ("Read", False), ("Edit", False), ("Agent", False),
    ]  # fmt: skip
    bash = next(m for m in got if m["kind"] == "tool_output" and m["tool"] == "Bash")
    assert "No module named pytest" in bash["text"]
    call = next(m for m in got if m["kind"] == "tool_call" and m["tool"] == "Bash")
    assert call["text"].startswith("command: python3 -m pytest tests/test_greet.py")
    thinking = [m["text"] for m in got if m["kind"] == "thinking"]
    assert thinking == ["The user wants a small greeting script. I will write greet.py."]
    child = cli.json("read", AGENT)["session"]
    assert (child["subagent"], child["parent_id"]) == (True, GREETER)
    # What the tools answered is no one's prompt.
    for words in ("Stderr Signal Stdout", "Successfully overwrote"):
        found = cli.json("search", "--mode", "keyword", "--speaker", "user", words)["results"]
        assert found == [], words


def test_title_folder_blame_and_resume(cli: CLI, home: Path) -> None:
    cli.json("index", "--no-embed")
    notes = hits(cli, "cardamom todo list")[0]
    assert (notes["session"]["id"], notes["session"]["title"]) == (NOTES, "Grocery notes overview")
    assert notes["session"]["cwd"] == "/home/dev/notes"
    assert notes["resume"]["command"] == ["codebuddy", "--resume", NOTES]
    # CodeBuddy finds a session from any folder: with its own gone, it resumes here.
    assert notes["resume"]["anywhere"] is True
    writes = cli.json("blame", "/home/dev/greeter/greet.py")["writers"]
    # The `Edit` that failed wrote nothing.
    assert [(w["session"]["id"], w["op"], w["tool"]) for w in writes] == [
        (GREETER, "edit", "Edit"),
        (GREETER, "create", "Write"),
    ]
    assert "Bonjour, {name}, welcome aboard!" in writes[0]["added"][0]
    todo = cli.json("blame", "/home/dev/notes/todo.txt")["writers"]
    assert [(w["session"]["id"], w["tool"]) for w in todo] == [(NOTES, "Write")]


def test_a_malformed_line_is_reported_and_the_rest_read(cli: CLI, home: Path) -> None:
    path = home / GREETER_FILE
    lines = path.read_text().splitlines(keepends=True)
    path.write_text(
        "".join([*lines[:8], '{"type": "message", "role": "user", "cont\n', *lines[8:]])
    )
    report = cli.json("index", "--no-embed")
    assert [(p["line"], p["reason"]) for p in report["problems"]] == [(9, "malformed JSON")]
    assert hits(cli, "says Bonjour and welcomes them aboard")[0]["session"]["id"] == GREETER


def test_read_on_from_where_it_stopped(cli: CLI, home: Path) -> None:
    read_in_two_parts(
        cli, home / NOTES_FILE, lambda x: '"callId":"call_w2"' in x and 'function_call"' in x
    )
    got = messages(cli, NOTES)
    assert [m["tool"] for m in got if m["kind"] == "tool_output"] == ["Bash", "Write"]
    assert sum(m["kind"] == "prompt" for m in got) == 3


def test_a_title_given_stays_in_the_index_and_the_transcript_is_untouched(
    cli: CLI, home: Path
) -> None:
    """No line CodeBuddy wrote for `/rename` has been seen, so none is appended."""
    cli.run("index", "--no-embed")
    before = (home / GREETER_FILE).read_bytes()
    cli.env.pop("FINDSESSION_MACHINE", None)
    given = cli.json("titles", "--write", "--session", GREETER)["sessions"]
    assert [r["status"] for r in given] == ["indexed"], given
    assert (home / GREETER_FILE).read_bytes() == before
    assert cli.json("read", GREETER)["session"]["title"] == given[0]["title"]
