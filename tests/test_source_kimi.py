"""Kimi CLI's sessions (`~/.kimi/sessions/<work dir>/<session>/wire.jsonl`), through the
real CLI: each session's prompts counted by a reader of its own, the folder from
`kimi.json`, the title from `state.json`, thinking, tool calls and results (a failed one
kept out of blame), `/btw` questions, a subagent from its own log and one known only from
its parent's, a log read on from where it stopped, and `kimi --session`.

The fixture (`fixtures/kimi/home/.kimi`) is written from Kimi CLI's own code (`session.py`,
`metadata.py`, `wire/file.py`, `wire/types.py`, `subagents/store.py`): a current session
with a subagent that keeps its own log, and an older one (no header line) whose subagent
lives only in its parent's log.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI

from findsession.domain import Message
from findsession.sources import SOURCES

FIXTURE = Path(__file__).parent / "fixtures" / "kimi" / "home" / ".kimi"
OVEN = "4c2e8a10-0001-4b5d-9e6f-7a8b9c0d1e2f"
GARDEN = "4c2e8a10-0002-4b5d-9e6f-7a8b9c0d1e2f"
PROBE = f"{OVEN}:a1b2c3d4e"  # the subagent with a log of its own
SURVEY = f"{GARDEN}:task_1"  # the one known from its parent's log only


@pytest.fixture
def home(cli: CLI, tmp_path: Path) -> Path:
    place = tmp_path / "home" / ".kimi"
    shutil.copytree(FIXTURE, place)
    return place


def hits(cli: CLI, query: str) -> list[dict[str, Any]]:
    return cli.json("search", "--mode", "keyword", "--source", "kimi", query)["results"]


def found(cli: CLI, query: str) -> list[str]:
    return [h["session"]["id"] for h in hits(cli, query)]


def index(cli: CLI) -> dict[str, Any]:
    return cli.json("index", "--no-embed")


def counted(home: Path) -> dict[str, int]:
    """Each session's prompts, counted without findsession: `TurnBegin`, `SteerInput`
    and `BtwBegin` events of each log, a forwarded subagent's under its own key."""
    out: dict[str, int] = {}
    for wire in home.rglob("wire.jsonl"):
        folder = wire.parent
        own = (
            f"{folder.parent.parent.name}:{folder.name}"
            if folder.parent.name == "subagents"
            else folder.name
        )
        for line in wire.read_text().splitlines():
            message = json.loads(line).get("message") or {}
            key = own
            if message.get("type") == "SubagentEvent":
                agent = message["payload"].get("agent_id") or message["payload"].get(
                    "task_tool_call_id"
                )
                if (folder / "subagents" / agent / "wire.jsonl").exists():
                    continue
                key, message = f"{own}:{agent}", message["payload"]["event"]
            if message.get("type") in ("TurnBegin", "SteerInput", "BtwBegin"):
                out[key] = out.get(key, 0) + 1
    return out


def test_every_session_and_subagent_is_read_and_counted(cli: CLI, home: Path) -> None:
    report = index(cli)
    assert str(home / "sessions") in report["roots"] and report["errors"] == []
    assert report["files_read"] == 3
    [problem] = report["problems"]
    assert problem["reason"] == "unknown event" and problem["detail"].startswith("GardenGnome")
    listed = {s["kind"]: s for s in cli.json("sources")["sources"]}["kimi"]
    assert (listed["sessions"], listed["subagents"]) == (2, 2)
    expected = counted(home)
    assert set(expected) == {OVEN, GARDEN, PROBE, SURVEY}
    for key, prompts in expected.items():
        assert cli.json("read", key)["total_turns"] == prompts, key
    assert index(cli)["files_read"] == 0


