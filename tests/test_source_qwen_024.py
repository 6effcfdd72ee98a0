"""Qwen Code 0.24.4's own chat files, through the real CLI.

Every file was written by the real Qwen Code 0.24.4 offline against a scripted
OpenAI-compatible server on localhost, in one project (`zoo`), paths renamed to
`/home/dev` and nothing else changed: `ZOO` by `qwen -p` and three `-p --continue`
(a `write_file`, a shell command that fails, an `edit` refused because the file was not
read first); `NARWHAL`, two prompts, the second with `--continue`; `GOAL` by
`qwen -p "/goal <objective>"`, which ran three turns on its own and paused; `WOMBAT` in
the terminal UI, a second message typed while the first one's shell command still ran
(a `user` record of subtype `mid_turn_user_message`, its `systemPayload.displayText`
what was typed).

New since 0.15.10: every record has a `provenance`; `system` records of subtypes
`attribution_snapshot` and `ui_telemetry` (the model's reply again, for statistics) are
harness; a failed tool's `tool_result` carries `toolCallResult.status: "error"`. A
`/goal` writes what the person typed only as the objective of a `goal_state` system
record (`cause: "create"`), and sends the model a long `goal_runtime` user record each
turn ("Continue working on the active Goal…"): the CLI's words, not the person's.

The counts come from the records themselves, not from the parser: a `user` record of no
subtype is a typed prompt, as is a new goal's objective; an `assistant` record's text
parts are replies, its `functionCall` parts tool calls; a `tool_result` is an output.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest
from conftest import CLI

FIXTURE = Path(__file__).parent / "fixtures" / "qwen-0.24" / "home"
CHATS = FIXTURE / ".qwen" / "projects" / "-home-dev-zoo" / "chats"
ZOO = "f4deeb9a-58f3-4836-be19-b6d1b8c02ab5"
NARWHAL = "8d1cf1e9-0d81-480e-9dbc-aeba65ddd52e"
GOAL = "7b5ec315-137e-44ee-8406-493e73d7888d"
WOMBAT = "7654ac07-aaa5-48c0-99c0-c7ab7adcb5bd"
OBJECTIVE = "Write the heron notes and stop when the heron question is answered"


@pytest.fixture
def qwen(cli: CLI, tmp_path: Path) -> Path:
    cli.env["QWEN_HOME"] = str(shutil.copytree(FIXTURE / ".qwen", tmp_path / "qwen-0.24"))
    return Path(cli.env["QWEN_HOME"])


def expected(path: Path) -> tuple[Counter[str], list[str]]:
    counts: Counter[str] = Counter()
    prompts = []
    for line in path.read_text().splitlines():
        rec = json.loads(line)
        parts = (rec.get("message") or {}).get("parts") or []
        texts = [p["text"] for p in parts if "text" in p and not p.get("thought")]
        if rec["type"] == "user" and rec.get("subtype") in (None, "mid_turn_user_message"):
            prompts += texts
        elif rec["type"] == "system" and rec.get("subtype") == "goal_state":
            if rec["systemPayload"]["cause"] == "create":
                prompts.append(rec["systemPayload"]["snapshot"]["goal"]["objective"])
        elif rec["type"] == "assistant":
            counts["reply"] += len(texts)
            counts["tool_call"] += sum("functionCall" in p for p in parts)
        elif rec["type"] == "tool_result":
            counts["tool_output"] += 1
            counts["failed"] += rec["toolCallResult"]["status"] == "error"
    counts["prompt"] = len(prompts)
    return counts, prompts


def indexed(cli: CLI, session: str) -> tuple[Counter[str], list[str]]:
    turns = cli.json("read", session, "--tools")["turns"]
    messages = [m for t in turns for m in t["messages"]]
    counts = Counter(m["kind"] for m in messages)
    counts["failed"] = sum(m["is_error"] for m in messages)
    return counts, [m["text"] for m in messages if m["kind"] == "prompt"]


def test_each_chat_gives_what_its_records_hold(cli: CLI, qwen: Path) -> None:
    report = cli.json("index", "--no-embed", "--source", "qwen")
    assert report["problems"] == []
    totals: Counter[str] = Counter()
    for session in (ZOO, NARWHAL, GOAL, WOMBAT):
        want, want_prompts = expected(CHATS / f"{session}.jsonl")
        got, prompts = indexed(cli, session)
        assert +got == +want, session
        assert prompts == want_prompts, session
        totals += want
    assert totals == Counter(prompt=9, reply=14, tool_call=4, tool_output=4, failed=2)


def test_a_goal_is_the_objective_typed_not_the_runtime_nudge(cli: CLI, qwen: Path) -> None:
    cli.json("index", "--no-embed", "--source", "qwen")
    _, prompts = indexed(cli, GOAL)
    assert prompts == [OBJECTIVE]
    hits = cli.json("search", "--mode", "keyword", "--source", "qwen", "heron")["results"]
    assert [h["session"]["id"] for h in hits] == [GOAL]
    assert hits[0]["session"]["title"] == OBJECTIVE
    nudge = "synthetic continuation turn"
    turns = cli.json("read", GOAL)["turns"]
    assert all(
        nudge not in m["text"] for t in turns for m in t["messages"] if m["kind"] != "harness"
    )


def test_a_message_typed_while_a_tool_ran_is_a_prompt(cli: CLI, qwen: Path) -> None:
    cli.json("index", "--no-embed", "--source", "qwen")
    turns = cli.json("read", WOMBAT, "--tools")["turns"]
    assert [t["messages"][0]["text"] for t in turns] == [
        "Run the slowpoke command for me",
        "Also mention the wombat when it ends",
    ]
