"""gptme's conversations (`~/.local/share/gptme/logs/<id>/conversation.jsonl`), through the
real CLI: prompts counted by a reader of its own, what gptme added (its system prompt,
the files it attached to a prompt, its loop's `<system>` nudges, tool results) kept out
of the prompts, codeblock and native tool calls with their results, a failed command,
titles, blame through `save`, `append` and `patch`, `gptme --name`, a malformed line, a
conversation read on from where the last run stopped, `/compact`'s `lossless.jsonl` and
a subagent under its parent.

The two conversations were written by the real gptme 0.35.1 (`gptme -n`) against a
scripted model on localhost: one of two prompts (the second given on `--name ID`, so the
file gptme attached to it is in the prompt's message), a `save`, a command that failed, a
`patch`, then `/undo 2` (its backup is `branches/main-undo-0.jsonl`); the other with
native tool calls (`@append(call_…): {…}`). Then the system prompt was cut to its first
lines, a hidden notice naming a process dropped, and the folders renamed to
`/home/dev/…`.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI
from read_counts import read_in_two_parts

FIXTURE = Path(__file__).parent / "fixtures" / "gptme" / "home" / ".local" / "share" / "gptme"
GREETER = "2026-12-06-sneaking-green-penguin"  # markdown blocks, resumed, undone once
TIDES = "2026-12-06-singing-blue-shark"  # native tool calls


@pytest.fixture
def logs(cli: CLI, tmp_path: Path) -> Path:
    place = tmp_path / "home" / ".local" / "share" / "gptme"
    shutil.copytree(FIXTURE, place)
    return place / "logs"


def hits(cli: CLI, query: str) -> list[dict[str, Any]]:
    return cli.json("search", "--mode", "keyword", "--source", "gptme", query)["results"]


def prompts(cli: CLI, sid: str) -> list[str]:
    turns = cli.json("read", sid)["turns"]
    return [m["text"] for t in turns for m in t["messages"] if m["kind"] == "prompt"]


def typed(path: Path) -> list[str]:
    """The prompts, read without findsession: user messages that are not gptme's own
    `<system>` nudges, up to the first file gptme attached (four backticks)."""
    out = []
    for line in path.read_text().splitlines():
        msg = json.loads(line)
        text = msg["content"]
        if msg["role"] == "user" and not text.startswith("<system>"):
            out.append(text.split("\n\n````")[0])
    return out


def test_each_conversation_is_one_session_and_its_prompts_are_the_typed_ones(
    cli: CLI, logs: Path
) -> None:
    report = cli.json("index", "--no-embed")
    assert str(logs) in report["roots"] and report["errors"] == []
    assert (report["files_read"], report["problems"]) == (2, [])
    listed = {s["kind"]: s for s in cli.json("sources")["sources"]}["gptme"]
    assert (listed["sessions"], listed["subagents"]) == (2, 0)  # no branch is a session
    for sid in (GREETER, TIDES):
        assert prompts(cli, sid) == typed(logs / sid / "conversation.jsonl")
    assert prompts(cli, GREETER) == [
        "Write a small Python script greet.py that prints a greeting for the name given on "
        "the command line",
        "Make greet.py default to world when no name is given",
    ]
    assert cli.json("index", "--no-embed")["files_read"] == 0


def test_what_gptme_added_is_not_searched_as_typed(cli: CLI, logs: Path) -> None:
    cli.json("index", "--no-embed")
    found = hits(cli, "greeting for the name given on the command line")
    assert found[0]["session"]["id"] == GREETER
    # gptme's system prompt, its loop's nudge and a tool's result are no one's prompt.
    said = ("general-purpose AI assistant", "Did you mean to finish", "Patch successfully applied")
    for words in said:
        found = cli.json("search", "--mode", "keyword", "--speaker", "user", words)["results"]
        assert found == [], words


def test_calls_results_and_a_failed_command(cli: CLI, logs: Path) -> None:
    cli.json("index", "--no-embed")
    first = cli.json("read", GREETER, "--tools")["turns"][0]["messages"]
    calls = [(m["kind"], m["tool"]) for m in first if m["kind"].startswith("tool")]
    assert calls == [
        ("tool_call", "save"),
        ("tool_output", "save"),
        ("tool_call", "shell"),
        ("tool_output", "shell"),
        ("tool_call", "complete"),
        ("tool_output", "complete"),
    ]
    shell = [m for m in first if m["kind"] == "tool_output" and m["tool"] == "shell"]
    assert shell[0]["is_error"] and "IndexError" in shell[0]["text"]
    replies = [m["text"] for m in first if m["kind"] == "reply"]
    assert replies[0] == "I'll write the script."  # the block is the call, not the reply
    native = cli.json("read", TIDES, "--tools")["turns"][0]["messages"]
    append = next(m for m in native if m["kind"] == "tool_call")
    assert append["tool"] == "append" and append["text"].startswith("path: CHANGELOG.md")
    outputs = [m for m in native if m["kind"] == "tool_output"]
    assert [(m["tool"], m["is_error"]) for m in outputs][:2] == [
        ("append", False),
        ("shell", False),
    ]


def test_title_folder_blame_and_resume(cli: CLI, logs: Path) -> None:
    cli.json("index", "--no-embed")
    tides = hits(cli, "tide table parser")[0]
    assert (tides["session"]["id"], tides["session"]["title"]) == (TIDES, "Tide changelog entry")
    assert tides["session"]["cwd"] == "/home/dev/tides"
    assert tides["resume"]["command"] == ["gptme", "--name", TIDES]
    assert tides["resume"]["cwd"] == "/home/dev/tides"
    writes = cli.json("blame", "/home/dev/greeter/greet.py")["writers"]
    assert [(w["session"]["id"], w["op"], w["tool"]) for w in writes] == [
        (GREETER, "edit", "patch"),
        (GREETER, "create", "save"),
    ]
    assert 'else "world"' in writes[0]["added"][0]
    changelog = cli.json("blame", "/home/dev/tides/CHANGELOG.md")["writers"]
    assert [(w["session"]["id"], w["tool"]) for w in changelog] == [(TIDES, "append")]


def test_a_name_given_with_name_is_the_title(cli: CLI, logs: Path) -> None:
    (logs / TIDES).rename(logs / "tide-parser")
    cli.json("index", "--no-embed")
    session = hits(cli, "tide table parser")[0]
    assert (session["session"]["id"], session["session"]["title"]) == ("tide-parser",) * 2
    assert session["resume"]["command"] == ["gptme", "--name", "tide-parser"]


def test_a_malformed_line_is_reported_and_the_rest_read(cli: CLI, logs: Path) -> None:
    path = logs / GREETER / "conversation.jsonl"
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join([*lines[:8], '{"role": "assistant", "content": "cut sh\n', *lines[8:]]))
    report = cli.json("index", "--no-embed")
    assert [(p["line"], p["reason"]) for p in report["problems"]] == [(9, "malformed JSON")]
    assert hits(cli, "default to world when no name")[0]["session"]["id"] == GREETER


def test_read_on_from_where_it_stopped_pairs_a_result_with_its_call(
    cli: CLI, logs: Path
) -> None:
    read_in_two_parts(cli, logs / TIDES / "conversation.jsonl", lambda x: "@append(" in x)
    messages = cli.json("read", TIDES, "--tools")["turns"][0]["messages"]
    result = next(m for m in messages if m["kind"] == "tool_output")
    assert (result["tool"], result["text"]) == ("append", "Appended to CHANGELOG.md")


def test_compacted_conversation_is_read_from_its_lossless_copy(cli: CLI, logs: Path) -> None:
    folder = logs / GREETER
    cli.json("index", "--no-embed")
    shutil.copy(folder / "conversation.jsonl", folder / "lossless.jsonl")
    summary = {"role": "system", "content": "Summary of the conversation so far",
               "timestamp": "2026-12-06T19:41:00"}  # fmt: skip
    (folder / "conversation.jsonl").write_text(json.dumps(summary) + "\n")
    cli.json("index", "--no-embed")
    listed = {s["kind"]: s for s in cli.json("sources")["sources"]}["gptme"]
    assert listed["sessions"] == 2
    assert len(cli.json("read", GREETER)["turns"]) == 2


def test_a_subagent_is_a_session_under_its_parent(cli: CLI, logs: Path) -> None:
    child = logs / "subagent-tide-check-a1b2"
    child.mkdir()
    shutil.copy(logs / TIDES / "conversation.jsonl", child / "conversation.jsonl")
    meta = {"agent_id": "tide-check", "prompt": "Check the changelog",
            "parent_logdir": f"/home/dev/.local/share/gptme/logs/{GREETER}"}  # fmt: skip
    (child / "subagent-meta.json").write_text(json.dumps(meta))
    cli.json("index", "--no-embed")
    listed = {s["kind"]: s for s in cli.json("sources")["sources"]}["gptme"]
    assert (listed["sessions"], listed["subagents"]) == (2, 1)
    session = cli.json("read", "subagent-tide-check-a1b2")["session"]
    assert (session["subagent"], session["parent_id"]) == (True, GREETER)
