"""Roo Code tasks (and Kilo Code's legacy ones, in the same layout): subtasks linked to
the task that started them, the folder from `history_item.json` or the request, through
the real CLI.

The fixture is a hand-written VS Code user folder (`fixtures/roo-code/User`), written
from the documented format: an orchestrator task that hands work to a code subtask and
gets its result back, the subtask (its `history_item.json` names its parent), and a Kilo
Code legacy task with no `history_item.json`, whose folder only its request names.
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

FIXTURE = Path(__file__).parent / "fixtures" / "roo-code" / "User"
DOME = "aaaa0001-0000-4000-8000-00000000000a"
ENCODER = "bbbb0002-0000-4000-8000-00000000000b"
APIARY = "cccc0003-0000-4000-8000-00000000000c"


@pytest.fixture
def storage(cli: CLI, tmp_path: Path) -> Path:
    """The fixture's user folder as VS Code's on Linux, in the CLI's home."""
    config = tmp_path / "home" / ".config"
    shutil.copytree(FIXTURE, config / "Code" / "User")
    cli.env["XDG_CONFIG_HOME"] = str(config)
    return config / "Code" / "User" / "globalStorage"


def hits(cli: CLI, query: str) -> list[dict[str, Any]]:
    return cli.json("search", "--mode", "keyword", "--source", "roo-code", query)["results"]


def found(cli: CLI, query: str) -> list[str]:
    return [h["session"]["id"] for h in hits(cli, query)]


def test_roo_and_kilo_legacy_tasks_are_indexed_from_their_standard_places(
    cli: CLI, storage: Path
) -> None:
    report = cli.json("index", "--no-embed")
    assert str(storage / "rooveterinaryinc.roo-cline" / "tasks") in report["roots"]
    assert str(storage / "kilocode.kilo-code" / "tasks") in report["roots"]
    assert report["files_read"] == 3 and report["errors"] == [] and report["problems"] == []
    listed = {s["kind"]: s for s in cli.json("sources")["sources"]}["roo-code"]
    assert (listed["files"], listed["sessions"], listed["subagents"]) == (3, 2, 1)
    assert cli.json("index", "--no-embed")["files_read"] == 0


def test_a_subtask_leads_to_the_task_that_started_it(cli: CLI, storage: Path) -> None:
    cli.run("index", "--no-embed")
    [hit] = hits(cli, "quadrature edges ring gear")
    session = hit["session"]
    assert session["id"] == ENCODER and session["subagent"] and session["parent_id"] == DOME
    assert session["cwd"] == "/home/dev/observatory"
    assert hit["resume"]["available"] is False  # a subtask goes back through its parent
    dome = hits(cli, "observatory dome encoder")[0]["session"]
    assert dome["id"] == DOME and dome["cwd"] == "/home/dev/observatory" and dome["turns"] == 1
    tools = cli.json("read", DOME, "--tools")["turns"][0]["messages"]
    assert [(m["kind"], m["tool"]) for m in tools] == [
        ("prompt", None),
        ("reply", None),
        ("tool_call", "newTask"),
        ("tool_output", "subtask"),  # the subtask's result, as Roo Code shows it
        ("reply", None),
    ]
    assert "TICKS_PER_REV = 18432" in tools[-1]["text"]


def test_a_kilo_legacy_task_takes_its_folder_from_the_request(cli: CLI, storage: Path) -> None:
    cli.run("index", "--no-embed")
    [hit] = hits(cli, "apiary hive weights load cells")
    assert hit["session"]["id"] == APIARY and hit["session"]["cwd"] == "/home/dev/apiary"
    assert "Roo Code's task history" in hit["resume"]["reason"]


def test_a_rewritten_task_replaces_what_it_gave(cli: CLI, storage: Path) -> None:
    cli.run("index", "--no-embed")
    path = storage / "rooveterinaryinc.roo-cline" / "tasks" / ENCODER / "ui_messages.json"
    items = json.loads(path.read_text())
    items[-1]["text"] = "Counting index pulses instead: one per revolution of the dome."
    path.write_text(json.dumps(items))
    assert cli.json("index", "--no-embed")["files_read"] == 1
    assert found(cli, "quadrature") == []
    assert found(cli, "index pulses") == [ENCODER]
    raw = cli.json("read", ENCODER, "--raw")
    assert raw["turns"] == cli.json("read", ENCODER)["turns"]


def test_roo_and_kilo_kinds_are_known_and_a_condensed_context_is_a_summary(
    tmp_path: Path,
) -> None:
    """A task as Roo Code and Kilo Code's extension write them: every tool is asked
    (auto-approval answers the ask), a command's output comes in chunks, condensing the
    context leaves its summary in `contextCondense`, and Kilo Code adds kinds of its own
    (`say: tool` among them). None is reported as unknown."""
    said = [
        ("say", "text", "Log the beehive weight every hour from the HX711 load cells", None),
        ("say", "api_req_rate_limit_wait", "", None),
        ("ask", "followup", json.dumps({"question": "Which GPIO pins carry the HX711 clock?",
                                        "suggest": [{"answer": "5 and 6"}]}), None),
        ("say", "user_feedback", "Clock on 5, data on 6", None),
        ("ask", "tool", json.dumps({"tool": "appliedDiff", "path": "hive/scale.py",
                                    "diff": "-GAIN = 64\n+GAIN = 128"}), None),
        ("ask", "command", "python -m hive.scale --once", None),
        ("ask", "command_output", "tare done", None),
        ("say", "command_output", "weight: 31.4 kg", None),
        ("say", "condense_context", "", {"cost": 0.01, "prevContextTokens": 90000,
                                          "newContextTokens": 4000,
                                          "summary": "Hourly hive weight logging over HX711"}),
        ("say", "tool", json.dumps({"tool": "readFile", "path": "hive/calibration.json"}), None),
        ("say", "sliding_window_truncation", "", None),
        ("say", "user_edit_todos", "", None),
        ("ask", "checkpoint_restore", "", None),
        ("ask", "auto_approval_max_req_reached", "", None),
        ("say", "completion_result", "The scale logs the hive weight every hour", None),
    ]  # fmt: skip
    task = tmp_path / "tasks" / "dddd0004-0000-4000-8000-00000000000d" / "ui_messages.json"
    task.parent.mkdir(parents=True)
    items = []
    for n, (side, kind, text, condensed) in enumerate(said):
        item = {"ts": 1733400000000 + n, "type": side, side: kind, "text": text}
        items.append(item | ({"contextCondense": condensed} if condensed else {}))
    task.write_text(json.dumps(items))
    with Store.open(tmp_path / "index.db") as store:
        report = index_roots(store, [Root(tmp_path / "tasks", "roo-code")])
        assert report.errors == [] and report.problems == []
        rows = store.query("SELECT kind, tool_name, text FROM messages ORDER BY line")
    assert [(kind, tool) for kind, tool, _ in rows] == [
        ("prompt", None),
        ("reply", None),
        ("prompt", None),
        ("tool_call", "appliedDiff"),
        ("tool_call", "execute_command"),
        ("tool_output", None),
        ("tool_output", None),
        ("compact_summary", None),
        ("tool_call", "readFile"),
        ("reply", None),
    ]
    assert rows[1][2] == "Which GPIO pins carry the HX711 clock?"
    assert rows[7][2] == "Hourly hive weight logging over HX711"
