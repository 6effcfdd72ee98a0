"""GitHub Copilot CLI sessions: found under `COPILOT_HOME`, searched, read back, kept up
to date, through the real CLI.

The fixture (`fixtures/copilot-cli/home/.copilot`), written from the documented event
format, holds a session folder (`events.jsonl` with a typed prompt and its wrapped copy,
reasoning, tool calls and outputs, a failed edit, a hook event, a skill's injected
message, a malformed line and a subagent's inline events; `workspace.yaml` naming it; a
checkpoint folder), a stale flat twin of that session, and an older flat session log.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI

from findsession.indexing import Root, index_roots
from findsession.storage.sqlite import Store

FIXTURE = Path(__file__).parent / "fixtures" / "copilot-cli" / "home" / ".copilot"
SENSOR = "3f6c2a1e-8b4d-4c7a-9e21-5d0b7f3a1c44"
HIVE = "7a1d9e02-4c3b-4f8e-a6d5-2b9c0e8f7a13"
CHILD = f"{SENSOR}:call-task-1"


@pytest.fixture
def copilot(cli: CLI, tmp_path: Path) -> Path:
    """A copy of the fixture home, found by the CLI through `COPILOT_HOME`."""
    home = tmp_path / "copilot-home"
    shutil.copytree(FIXTURE, home)
    cli.env["COPILOT_HOME"] = str(home)
    return home


def log(copilot: Path) -> Path:
    return copilot / "session-state" / SENSOR / "events.jsonl"


def hits(cli: CLI, query: str) -> list[dict[str, Any]]:
    return cli.json("search", "--mode", "keyword", "--source", "copilot-cli", query)["results"]


def found(cli: CLI, query: str) -> list[str]:
    return [h["session"]["id"] for h in hits(cli, query)]


def test_the_standard_place_is_indexed_and_a_prompt_found(cli: CLI, copilot: Path) -> None:
    report = cli.json("index", "--no-embed")
    assert str(copilot / "session-state") in report["roots"]
    # The session folder's log and the flat older session: not the stale flat twin, not
    # a log inside the session's checkpoint folder.
    assert report["files_read"] == 2 and report["errors"] == []
    listed = {s["kind"]: s for s in cli.json("sources")["sources"]}["copilot-cli"]
    assert (listed["files"], listed["sessions"], listed["subagents"]) == (2, 2, 1)
    assert found(cli, "tomato blight") == [] and found(cli, "basil seedlings") == []

    hit = hits(cli, "humidity sensor zero percent midnight")[0]
    session = hit["session"]
    assert session["id"] == SENSOR and session["turns"] == 2
    assert session["title"] == "Humidity sensor midnight bug"  # workspace.yaml's name
    assert session["cwd"] == "/home/dev/greenhouse"
    assert session["git_branch"] == "sensor-midnight"
    assert hit["resume"]["command"] == ["copilot", "--resume", SENSOR]
    assert hit["resume"]["cwd"] == "/home/dev/greenhouse"

    old = hits(cli, "hive weight cron")[0]
    assert old["session"]["id"] == HIVE and old["session"]["cwd"] == "/home/dev/apiary"
    assert cli.json("index", "--no-embed")["files_read"] == 0  # unchanged: a stat each


def test_read_shows_what_was_typed_said_and_done(cli: CLI, copilot: Path) -> None:
    cli.run("index", "--no-embed")
    turns = cli.json("read", SENSOR, "--tools")["turns"]
    first = [(m["kind"], m["tool"], m["text"]) for m in turns[0]["messages"]]
    # What was typed, not the wrapped copy sent to the model.
    assert first[0] == (
        "prompt",
        None,
        "Why does the humidity sensor report zero percent after midnight?",
    )
    assert (
        "thinking",
        None,
        "The day boundary probably resets the rolling average window.",
    ) in first
    assert ("tool_call", "view", "path: /home/dev/greenhouse/src/sensor.rs") in first
    assert any(k == "tool_output" and "midnight_local" in t for k, _, t in first)
    assert first[-1][0] == "reply" and "divides to zero" in first[-1][2]
    second = turns[1]["messages"]
    assert (
        second[0]["text"] == "Find every place the sensor timestamp is parsed, then fix the window"
    )
    failed = [m for m in second if m["kind"] == "tool_output" and "matched twice" in m["text"]]
    assert len(failed) == 1
    # A skill's injected message is no prompt, and the hook event and the malformed line
    # cost nothing but a reported problem.
    assert found(cli, "espalier") == []
    raw = cli.run("read", SENSOR, "--raw").stdout
    assert "Why does the humidity sensor report zero percent after midnight?" in raw
    assert "<current_datetime>" not in raw


def test_a_subagent_is_a_child_session_of_the_one_that_started_it(cli: CLI, copilot: Path) -> None:
    cli.run("index", "--no-embed")
    hit = hits(cli, "read_probe calls every sample")[0]
    child = hit["session"]
    assert child["id"] == CHILD and child["subagent"] and child["parent_id"] == SENSOR
    messages = cli.json("read", CHILD, "--tools")["turns"][0]["messages"]
    assert messages[0]["text"] == "List every function that parses a sensor timestamp"
    assert [m["kind"] for m in messages[1:]] == ["reply", "tool_call", "tool_output"]
    # Going back into a subagent resumes the session that started it.
    assert hit["resume"]["command"] == ["copilot", "--resume", SENSOR]


def test_a_grown_log_is_read_on_from_where_it_stopped(cli: CLI, copilot: Path) -> None:
    cli.run("index", "--no-embed")
    tail = "-5c1e-4a2b-9d3f-0e8a7b6c5d4f"
    events = (
        ("session.resume", {"sessionId": SENSOR, "context": {"cwd": "/home/dev/greenhouse"}}),
        ("user.message", {"content": "Now alert when the misting pump runs dry"}),
        ("assistant.message", {"content": "The pump alert fires after two dry cycles."}),
    )
    added = "".join(
        json.dumps({"type": kind, "id": f"a000010{n}{tail}", "data": data,
                    "timestamp": f"2026-03-11T08:00:0{n}.000Z"}) + "\n"
        for n, (kind, data) in enumerate(events, 1)
    ).encode()  # fmt: skip
    with log(copilot).open("ab") as fh:
        fh.write(added)

    report = cli.json("index", "--no-embed")

    assert report["files_read"] == 1 and report["bytes_read"] == len(added)
    assert report["problems"] == []  # the malformed line is behind the cursor
    hit = hits(cli, "misting pump dry")[0]
    assert hit["session"]["id"] == SENSOR and hit["match"]["turn"] == 3
    assert hit["session"]["cwd"] == "/home/dev/greenhouse"
    assert found(cli, "humidity sensor zero percent")[0] == SENSOR
    assert cli.json("read", SENSOR)["total_turns"] == 3  # nothing read twice


def test_a_malformed_line_is_reported_by_its_number(cli: CLI, copilot: Path) -> None:
    report = cli.json("index", "--no-embed")
    assert [(p["path"], p["line"], p["reason"]) for p in report["problems"]] == [
        (str(log(copilot)), 8, "malformed JSON")
    ]


def test_a_machine_without_copilot_cli_hears_nothing_of_it(cli: CLI, tmp_path: Path) -> None:
    cli.env["COPILOT_HOME"] = str(tmp_path / "no-copilot")
    proc = cli.run("index", "--no-embed")
    said = proc.stdout + proc.stderr
    assert "copilot-cli" not in said and "session-state" not in said
    listed = {s["kind"]: s for s in cli.json("sources")["sources"]}["copilot-cli"]
    assert listed["enabled"] and listed["sessions"] == 0
    assert listed["roots"] == [  # the event logs, and the first layout's documents
        {"path": str(tmp_path / "no-copilot" / "session-state"), "exists": False},
        {"path": str(tmp_path / "no-copilot" / "history-session-state"), "exists": False},
    ]


def test_an_older_flat_log_drops_the_time_tag_and_keeps_its_folder_and_summary(
    tmp_path: Path,
) -> None:
    """The older flat log (`producer: copilot-agent`): the CLI appends the time to every
    prompt for the model, no `session.start` names the folder (a `folder_trust` notice
    does), and compacting the context leaves a summary."""
    sid = "5d2f7c10-3b9e-4a61-8c0d-7e4f2a9b1c36"

    def event(n: int, kind: str, **data: Any) -> str:
        stamp = f"2025-12-02T05:{n:02d}:00.000Z"
        return json.dumps({"type": kind, "data": data, "id": f"e{n}", "timestamp": stamp})

    lines = [
        event(0, "session.start", sessionId=sid, version=1, producer="copilot-agent",
              copilotVersion="unknown", startTime="2025-12-02T05:00:00.000Z"),
        event(1, "user.message", attachments=[],
              content="why does the greenhouse fan stall at dawn\n\n"
                      "<current_datetime>2025-12-02T05:01:00.000Z</current_datetime>"),
        event(2, "assistant.message", content="The relay coil browns out when the pump starts.",
              toolRequests=[]),
        event(3, "session.info", infoType="folder_trust",
              message="Folder C:\\Users\\dev\\greenhouse has been added to trusted folders."),
        event(4, "session.compaction_complete", success=False, error="model timed out"),
        event(5, "session.compaction_complete", success=True, messagesRemoved=12,
              summaryContent="The fan relay browns out when the irrigation pump starts."),
        event(6, "user.message", content="continue", attachments=[]),
    ]  # fmt: skip
    state = tmp_path / "session-state"
    state.mkdir()
    (state / f"{sid}.jsonl").write_text("\n".join(lines) + "\n")
    with Store.open(tmp_path / "index.db") as store:
        assert index_roots(store, [Root(state, "copilot-cli")]).errors == []
        [(cwd, title)] = store.query("SELECT cwd, title FROM sessions")
        rows = store.query("SELECT kind, text FROM messages ORDER BY line")
    assert cwd == "C:\\Users\\dev\\greenhouse"
    assert title == "why does the greenhouse fan stall at dawn"
    assert rows == [
        ("prompt", "why does the greenhouse fan stall at dawn"),
        ("reply", "The relay coil browns out when the pump starts."),
        ("compact_summary", "The fan relay browns out when the irrigation pump starts."),
        ("prompt", "continue"),
    ]


@pytest.mark.parametrize(
    "summary",
    [
        # 1.1 writes a long summary as a block scalar ...
        "summary: |-\n  Tidy the irrigation schedule notes.\n\n"
        "  - Check each valve timing first.\n",
        # ... or as a double-quoted scalar running over several lines, with escapes.
        'summary: "Tidy the irrigation schedule notes.\\r\n\n  \\r\n\n  - Check each \\"valve\\"'
        ' timing first."\n',
    ],
    ids=["block", "quoted"],
)
def test_a_summary_over_several_lines_is_the_title(tmp_path: Path, summary: str) -> None:
    """`workspace.yaml` is YAML: a summary the CLI wrote over several lines is the
    session's title as a whole, not the block marker or its first line with the quote."""
    home = tmp_path / "copilot"
    shutil.copytree(FIXTURE, home)
    workspace = home / "session-state" / SENSOR / "workspace.yaml"
    workspace.write_text(
        f"id: {SENSOR}\ncwd: c:\\Users\\dev\\greenhouse\n{summary}summary_count: 1\n"
    )
    with Store.open(tmp_path / "index.db") as store:
        assert index_roots(store, [Root(home / "session-state", "copilot-cli")]).errors == []
        [(title,)] = store.query("SELECT title FROM sessions WHERE id = ?", (SENSOR,))
    assert title.startswith("Tidy the irrigation schedule notes.")
    assert "Check each" in title and "valve" in title
    assert "|" not in title and '"' not in title[:1] and "\\r" not in title
