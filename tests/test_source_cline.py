"""Cline tasks: the UI message list read whole when it changes, never half written, the
folder each task worked in, and no resume command, through the real CLI.

The fixture is a hand-written VS Code user folder (`fixtures/cline/User`), written from
the documented format: a task named in `state/taskHistory.json` (a proofing timer: a
reply, thinking, a file tool, a command and its output, a follow-up typed after the
completion, a message still streaming and a kind no version known here writes) and an
older task the history does not name, whose folder only its request's environment
details give (a follow-up question and the answer typed to it).
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

FIXTURE = Path(__file__).parent / "fixtures" / "cline" / "User"
EXTENSION = Path("globalStorage") / "saoudrizwan.claude-dev"
BAKERY = "1733000000000"
GREENHOUSE = "1733100000000"


@pytest.fixture
def tasks(cli: CLI, tmp_path: Path) -> Path:
    """The fixture's user folder as VS Code's on Linux, in the CLI's home."""
    config = tmp_path / "home" / ".config"
    shutil.copytree(FIXTURE, config / "Code" / "User")
    cli.env["XDG_CONFIG_HOME"] = str(config)
    return config / "Code" / "User" / EXTENSION / "tasks"


def index(cli: CLI, *args: str) -> dict[str, Any]:
    return cli.json("index", "--no-embed", *args)


def hits(cli: CLI, query: str) -> list[dict[str, Any]]:
    return cli.json("search", "--mode", "keyword", "--source", "cline", query)["results"]


def found(cli: CLI, query: str) -> list[str]:
    return [h["session"]["id"] for h in hits(cli, query)]


def ui(tasks: Path, task: str) -> Path:
    return tasks / task / "ui_messages.json"


def test_the_standard_place_is_indexed_and_unchanged_tasks_cost_a_stat(
    cli: CLI, tasks: Path
) -> None:
    report = index(cli)
    assert str(tasks) in report["roots"]
    assert report["files_read"] == 2 and report["errors"] == []
    listed = {s["kind"]: s for s in cli.json("sources")["sources"]}["cline"]
    assert (listed["files"], listed["sessions"]) == (2, 2)
    assert {"path": str(tasks), "exists": True} in listed["roots"]
    assert index(cli)["files_read"] == 0


def test_a_task_gives_prompts_replies_tools_and_the_folder_it_worked_in(
    cli: CLI, tasks: Path
) -> None:
    report = index(cli)
    [hit] = hits(cli, "sourdough starter proofing timer")
    session = hit["session"]
    assert session["id"] == BAKERY and session["turns"] == 2
    assert session["cwd"] == "/home/dev/bakery"  # the task history, not the request's
    assert session["title"].startswith("The sourdough starter rises too slowly")
    assert found(cli, "kitchen_temps.csv") == [BAKERY]  # the reply to the typed follow-up
    assert found(cli, "240 minutes left") == [BAKERY]  # a command's output
    assert found(cli, "Half a sentence") == []  # still streaming: not a message yet
    turns = cli.json("read", BAKERY, "--tools")["turns"]
    assert [(m["kind"], m["tool"]) for m in turns[0]["messages"]] == [
        ("prompt", None),
        ("thinking", None),
        ("reply", None),
        ("tool_call", "newFileCreated"),
        ("tool_call", "execute_command"),
        ("tool_output", None),
        ("reply", None),
    ]
    assert turns[1]["messages"][0]["text"] == "Also log the kitchen temperature every ten minutes"
    unknown = [p for p in report["problems"] if p["path"] == str(ui(tasks, BAKERY))]
    assert [(p["line"], p["reason"]) for p in unknown] == [(9, "unknown message kind")]


def test_an_older_task_takes_its_folder_from_the_request_and_its_questions_are_replies(
    cli: CLI, tasks: Path
) -> None:
    index(cli)
    [hit] = hits(cli, "greenhouse tomatoes rain barrel")
    assert hit["session"]["id"] == GREENHOUSE and hit["session"]["cwd"] == "/home/dev/greenhouse"
    turns = cli.json("read", GREENHOUSE)["turns"]
    assert [t["messages"][0]["text"] for t in turns] == [
        "Water the greenhouse tomatoes from the rain barrel pump",
        "GPIO 27, and never run it when the barrel float switch is low",
    ]
    assert "Which relay drives the barrel pump" in turns[0]["messages"][1]["text"]


