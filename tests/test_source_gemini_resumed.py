"""Gemini CLI 0.61.0's own chat files, resumed with `--resume latest`, through the real CLI.

The fixture (`fixtures/gemini-0.61/home/.gemini`) is what Gemini CLI 0.61.0 wrote in
`gemini -p … --yolo` runs against a scripted model on localhost, its paths renamed to
`/home/dev` (the `projectHash` is the SHA-256 of the renamed project path, as the CLI
computes it). Nothing was cut. One chat of four prompts, each after the first sent
with `--resume latest`: a question, a `write_file`, a `run_shell_command` that fails
(exit 1) and a `replace`; another chat of two prompts, the second resumed; then one
prompt in the terminal UI, whose start gave the chat before it a title: a `$set` of
`summary` and `memoryScratchpad` (a digest of the chat's tool calls, not read); then a
chat whose one prompt made the model hand a task to the `generalist` subagent
(`invoke_agent`), whose own chat is `chats/<session id>/<agent session id>.jsonl`, its
title (`summary`) the JSON it returned.

Each resume appends the chat's metadata line again and two `$set`s of `messages`: the
history as the CLI rebuilt it from the model's context. There every earlier reply is
written again under its own id, but without its `toolCalls` (its tool calls are
`functionCall` parts), without its structured `thoughts` (thought parts instead), and
with the time of the resume; each tool response is written again as a user message
`<reply id>_response`. The turns themselves are the ones first recorded.

The counts below come from the file's own records, not from the parser: the message
records appended at the top level of the log (what the CLI recorded as it happened;
these chats have no `$rewindTo` and no compression), each id once.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI

FIXTURE = Path(__file__).parent / "fixtures" / "gemini-0.61" / "home"
CHATS = FIXTURE / ".gemini" / "tmp" / "zoo" / "chats"
ZOO = "65a1dd0f-"  # the chat of four prompts, with tools
HELPED = "fe314f6a-ae4f-471c-8da3-c52bbf811074"  # the chat that called a subagent
PROJECT = "/home/dev/zoo"


@pytest.fixture
def gemini(cli: CLI, tmp_path: Path) -> Path:
    """A copy of the fixture home, where the CLI looks (`GEMINI_CLI_HOME`)."""
    cli.env["GEMINI_CLI_HOME"] = str(shutil.copytree(FIXTURE, tmp_path / "gemini-0.61"))
    return Path(cli.env["GEMINI_CLI_HOME"], ".gemini")


def recorded(path: Path) -> dict[str, dict[str, Any]]:
    """Each message as last appended at the top level of the log, by id."""
    out: dict[str, dict[str, Any]] = {}
    for line in path.read_text().splitlines():
        rec = json.loads(line)
        if isinstance(rec.get("id"), str) and rec.get("type") in ("user", "gemini"):
            out[rec["id"]] = rec
    return out


def expected(path: Path) -> tuple[Counter[str], list[tuple[str, str]]]:
    """Prompts, replies, thoughts, tool calls and outputs (each call with a response,
    in its record or as a user message); and each prompt's text and time."""
    counts: Counter[str] = Counter()
    prompts = []
    outputs = set()
    for msg in recorded(path).values():
        content = msg["content"]
        parts = [{"text": content}] if isinstance(content, str) else content
        text = "".join(p.get("text", "") for p in parts if not p.get("thought")).strip()
        if msg["type"] == "user":
            outputs |= {p["functionResponse"]["id"] for p in parts if "functionResponse" in p}
            if text and not text.startswith("<session_context>"):
                prompts.append((text, msg["timestamp"]))
        else:
            counts["reply"] += bool(text)
            counts["thinking"] += len(msg.get("thoughts") or [])
            counts["tool_call"] += len(msg.get("toolCalls") or [])
            outputs |= {c["id"] for c in msg.get("toolCalls") or [] if c.get("result")}
    counts["prompt"] = len(prompts)
    counts["tool_output"] = len(outputs)
    return counts, prompts


def indexed(cli: CLI, session: str) -> tuple[Counter[str], list[tuple[str, str]], list[dict]]:
    turns = cli.json("read", session, "--tools")["turns"]
    messages = [m for t in turns for m in t["messages"]]
    prompts = [(m["text"], m["timestamp"]) for m in messages if m["kind"] == "prompt"]
    return Counter(m["kind"] for m in messages), prompts, messages


