"""Kiro IDE's chats (`globalStorage/kiro.kiroagent/`), through the real CLI: prompts from
the session file as typed, the answers from the agent's runs each read once although a
run repeats the runs before it, Kiro's system prompt, steering files, editor state,
acknowledgement and file tree kept out, times from the workspace's list of runs, a run
gone, a run ended after the session file was last written, and no command to go back.

The fixture (`fixtures/kiro-ide`) is made up, its text invented, in the shape of the
real files two people committed with their home folders (Kiro of June 2026 and
August 2025, `test_real_kiro_ide.py`): a workspace's `workspace-sessions/` folder with
two chats and their list, and two runs of the agent with the workspace's list of runs.
The counts below are taken from the fixture by `kiro_ide_counts`, which reads the JSON
with no findsession code.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI
from kiro_ide_counts import count_chat, runs

FIXTURE = Path(__file__).parent / "fixtures" / "kiro-ide" / "home"
AGENT = Path(".config") / "Kiro" / "User" / "globalStorage" / "kiro.kiroagent"
BUOY = "3f2a9c10-7b4d-4e21-9a0c-5d6e7f809a11"
ANEMO = "3f2a9c10-7b4d-4e21-9a0c-5d6e7f809a12"
_KINDS = {"prompt": "prompts", "reply": "replies", "thinking": "thinking",
          "tool_call": "calls", "tool_output": "results"}  # fmt: skip


@pytest.fixture
def agent(cli: CLI, tmp_path: Path) -> Path:
    """The fixture in Kiro's standard place under the CLI's home."""
    place = tmp_path / "home" / AGENT
    shutil.copytree(FIXTURE / AGENT, place)
    return place


def counted(agent: Path, session: str) -> Counter[str]:
    [path] = agent.glob(f"workspace-sessions/*/{session}.json")
    return count_chat(path, runs(agent))


def hits(cli: CLI, query: str) -> list[dict[str, Any]]:
    return cli.json("search", "--mode", "keyword", "--source", "kiro-ide", query)["results"]


def found(cli: CLI, query: str) -> list[str]:
    return [h["session"]["id"] for h in hits(cli, query)]


def held(cli: CLI, session: str) -> Counter[str]:
    messages = Counter[str]()
    for turn in cli.json("read", session, "--tools")["turns"]:
        messages.update(_KINDS[m["kind"]] for m in turn["messages"])
    return messages


def test_each_chat_holds_what_an_independent_count_finds(cli: CLI, agent: Path) -> None:
    report = cli.json("index", "--no-embed")
    assert report["errors"] == [] and report["problems"] == []
    assert str(agent / "workspace-sessions") in report["roots"]
    listed = {s["kind"]: s for s in cli.json("sources")["sources"]}["kiro-ide"]
    assert (listed["files"], listed["sessions"]) == (2, 2)  # not sessions.json
    buoy = counted(agent, BUOY)
    assert buoy == Counter(prompts=2, replies=4, thinking=1, calls=3, results=3)
    assert held(cli, BUOY) == buoy  # the second run's copy of the first is read once
    assert held(cli, ANEMO) == counted(agent, ANEMO) == Counter(prompts=1)  # its run is gone


def test_prompts_as_typed_and_the_harness_kept_out(cli: CLI, agent: Path) -> None:
    cli.json("index", "--no-embed")
    session = hits(cli, "retry loop telemetry packet")[0]["session"]
    assert session["id"] == BUOY and session["title"] == "Buoy telemetry retry"
    assert session["cwd"] == "/home/dev/weather-buoy"
    assert session["started"] == "2026-06-01T08:00:00.000Z"  # the first run's start
    assert found(cli, "final attempt never happens") == [BUOY]  # a reply from the run
    assert found(cli, "stale lockfile uploader") == [BUOY]
    for harness in (
        "SEAFOAM",
        "key_kiro_features",
        "EnvironmentContext",
        "KELPWATCH",
        "follow these instructions",
        "zephyrlog",
    ):
        assert found(cli, harness) == [], harness  # fmt: skip
    turns = cli.json("read", BUOY, "--tools")["turns"]
    first = turns[0]["messages"]
    assert "On it." not in [m["text"] for t in turns for m in t["messages"]]  # a placeholder
    assert first[0]["text"] == (
        "The buoy's retry loop drops the last telemetry packet when the modem times out"
    )
    calls = [(m["kind"], m["tool"]) for m in first if m["kind"].startswith("tool")]
    assert calls == [("tool_call", "read_file"), ("tool_output", "read_file"),
                     ("tool_call", "execute_bash"), ("tool_output", "execute_bash")]  # fmt: skip
    [failed] = [m for m in first if m["kind"] == "tool_output" and m["tool"] == "execute_bash"]
    assert failed.get("is_error") is True and "Exit Code: 1" in failed["text"]
    assert turns[1]["messages"][0]["timestamp"] == "2026-06-01T08:10:00.000Z"  # its run


def test_a_placeholder_title_and_no_command_to_go_back(cli: CLI, agent: Path) -> None:
    cli.json("index", "--no-embed")
    [hit] = hits(cli, "anemometer baud rate")
    assert hit["session"]["id"] == ANEMO
    assert hit["session"]["title"].startswith("What baud rate")  # not "New Session"
    assert hit["resume"]["command"] is None and "history" in hit["resume"]["reason"]


def test_a_run_that_ends_after_the_chat_was_written_is_read(cli: CLI, agent: Path) -> None:
    """Kiro writes a run's messages as it goes and the workspace's list of runs when it
    ends; the session file may not change meanwhile."""
    cli.json("index", "--no-embed")
    [log] = [p for p in agent.glob("*/*/*") if "final attempt" in p.read_text()
             and "lockfile is gone" not in p.read_text()]  # fmt: skip
    doc = json.loads(log.read_text())
    doc["context"]["messages"][-1]["entries"][0]["text"] += " Also log the modem's RSSI."
    log.write_text(json.dumps(doc))
    runs = log.parent.parent / "f62de366d0006e17ea00a01f6624aabf"
    runs.write_text(runs.read_text() + "\n")
    assert cli.json("index", "--no-embed")["files_read"] == 2  # the workspace's chats
    assert found(cli, "modem RSSI") == [BUOY]


def test_a_run_that_is_not_json_is_said_and_the_chat_read(cli: CLI, agent: Path) -> None:
    [log] = [p for p in agent.glob("*/*/*") if "lockfile is gone" in p.read_text()]
    log.write_text('{"executionId": "cut sh')
    report = cli.json("index", "--no-embed")
    [problem] = report["problems"]
    assert problem["reason"] == "run not read" and problem["line"] == 4
    assert found(cli, "final attempt never happens") == [BUOY]  # the other run
    assert found(cli, "stale lockfile uploader") == [BUOY]  # the prompt, from the chat