def test_a_task_rewritten_in_place_is_read_again_without_duplicates(cli: CLI, tasks: Path) -> None:
    index(cli)
    path = ui(tasks, GREENHOUSE)
    items = json.loads(path.read_text())
    items += [
        {"ts": 1733100900000, "type": "say", "say": "user_feedback",
         "text": "Add a moisture sensor threshold for the seedling trays"},
        {"ts": 1733100905000, "type": "say", "say": "text",
         "text": "Seedling trays now water below 35 percent capacitive moisture."},
    ]  # fmt: skip
    path.write_text(json.dumps(items))
    assert index(cli)["files_read"] == 1
    assert found(cli, "seedling trays moisture") == [GREENHOUSE]
    assert found(cli, "float switch").count(GREENHOUSE) == 1
    assert cli.json("read", GREENHOUSE)["total_turns"] == 3

    path.write_text(json.dumps(items[:3]))  # the person deleted the later messages
    index(cli)
    assert found(cli, "seedling trays") == [] and found(cli, "float switch") == []
    assert cli.json("read", GREENHOUSE)["total_turns"] == 1


def test_a_task_caught_half_written_is_read_again_once_the_write_ends(
    cli: CLI, tasks: Path
) -> None:
    index(cli)
    path = ui(tasks, GREENHOUSE)
    items = json.loads(path.read_text())
    items.append({"ts": 1733100900000, "type": "say", "say": "user_feedback",
                  "text": "Shade cloth over the cucumbers at noon"})  # fmt: skip
    whole = json.dumps(items, indent=2)
    path.write_text(whole[: whole.index("Shade cloth") + 5])  # the write is under way
    report = index(cli)
    assert report["errors"] == []
    [problem] = [p for p in report["problems"] if p["path"] == str(path)]
    assert problem["reason"] == "truncated JSON"
    assert found(cli, "float switch") == [GREENHOUSE]  # what was indexed stays whole
    assert found(cli, "Shade") == []  # nothing from the broken bytes
    path.write_text(whole)  # the write ends
    report = index(cli)
    assert [p for p in report["problems"] if p["path"] == str(path)] == []
    assert found(cli, "shade cloth cucumbers") == [GREENHOUSE]
    assert cli.json("read", GREENHOUSE)["total_turns"] == 3

    # A new task first seen half written gives nothing, then all of it.
    fresh = tasks / "1733200000000" / "ui_messages.json"
    fresh.parent.mkdir()
    task = [{"ts": 1733200000000, "type": "say", "say": "task", "text": "Prune the espalier pears"}]
    fresh.write_text(json.dumps(task)[:-3])
    index(cli)
    assert found(cli, "espalier") == []
    fresh.write_text(json.dumps(task))
    index(cli)
    assert found(cli, "espalier pears") == ["1733200000000"]


def test_read_raw_forget_filter_and_resume(cli: CLI, tasks: Path, tmp_path: Path) -> None:
    index(cli)
    raw = cli.json("read", BAKERY, "--raw")
    assert raw["turns"] == cli.json("read", BAKERY)["turns"]
    hit = hits(cli, "sourdough")[0]
    assert hit["session"]["source"] == "cline"
    assert hit["resume"]["available"] is False and hit["resume"]["command"] is None
    assert "Cline's task history" in hit["resume"]["reason"]
    assert (
        cli.json("search", "--mode", "keyword", "--source", "codex", "sourdough")["results"] == []
    )
    cli.run("forget", BAKERY)
    ui(tasks, BAKERY).touch()
    index(cli)
    assert found(cli, "sourdough") == []


def test_a_folder_named_as_cline_is_read_as_cline(cli: CLI, tmp_path: Path) -> None:
    copy = tmp_path / "backup"
    shutil.copytree(FIXTURE / EXTENSION, copy)
    report = index(cli, "--source", "cline", str(copy))
    assert report["files_read"] == 2
    assert found(cli, "greenhouse tomatoes") == [GREENHOUSE]


