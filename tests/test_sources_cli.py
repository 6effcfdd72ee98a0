"""Choosing sources: `[sources]` in the config, `findsession sources`, `--source`."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import CLI
from transcripts import Transcript, project_dir


@pytest.fixture
def home_sessions(cli: CLI) -> Path:
    """Two Claude Code sessions in the standard place of a fresh home folder."""
    projects = Path(cli.env["CLAUDE_CONFIG_DIR"]) / "projects"
    for sid, words in (("cafe-1", "espresso grinder calibration"), ("cafe-2", "milk steaming")):
        t = Transcript(session_id=sid, cwd="/home/dev/cafe")
        t.prompt(f"help me with the {words}").reply(f"Here is how the {words} works.")
        t.write(project_dir(projects, "/home/dev/cafe"))
    return projects


def test_sources_lists_each_source_with_what_the_index_holds(cli: CLI, home_sessions: Path) -> None:
    cli.run("index", "--no-embed")
    listed = {s["kind"]: s for s in cli.json("sources")["sources"]}
    claude = listed["claude-code"]
    assert claude["enabled"] and claude["sessions"] == 2 and claude["files"] == 2
    assert {"path": str(home_sessions), "exists": True} in claude["roots"]
    text = cli.run("sources").stdout
    assert "claude-code" in text and "2 files, 2 sessions" in text


def test_sources_is_quiet_about_agents_not_on_this_machine(cli: CLI, home_sessions: Path) -> None:
    """A person with one agent reads its block and one line naming the others, not a
    "not found" block for each of twenty agents; `--all` shows every place."""
    cli.run("index", "--no-embed")
    lines = cli.run("sources").stdout.splitlines()
    absent = [line for line in lines if line.startswith("not on this machine: ")]
    assert len(absent) == 1 and "codex" in absent[0] and "amp" in absent[0]
    assert "claude-code" not in absent[0]
    assert not any("(not found)" in line for line in lines), lines
    assert len(lines) < 12, lines
    full = cli.run("sources", "--all").stdout
    assert "~/.codex  (not found)" in full and "not on this machine" not in full


def test_a_source_turned_off_in_the_config_is_not_read(
    cli: CLI, home_sessions: Path, tmp_path: Path
) -> None:
    Path(cli.env["FINDSESSION_CONFIG"]).write_text("[sources]\nclaude-code = false\n")
    report = cli.json("index", "--no-embed")
    assert str(home_sessions) not in report["roots"]  # the sample stands in, with a note
    listed = {s["kind"]: s for s in cli.json("sources")["sources"]}
    assert listed["claude-code"]["enabled"] is False
    assert "off in the config" in cli.run("sources").stdout


def test_config_roots_of_a_source_are_read_as_that_source(
    cli: CLI, home_sessions: Path, tmp_path: Path
) -> None:
    extra = tmp_path / "archive"
    shutil.copytree(home_sessions, extra)
    shutil.rmtree(home_sessions)
    Path(cli.env["FINDSESSION_CONFIG"]).write_text(
        f'[sources.claude-code]\nroots = ["{extra.as_posix()}"]\n'
    )
    cli.run("index", "--no-embed")
    hits = cli.json("search", "espresso grinder")["results"]
    assert hits and hits[0]["session"]["id"] == "cafe-1"


@pytest.mark.parametrize(
    "config, message",
    [
        ("[sources]\nnotepad = true\n", "unknown source 'notepad' in [sources]"),
        ("[sources]\nclaude-code = 3\n", "must be true, false or a table"),
        ('[sources.claude-code]\nroots = "~/x"\n', "roots must be a list of folders"),
    ],
)
def test_a_wrong_sources_table_is_named_in_one_line(cli: CLI, config: str, message: str) -> None:
    Path(cli.env["FINDSESSION_CONFIG"]).write_text(config)
    proc = cli.run("sources", check=False)
    assert proc.returncode == 1 and message in proc.stderr and "Traceback" not in proc.stderr


def test_search_source_filter_keeps_only_that_source(cli: CLI, home_sessions: Path) -> None:
    cli.run("index", "--no-embed")
    kept = cli.json("search", "espresso", "--source", "claude-code")["results"]
    assert [h["session"]["source"] for h in kept] == ["claude-code"]
    wrong = cli.run("search", "espresso", "--source", "notepad", check=False)
    assert wrong.returncode == 1 and "source must be one or more of" in wrong.stderr
    shown = cli.run("search", "espresso").stdout
    assert "claude-code" in shown  # each hit is marked with its source


def test_a_projects_own_agent_instructions_are_indexed_with_its_sessions(
    cli: CLI, tmp_path: Path
) -> None:
    """CLAUDE.md and AGENTS.md live in the project, not in any agent's folder: the index
    reads them for every project its sessions name, as notes of that project."""
    project = tmp_path / "cafe"
    project.mkdir()
    (project / "AGENTS.md").write_text(
        "# Cafe\n\n## Conventions\n\nNever commit the roaster calibration table by hand.\n",
        encoding="utf-8",
    )
    projects = Path(cli.env["CLAUDE_CONFIG_DIR"]) / "projects"
    t = Transcript(session_id="cafe-3", cwd=str(project))
    t.prompt("add a grind size column").reply("Added the column.")
    t.write(project_dir(projects, str(project)))
    cli.run("index", "--no-embed")  # the sessions first: they name the project
    cli.run("index", "--no-embed")  # then its own files are read
    hits = cli.json("search", "roaster calibration table", "--project", str(project))["results"]
    assert hits and hits[0]["session"]["source"] == "memory"
    assert hits[0]["session"]["cwd"] == str(project)
