"""Cline's CLI (`cline`, 3.x): its sessions found by what was asked, in the folder they
worked in, resumed with the CLI's own `cline --id`, through the real findsession CLI;
the extension's tasks still read as before beside them.

The fixture (`fixtures/cline_cli/data`) was written by the real Cline CLI 3.0.65 running
one prompt non-interactively against a scripted OpenAI-compatible model (a file written
with its `editor` tool, then `submit_and_exit`); only its home and project paths were
renamed, the process id replaced and its long system prompt cut.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI

FIXTURE = Path(__file__).parent / "fixtures" / "cline_cli" / "data"
EXTENSION_FIXTURE = Path(__file__).parent / "fixtures" / "cline" / "User"
SESSION = "1796591120398_5869v"
PROJECT = "/home/ana/src/kata"


@pytest.fixture
def data(cli: CLI) -> Path:
    """The fixture as the CLI's data folder in its default place, `~/.cline/data`."""
    place = Path(cli.env["HOME"]) / ".cline" / "data"
    shutil.copytree(FIXTURE, place)
    return place


def hits(cli: CLI, query: str) -> list[dict[str, Any]]:
    return cli.json("search", "--mode", "keyword", "--source", "cline", query)["results"]


def test_a_cli_session_is_found_by_its_prompt_in_its_folder_and_resumes_in_the_cli(
    cli: CLI, data: Path
) -> None:
    report = cli.json("index", "--no-embed")
    assert str(data / "sessions") in report["roots"]
    hit = hits(cli, "fizzbuzz kata")[0]
    assert hit["session"]["id"] == SESSION
    assert hit["session"]["source"] == "cline"
    assert hit["session"]["cwd"] == PROJECT
    assert hit["resume"]["available"] is True
    assert hit["resume"]["command"] == ["cline", "--id", SESSION]
    assert hit["resume"]["cwd"] == PROJECT


def test_what_the_cli_session_holds_and_not_the_cli_nudges(cli: CLI, data: Path) -> None:
    cli.json("index", "--no-embed")
    text = cli.run("read", SESSION).stdout
    assert "write a fizzbuzz function in python for the kata" in text
    assert "<user_input" not in text
    assert "This run is not complete" not in text
    assert [h["session"]["id"] for h in hits(cli, "Submission recorded")] == [SESSION]
    assert hits(cli, "terminal completion tools") == []


def test_the_data_folder_the_cli_is_told_to_use_is_read(cli: CLI, tmp_path: Path) -> None:
    elsewhere = tmp_path / "cline-home"
    shutil.copytree(FIXTURE, elsewhere / "data")
    cli.env["CLINE_DIR"] = str(elsewhere)
    cli.json("index", "--no-embed")
    assert [h["session"]["id"] for h in hits(cli, "fizzbuzz")] == [SESSION]


def test_the_extension_tasks_still_read_beside_the_cli(
    cli: CLI, data: Path, tmp_path: Path
) -> None:
    config = tmp_path / "home" / ".config"
    shutil.copytree(EXTENSION_FIXTURE, config / "Code" / "User")
    cli.env["XDG_CONFIG_HOME"] = str(config)
    cli.json("index", "--no-embed")
    task = hits(cli, "sourdough")[0]
    assert task["resume"]["available"] is False
    assert "Cline's task history" in task["resume"]["reason"]
    assert [h["session"]["id"] for h in hits(cli, "fizzbuzz")] == [SESSION]