def test_sources_stays_quiet_about_cline_where_there_is_none(cli: CLI, tmp_path: Path) -> None:
    cli.env["XDG_CONFIG_HOME"] = str(tmp_path / "home" / ".config")
    listed = {s["kind"]: s for s in cli.json("sources")["sources"]}["cline"]
    assert len(listed["roots"]) == 1 and listed["roots"][0]["exists"] is False
    assert listed["files"] == 0
    roots = cli.json("index", "--no-embed")["roots"]
    assert not any("saoudrizwan.claude-dev" in root for root in roots)


def test_what_cline_ran_without_asking_is_indexed_and_every_kind_it_writes_is_known(
    tmp_path: Path,
) -> None:
    """A task as current Cline writes it: tools and commands it ran without asking
    (`say: tool`, `say: command`), a running command's output in `ask` chunks, an
    answer in plan mode, a context summary, and the harness's records, none of them a
    kind to report."""
    said = [
        ("say", "task", "Make the greenhouse vent open above 28 degrees"),
        ("say", "checkpoint_created", ""),
        ("say", "api_req_started", '{"request": "<task>...</task>"}'),
        ("ask", "plan_mode_respond",
         json.dumps({"response": "Plan: a servo on the ridge vent, driven by the DHT22 reading",
                     "options": []})),
        ("say", "user_feedback", "Go ahead and write it"),
        ("say", "tool", json.dumps({"tool": "readFile", "path": "vent/config.toml",
                                    "content": "/home/dev/greenhouse/vent/config.toml"})),
        ("say", "tool", json.dumps({"tool": "editedExistingFile", "path": "vent/servo.py",
                                    "content": "------- SEARCH\nANGLE = 0\n=======\nANGLE = 90"})),
        ("say", "command", "pytest vent"),
        ("ask", "command_output", ""),
        ("ask", "command_output", "collected 4 items"),
        ("ask", "command_output", "4 passed in 0.31s"),
        ("ask", "command", "sudo systemctl restart ventd 2>&1REQ_APP"),
        ("say", "error_retry", '{"attempt":1,"maxAttempts":3,"delaySeconds":2}'),
        ("say", "mcp_server_request_started", ""),
        ("say", "tool", json.dumps({"tool": "summarizeTask",
                                    "content": "The vent servo opens above 28 degrees"})),
        ("say", "completion_result", "The ridge vent servo now opens above 28 degreesHAS_CHANGES"),
        ("ask", "completion_result", ""),
    ]  # fmt: skip
    task = tmp_path / "tasks" / "1733300000000" / "ui_messages.json"
    task.parent.mkdir(parents=True)
    task.write_text(json.dumps([
        {"ts": 1733300000000 + n, "type": side, side: kind, "text": text}
        for n, (side, kind, text) in enumerate(said)
    ]))  # fmt: skip
    with Store.open(tmp_path / "index.db") as store:
        report = index_roots(store, [Root(tmp_path / "tasks", "cline")])
        assert report.errors == [] and report.problems == []
        rows = store.query("SELECT kind, tool_name, files, text FROM messages ORDER BY line")
    assert [(kind, tool) for kind, tool, _, _ in rows] == [
        ("prompt", None),
        ("reply", None),
        ("prompt", None),
        ("tool_call", "readFile"),
        ("tool_call", "editedExistingFile"),
        ("tool_call", "execute_command"),
        ("tool_output", None),
        ("tool_output", None),
        ("tool_call", "execute_command"),
        ("compact_summary", None),
        ("reply", None),
    ]
    texts = [text for _, _, _, text in rows]
    assert texts[1] == "Plan: a servo on the ridge vent, driven by the DHT22 reading"
    assert texts[8] == "sudo systemctl restart ventd 2>&1"  # Cline's approval flag dropped
    assert texts[-1] == "The ridge vent servo now opens above 28 degrees"
    assert [json.loads(files) for _, _, files, _ in rows if files] == [
        ["vent/config.toml"],
        ["vent/servo.py"],
    ]