def test_a_session_gives_its_folder_title_prompts_replies_and_tools(cli: CLI, home: Path) -> None:
    index(cli)
    session = hits(cli, "bread oven crust burn")[0]["session"]
    assert session["id"] == OVEN and session["title"] == "Bread oven crust"
    assert session["cwd"] == "/home/dev/bread oven"  # from kimi.json
    assert session["started"] == "2026-05-28T20:26:40.000Z"
    assert found(cli, "TOP_DUTY") == [OVEN]  # a tool's output
    assert found(cli, "sourdough levain") == []  # context.jsonl is not read
    messages = cli.json("read", OVEN, "--tools")["turns"][0]["messages"]
    assert [(m["kind"], m["tool"]) for m in messages] == [
        ("prompt", None),
        ("thinking", None),
        ("reply", None),
        ("tool_call", "ReadFile"),
        ("tool_output", "ReadFile"),
        ("tool_call", "Agent"),
        ("tool_output", "Agent"),
        ("tool_call", "StrReplaceFile"),
        ("tool_output", "StrReplaceFile"),
        ("tool_call", "Shell"),
        ("tool_output", "Shell"),
        ("reply", None),
    ]
    assert found(cli, "rye flour heavier") == [OVEN]  # a /btw question
    assert cli.json("read", OVEN, "--raw")["turns"] == cli.json("read", OVEN)["turns"]
    resume = hits(cli, "bread oven crust")[0]["resume"]
    assert resume["command"] == ["kimi", "--session", OVEN]
    assert resume["cwd"] == "/home/dev/bread oven"


def test_a_parents_log_gives_only_the_subagents_without_a_log_of_their_own(home: Path) -> None:
    """Both copies of a subagent's events would claim one session: the parent's log
    leaves out those of a subagent whose own log is there to read."""
    source = SOURCES["kimi"]
    keys = {}
    for session in (OVEN, GARDEN):
        path = next(home.rglob(f"{session}/wire.jsonl"))
        with path.open("rb") as fh:
            reading = source.read(source.describe(path), fh, None)
        keys[session] = {r.session_key for r in reading.records if isinstance(r, Message)}
    assert keys == {OVEN: {None}, GARDEN: {None, "task_1"}}


def test_subagents_from_their_own_log_and_from_their_parents(cli: CLI, home: Path) -> None:
    index(cli)
    probe = [h for h in hits(cli, "CORE_THERMISTOR") if h["session"]["subagent"]]
    assert [h["session"]["id"] for h in probe] == [PROBE]
    assert probe[0]["session"]["parent_id"] == OVEN
    assert probe[0]["resume"]["command"] == ["kimi", "--session", OVEN]
    # Its own log, whole (the parent's copy of its events has no tool calls): read once.
    messages = cli.json("read", PROBE, "--tools")["turns"][0]["messages"]
    assert [(m["kind"], m["tool"]) for m in messages] == [
        ("prompt", None),
        ("tool_call", "Grep"),
        ("tool_output", "Grep"),
        ("reply", None),
    ]
    survey = [h for h in hits(cli, "beds facing south") if h["session"]["subagent"]]
    assert [h["session"]["parent_id"] for h in survey] == [GARDEN]
    garden = hits(cli, "tomato shade cloth")[0]["session"]
    assert garden["title"].startswith("Which tomato beds")  # no state.json: the prompt


def test_blame_finds_what_writefile_and_strreplacefile_wrote(cli: CLI, home: Path) -> None:
    index(cli)
    edits = cli.json("blame", "/home/dev/bread oven/oven/schedule.py")["writers"]
    assert [(w["session"]["id"], w["op"], w["added"]) for w in edits] == [
        (OVEN, "edit", ["TOP_DUTY = 0.6"])
    ]
    writes = cli.json("blame", "/home/dev/bread oven/oven/steam.py")["writers"]
    assert [(w["session"]["id"], w["op"]) for w in writes] == [(OVEN, "create")]


