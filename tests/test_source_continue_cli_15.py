"""Continue's CLI (`cn`, npm `@continuedev/cli` 1.5.47, the newest release, 2026-12) as
it writes its sessions, through the real findsession CLI.

Every file was written by the real `cn` 1.5.47 offline against a scripted
OpenAI-compatible server on localhost (a local `config.yaml` naming it), in one project
(`proj`), paths renamed to `/home/dev` and nothing else changed (the CLI stores no
system prompt): `ZEBRA` by `cn -p --auto` (a `Write`), then `cn -p --auto --resume`
twice (a `Bash` command that fails; an `Edit` the CLI refused, the file not read first);
`PELICAN` by `cn -p`, a question. `sessions.json` is the CLI's list of both.

The CLI writes no `tool` message: what a call gave back is only in its item's
`toolCallStates` (`output`, a list of `{name, description, content}`, and `status`,
`errored` for both failures here).

The counts come from the document: a `user` message is a typed prompt, an `assistant`
message's `content` a reply and its `toolCalls` calls, a call state's `output` (or a
`tool` message) an output, failed when the state is `errored` or `canceled`.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI
from read_counts import indexed

FIXTURE = Path(__file__).parent / "fixtures" / "continue-cli-1.5" / "home" / ".continue"
ZEBRA = "e1eede99-c198-4043-8b5e-d6f1f575da7b"
PELICAN = "57aafe44-a2dc-4637-ad43-37804cdde790"


@pytest.fixture
def home(cli: CLI) -> Path:
    """The fixture in Continue's standard place, `~/.continue`."""
    place = Path(cli.env["HOME"]) / ".continue"
    shutil.copytree(FIXTURE, place)
    return place


def expected(sid: str) -> dict[str, Any]:
    doc = json.loads((FIXTURE / "sessions" / f"{sid}.json").read_text())
    messages = [item["message"] for item in doc["history"]]
    answered = {m["toolCallId"] for m in messages if m["role"] == "tool"}
    prompts, counts = [], dict.fromkeys(("replies", "calls", "results", "failed"), 0)
    for item in doc["history"]:
        message = item["message"]
        if message["role"] == "user":
            prompts.append(message["content"])
        elif message["role"] == "assistant":
            counts["replies"] += bool(message["content"])
            counts["calls"] += len(message.get("toolCalls", []))
            for state in item.get("toolCallStates", []):
                if state["toolCallId"] not in answered and state.get("output"):
                    counts["results"] += 1
                    counts["failed"] += state["status"] in ("errored", "canceled")
        elif message["role"] == "tool":
            counts["results"] += 1
    return {"prompts": prompts, **counts}


def test_each_session_gives_what_its_document_holds(cli: CLI, home: Path) -> None:
    report = cli.json("index", "--no-embed", "--source", "continue")
    assert report["problems"] == []
    assert indexed(cli, ZEBRA) == expected(ZEBRA)
    assert indexed(cli, PELICAN) == expected(PELICAN)
    assert expected(ZEBRA) == {
        "prompts": [
            "Please write the zebra notes file",
            "Now check the giraffe file with cat",
            "Add the okapi line to the zebra notes",
        ],
        "replies": 6,
        "calls": 3,
        "results": 3,
        "failed": 2,
    }


def test_what_a_call_gave_back_is_its_output(cli: CLI, home: Path) -> None:
    """The failed command's message is found, and each output follows its own call."""
    cli.json("index", "--no-embed", "--source", "continue")
    turns = cli.json("read", ZEBRA, "--tools")["turns"]
    kinds = [[m["kind"] for m in t["messages"]] for t in turns]
    assert kinds[1] == ["prompt", "reply", "tool_call", "tool_output", "reply"]
    (output,) = [m for m in turns[1]["messages"] if m["kind"] == "tool_output"]
    assert "cat: giraffe-missing.txt: No such file or directory" in output["text"]
    assert output["is_error"] is True
    hits = cli.json("search", "--mode", "keyword", "--source", "continue", "giraffe-missing")
    assert [h["session"]["id"] for h in hits["results"]] == [ZEBRA]


def test_blame_lists_the_write_not_the_refused_edit(cli: CLI, home: Path) -> None:
    cli.json("index", "--no-embed", "--source", "continue")
    writers = cli.json("blame", "/home/dev/proj/zebra.md")["writers"]
    assert [(w["session"]["id"], w["turn"], w["op"]) for w in writers] == [(ZEBRA, 1, "create")]
