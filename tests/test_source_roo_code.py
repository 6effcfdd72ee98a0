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
