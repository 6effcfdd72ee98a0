"""Cline's CLI 3.0.65 (the newest release, 2026-12) over several prompts, through the
real findsession CLI.

Every file was written by the real `cline` 3.0.65 offline against a scripted
OpenAI-compatible server on localhost, in one project (`proj`): `ZEBRA` by `cline
PROMPT` (its `editor` tool creating a file), then resumed in its terminal UI with
`cline --id ZEBRA` (`--id` needs a terminal), three prompts typed there: a
`run_commands` that fails, an `editor` edit, a question; `PELICAN` by `cline PROMPT`, a
question. Only the home and project paths were renamed (`/home/dev`), the process id
replaced and the long system prompt (the messages' `system_prompt`, the manifest's
`metadata.systemPrompt`) cut.

What a tool gives back is stored as the CLI's own operation results, not as Claude's
blocks: `run_commands` a list of `{query, result, error, success}`, `editor` one such
object as a JSON string; no `is_error` is written, a failure is `success: false`.

The counts come from the messages themselves: a user text block is a typed prompt (its
`<user_input>` wrapper taken off), an assistant's `text` blocks replies and `tool_use`
blocks calls, a `tool_result` an output, failed when an operation did not succeed.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI
from read_counts import indexed

FIXTURE = Path(__file__).parent / "fixtures" / "cline_cli_3065" / "data"
ZEBRA = "1796653948700_ntm6c"
PELICAN = "1796653935388_f2a5m"


@pytest.fixture
def data(cli: CLI) -> Path:
    """The fixture as the CLI's data folder in its default place, `~/.cline/data`."""
    place = Path(cli.env["HOME"]) / ".cline" / "data"
    shutil.copytree(FIXTURE, place)
    return place


def _operations(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        content = [json.loads(content)] if content.startswith("{") else []
    return [op for op in content if isinstance(op, dict) and "success" in op]


def expected(sid: str) -> dict[str, Any]:
    doc = json.loads((FIXTURE / "sessions" / sid / f"{sid}.messages.json").read_text())
    prompts, counts = [], dict.fromkeys(("replies", "calls", "results", "failed"), 0)
    for message in doc["messages"]:
        for block in message["content"]:
            if message["role"] == "user" and block["type"] == "text":
                text = block["text"]
                prompts.append(text[text.index(">") + 1 : text.rindex("</user_input>")])
            elif block["type"] == "text":
                counts["replies"] += 1
            elif block["type"] == "tool_use":
                counts["calls"] += 1
            elif block["type"] == "tool_result":
                counts["results"] += 1
                ops = _operations(block["content"])
                counts["failed"] += any(op["success"] is False for op in ops)
    return {"prompts": prompts, **counts}


def test_each_session_gives_what_its_messages_hold(cli: CLI, data: Path) -> None:
    report = cli.json("index", "--no-embed", "--source", "cline")
    assert report["problems"] == []
    assert indexed(cli, ZEBRA) == expected(ZEBRA)
    assert indexed(cli, PELICAN) == expected(PELICAN)
    assert expected(ZEBRA) == {
        "prompts": [
            "Please write the zebra notes file",
            "Now check the giraffe file with cat",
            "Add the okapi line to the zebra notes",
            "What about the pelican timetable",
        ],
        "replies": 7,
        "calls": 3,
        "results": 3,
        "failed": 1,
    }


def test_what_a_command_printed_is_its_output(cli: CLI, data: Path) -> None:
    """`run_commands` gives back a list of operation results: what the command printed
    is found, and the failed one is marked so."""
    cli.json("index", "--no-embed", "--source", "cline")
    turns = cli.json("read", ZEBRA, "--tools")["turns"]
    (output,) = [m for m in turns[1]["messages"] if m["kind"] == "tool_output"]
    assert "cat: giraffe-missing.txt: No such file or directory" in output["text"]
    assert output["is_error"] is True
    (edited,) = [m for m in turns[2]["messages"] if m["kind"] == "tool_output"]
    assert edited["text"].startswith("Edited /home/dev/proj/zebra.md")
    assert edited["is_error"] is False
    hits = cli.json("search", "--mode", "keyword", "--source", "cline", "giraffe-missing")
    assert [h["session"]["id"] for h in hits["results"]] == [ZEBRA]


def test_blame_finds_the_write_and_the_edit(cli: CLI, data: Path) -> None:
    cli.json("index", "--no-embed", "--source", "cline")
    writers = cli.json("blame", "/home/dev/proj/zebra.md")["writers"]
    assert [(w["session"]["id"], w["turn"], w["op"]) for w in writers] == [
        (ZEBRA, 3, "edit"),
        (ZEBRA, 1, "create"),
    ]


def test_a_brief_lists_the_command_run_and_the_file_changed(cli: CLI, data: Path) -> None:
    cli.json("index", "--no-embed", "--source", "cline")
    brief = cli.json("handoff", ZEBRA)
    commands = {c["command"]: c for c in brief["commands"]}
    assert commands["cat giraffe-missing.txt"]["outcome"] == "error"
    files = {f["path"]: f for f in brief["files"]}
    assert files["zebra.md"]["ops"] == ["create", "edit"]
    assert brief["resume"]["command"] == ["cline", "--id", ZEBRA]