def test_each_chat_gives_what_the_cli_recorded_once(cli: CLI, gemini: Path) -> None:
    report = cli.json("index", "--no-embed")
    assert report["problems"] == []
    files = sorted(CHATS.rglob("*.jsonl"))
    assert len(files) == 5
    for path in files:
        session = json.loads(path.read_text().splitlines()[0])["sessionId"]
        counts, prompts, messages = indexed(cli, session)
        want, want_prompts = expected(path)
        assert +counts == +want, path.name
        assert prompts == want_prompts, path.name  # the times first recorded, not the resume's


def test_the_numbers_of_the_chat_with_tools(cli: CLI, gemini: Path) -> None:
    cli.json("index", "--no-embed")
    (path,) = CHATS.glob(f"*{ZOO[:8]}.jsonl")
    want, _ = expected(path)
    assert want == Counter(
        prompt=4, reply=7, thinking=7, tool_call=3, tool_output=3
    )  # the independent count itself, as the files stand
    counts, prompts, messages = indexed(cli, ZOO)
    assert [p for p, _ in prompts] == [
        "Tell me about the pelican",
        "Write the zebra notes file please",
        "Now show me the giraffe file",
        "Edit the zebra notes to mention the okapi",
    ]
    outputs = [m for m in messages if m["kind"] == "tool_output"]
    assert [m["tool"] for m in outputs] == ["write_file", "run_shell_command", "replace"]
    assert "Exit Code: 1" in outputs[1]["text"]
    # The thoughts as the CLI first recorded them: subject and description.
    thoughts = [m["text"] for m in messages if m["kind"] == "thinking"]
    assert thoughts[0].startswith("Weighing the request: The person asks about")


def test_the_chat_is_found_where_the_cli_wrote_it(cli: CLI, gemini: Path) -> None:
    cli.json("index", "--no-embed")
    hits = cli.json("search", "--mode", "keyword", "--source", "gemini", "giraffe")["results"]
    assert {h["session"]["id"][:9] for h in hits} == {ZOO}
    assert hits[0]["session"]["cwd"] == PROJECT


def test_a_response_recorded_twice_without_the_calls_result_counts_once(
    cli: CLI, gemini: Path
) -> None:
    """The same file with each call's `result` (and display) taken out: the
    responses are then only the user messages, each written twice (as it happened and
    again by the resume); each call still has one output."""
    path = next((gemini / "tmp" / "zoo" / "chats").glob(f"*{ZOO[:8]}.jsonl"))
    lines = []
    for line in path.read_text().splitlines():
        rec = json.loads(line)
        for call in rec.get("toolCalls") or []:
            call.pop("result", None)
            call.pop("resultDisplay", None)
        lines.append(json.dumps(rec))
    path.write_text("\n".join(lines) + "\n")
    cli.json("index", "--no-embed")
    counts, _, messages = indexed(cli, ZOO)
    assert counts["tool_output"] == 3
    assert "Exit Code: 1" in [m for m in messages if m["kind"] == "tool_output"][1]["text"]


def test_the_title_the_cli_gave_at_the_next_start(cli: CLI, gemini: Path) -> None:
    cli.json("index", "--no-embed")
    hits = cli.json("search", "--mode", "keyword", "--source", "gemini", "walrus")["results"]
    assert [h["session"]["title"] for h in hits] == ["Scripted summary of the session"]
    hits = cli.json("search", "--mode", "keyword", "--source", "gemini", "lemur")["results"]
    assert [h["session"]["title"] for h in hits] == ["Tell me about the lemur"]


def test_the_subagents_chat_is_a_subagent_of_the_session(cli: CLI, gemini: Path) -> None:
    cli.json("index", "--no-embed")
    (path,) = (CHATS / HELPED).glob("*.jsonl")
    read = cli.json("read", path.stem, "--tools")
    assert read["session"]["subagent"] is True
    assert read["session"]["parent_id"] == HELPED
    prompts = [m["text"] for t in read["turns"] for m in t["messages"] if m["kind"] == "prompt"]
    assert prompts == ["Look into the ibis-task notes and report"]