def test_a_log_read_on_from_where_it_stopped(cli: CLI, home: Path) -> None:
    index(cli)
    wire = next(home.rglob(f"{GARDEN}/wire.jsonl"))
    events = [
        {"timestamp": 1765000100.0, "message": {"type": "SteerInput", "payload": {
            "user_input": "and the cucumber trellis too"}}},
        {"timestamp": 1765000101.0, "message": {"type": "ToolResult", "payload": {
            "tool_call_id": "task_1", "return_value": {"is_error": False,
            "output": "trellis rows face west", "message": "", "display": []}}}},
    ]  # fmt: skip
    with wire.open("a") as fh:
        fh.write("".join(json.dumps(e) + "\n" for e in events))
    report = index(cli)
    assert report["files_read"] == 1 and report["lines_read"] == 2
    assert found(cli, "cucumber trellis") == [GARDEN]
    last = cli.json("read", GARDEN, "--tools")["turns"][-1]["messages"]
    assert [(m["kind"], m["tool"]) for m in last] == [("prompt", None), ("tool_output", "Task")]
    state = next(home.rglob(f"{GARDEN}")) / "state.json"
    state.write_text(json.dumps({"custom_title": "Shade cloth plan", "title_generated": False}))
    index(cli)
    assert hits(cli, "tomato shade")[0]["session"]["title"] == "Shade cloth plan"


REAL_HOME = Path(__file__).parent / "fixtures" / "kimi-real" / "home" / ".kimi"
TIDES = "4527aaeb-336a-4b13-9cee-0c806ddecfce"
LISTER = f"{TIDES}:ac135ecea"


def test_what_the_real_kimi_cli_wrote_is_read_whole(cli: CLI) -> None:
    """`fixtures/kimi-real` is what the real Kimi CLI 1.51.0 (its last working release,
    wire protocol 1.10) wrote offline against a scripted model on localhost: a session
    begun with `--print -p` and resumed twice with `-S` (a file written and edited twice,
    a failing command, a subagent asked to list the files). Its `context.jsonl` files are
    left out (not read; they hold the system prompt). Each count is the log's own. The
    subagent's reply was short, so Kimi asked it for more in a `TurnBegin` of its own
    (`SUMMARY_CONTINUATION_PROMPT`): Kimi's text, not a prompt."""
    cli.env["KIMI_SHARE_DIR"] = str(REAL_HOME)
    report = index(cli)
    assert report["errors"] == report["problems"] == []
    wires = {TIDES: next(REAL_HOME.rglob(f"{TIDES}/wire.jsonl")),
             LISTER: next(REAL_HOME.rglob("ac135ecea/wire.jsonl"))}  # fmt: skip
    for key, wire in wires.items():
        events = [json.loads(line).get("message") or {} for line in wire.read_text().splitlines()]
        typed = [e["payload"]["user_input"] for e in events if e.get("type") == "TurnBegin"]
        typed = [t for t in typed if not t.startswith("Your previous response was too brief")]
        parts = [e["payload"] for e in events if e.get("type") == "ContentPart"]
        results = [e["payload"] for e in events if e.get("type") == "ToolResult"]
        read = cli.json("read", key, "--tools")
        said = [m for t in read["turns"] for m in t["messages"]]
        outputs = [m for m in said if m["kind"] == "tool_output"]
        assert [m["text"] for m in said if m["kind"] == "prompt"] == typed
        assert sum(m["kind"] == "reply" for m in said) == sum(p["type"] == "text" for p in parts)
        assert sum(m["kind"] == "tool_call" for m in said) == sum(
            e.get("type") == "ToolCall" for e in events
        )
        assert len(outputs) == len(results)
        assert sum(m["is_error"] for m in outputs) == sum(
            r["return_value"]["is_error"] for r in results
        )
        assert read["session"]["cwd"] == "/home/dev/tides"
    lister = cli.json("read", LISTER, "--tools")
    assert lister["session"]["parent_id"] == TIDES and lister["session"]["subagent"] is True
    assert len(cli.json("read", TIDES)["turns"]) == 3
    assert cli.json("blame", "/home/dev/tides/tides.py")["total"] == 3  # written, edited twice
