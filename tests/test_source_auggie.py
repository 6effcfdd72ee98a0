"""Augment's Auggie CLI sessions (`~/.augment/sessions/<id>.json`), through the real CLI:
each session's prompts counted by a reader of its own, a history summary apart from what
was typed, thinking, replies and tool calls answered in the next exchange, a sub-agent
under its session, Auggie's backup copies and temporary files left alone, titles, blame
(a failed edit left out), a session caught half written, and `auggie --resume`.

The fixture (`fixtures/auggie/home/.augment`) is written from Auggie's own code (its
published CLI bundle: the session store, the exchange's nodes, its tools' arguments),
with synthetic text.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI

FIXTURE = Path(__file__).parent / "fixtures" / "auggie" / "home" / ".augment" / "sessions"
KILN = "8c4f2e1a-0b3d-4e5f-9a6b-1c2d3e4f5a01"
LOOM = "8c4f2e1a-0b3d-4e5f-9a6b-1c2d3e4f5a02"
AGENT = f"{KILN}:subagent-1"


@pytest.fixture
def sessions(cli: CLI, tmp_path: Path) -> Path:
    """The fixture in Auggie's standard place under the CLI's home."""
    place = tmp_path / "home" / ".augment" / "sessions"
    shutil.copytree(FIXTURE, place)
    return place


def hits(cli: CLI, query: str) -> list[dict[str, Any]]:
    return cli.json("search", "--mode", "keyword", "--source", "auggie", query)["results"]


def found(cli: CLI, query: str) -> list[str]:
    return [h["session"]["id"] for h in hits(cli, query)]


def index(cli: CLI) -> dict[str, Any]:
    return cli.json("index", "--no-embed")


def typed_prompts(history: list[dict[str, Any]]) -> int:
    """A history's typed prompts, counted without findsession: exchanges that are not a
    summary and whose request has a message."""
    return sum(
        1
        for entry in history
        if not entry.get("isHistorySummary") and entry["exchange"]["request_message"].strip()
    )


def test_every_session_and_sub_agent_is_read_and_counted(cli: CLI, sessions: Path) -> None:
    before = {p.name: p.read_bytes() for p in sessions.iterdir()}
    report = index(cli)
    assert str(sessions) in report["roots"] and report["errors"] == []
    assert report["files_read"] == 2 and report["problems"] == []  # no backup, no .tmp
    listed = {s["kind"]: s for s in cli.json("sources")["sources"]}["auggie"]
    assert (listed["files"], listed["sessions"], listed["subagents"]) == (2, 2, 1)
    kiln = json.loads((sessions / f"{KILN}.json").read_text())
    loom = json.loads((sessions / f"{LOOM}.json").read_text())
    counts = {
        KILN: typed_prompts(kiln["chatHistory"]),
        LOOM: typed_prompts(loom["chatHistory"]),
        AGENT: typed_prompts(kiln["subAgents"][0]["chatHistory"]),
    }
    for session, count in counts.items():
        assert cli.json("read", session)["total_turns"] == count, session
    assert found(cli, "glaze crawling bisque") == []  # the backup copy is not a session
    assert index(cli)["files_read"] == 0
    assert {p.name: p.read_bytes() for p in sessions.iterdir()} == before  # nothing written


def test_a_session_its_tools_sub_agent_and_title(cli: CLI, sessions: Path) -> None:
    index(cli)
    session = hits(cli, "kiln overshoots cone ramp")[0]["session"]
    assert session["id"] == KILN and session["title"] == "Kiln ramp overshoot"
    assert session["cwd"] == "/home/dev/kiln-controller"
    assert session["started"] == "2026-06-02T08:15:00.000Z"  # the session's creation
    messages = cli.json("read", KILN, "--tools")["turns"][0]["messages"]
    assert [(m["kind"], m["tool"]) for m in messages] == [
        ("prompt", None),
        ("thinking", None),
        ("reply", None),
        ("tool_call", "view"),
        ("tool_output", "view"),
        ("reply", None),
        ("tool_call", "str-replace-editor"),
        ("tool_call", "save-file"),
        ("tool_output", "str-replace-editor"),
        ("tool_output", "save-file"),
        ("tool_call", "launch-process"),
        ("tool_output", "launch-process"),
        ("reply", None),
    ]
    assert found(cli, "integral windup") == [KILN]  # its thinking
    agent = [h for h in hits(cli, "thermocouple sampling interrupt") if h["session"]["subagent"]]
    assert [(h["session"]["id"], h["session"]["parent_id"]) for h in agent] == [(AGENT, KILN)]
    assert cli.json("read", KILN, "--raw")["turns"] == cli.json("read", KILN)["turns"]


def test_a_history_summary_is_not_a_prompt_and_a_fork_keeps_its_title(
    cli: CLI, sessions: Path
) -> None:
    index(cli)
    loom = cli.json("read", LOOM)
    assert loom["total_turns"] == 2
    prompt = loom["turns"][0]["messages"][0]
    assert prompt["kind"] == "prompt" and prompt["text"].startswith("What spring rate")
    assert "band brake" not in prompt["text"]  # the summary sent with it is not typed
    session = hits(cli, "warp beam brake spring")[0]["session"]
    assert session["id"] == LOOM and session["title"] == "Loom brake spring (fork)"
    assert session["cwd"] == "/home/dev/loom-tension"


def test_blame_and_auggie_resume(cli: CLI, sessions: Path) -> None:
    index(cli)
    root = "/home/dev/kiln-controller"
    edits = cli.json("blame", f"{root}/src/pid.c")["writers"]
    assert [(w["session"]["id"], w["op"]) for w in edits] == [(KILN, "edit"), (KILN, "edit")]
    made = cli.json("blame", f"{root}/tests/test_ramp.c")["writers"]
    assert [(w["session"]["id"], w["op"]) for w in made] == [(KILN, "create")]
    gone = cli.json("blame", f"{root}/src/ramp_table_old.c")["writers"]
    assert [(w["session"]["id"], w["op"]) for w in gone] == [(KILN, "delete")]
    assert cli.json("blame", f"{root}/src/thermocouple.h")["writers"] == []  # it failed
    resume = hits(cli, "warp beam brake spring")[0]["resume"]
    assert resume["command"] == ["auggie", "--resume", LOOM]
    assert resume["cwd"] == "/home/dev/loom-tension"


def test_a_session_rewritten_whole_and_one_caught_half_written(cli: CLI, sessions: Path) -> None:
    index(cli)
    path = sessions / f"{LOOM}.json"
    doc = json.loads(path.read_text())
    doc["chatHistory"].append(
        {
            "exchange": {
                "request_id": "req-l2",
                "request_message": "And the cloth beam ratchet pawl?",
                "response_text": "Give the pawl a stiffer return spring than the brake's.",
                "request_nodes": [],
                "response_nodes": [],
            },
            "completed": True,
            "sequenceId": 3,
            "finishedAt": "2026-06-03T14:05:00.000Z",
        }
    )
    whole = json.dumps(doc, indent=2)
    path.write_text(whole[: whole.index("stiffer return")])  # a plain write, half done
    report = index(cli)
    [problem] = [p for p in report["problems"] if p["path"] == str(path)]
    assert problem["reason"] == "truncated JSON" and report["errors"] == []
    assert found(cli, "ratchet pawl") == []
    assert found(cli, "warp beam brake") == [LOOM]  # what was indexed stays
    assert found(cli, "overshoots") == [KILN]  # the other file is read as before
    path.write_text(whole)
    index(cli)
    assert found(cli, "ratchet pawl") == [LOOM]
