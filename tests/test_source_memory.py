"""Agent memory: Claude Code's per-project notes and projects' CLAUDE.md/AGENTS.md/GEMINI.md
are notes of their project, so a search scoped to the project finds them.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from conftest import CLI
from transcripts import Transcript, project_dir

FIXTURES = Path(__file__).parent / "fixtures" / "notes" / "memory"
APP = "/home/dev/code/ledger-app"


def claude_projects(tmp_path: Path) -> Path:
    """The CLI fixture's `$CLAUDE_CONFIG_DIR/projects`."""
    return tmp_path / "home" / ".claude" / "projects"


def memory_note(tmp_path: Path, cwd: str, with_session: bool = True) -> Path:
    """A project folder holding an auto-memory note, and (unless not) a session of it."""
    folder = project_dir(claude_projects(tmp_path), cwd)
    (folder / "memory").mkdir(parents=True)
    shutil.copy(FIXTURES / "MEMORY.md", folder / "memory" / "MEMORY.md")
    if with_session:
        session = Transcript(cwd=cwd).prompt("add the refund endpoint").reply("Done.")
        session.write(folder)
    return folder


def test_a_memory_note_is_found_with_its_project_and_no_configuration(
    cli: CLI, tmp_path: Path
) -> None:
    memory_note(tmp_path, APP)
    memory_note(tmp_path, "/home/dev/code/other")
    (tmp_path / "home" / ".claude" / "CLAUDE.md").write_text("Answer in metric units.\n")
    cli.json("index", "--no-embed")  # the standard places: sessions and memory alike

    hits = cli.json("search", "make check-quick", "--project", APP)["results"]
    [hit] = hits
    assert hit["session"]["source"] == "memory" and hit["session"]["id"].startswith("mem-")
    assert hit["session"]["cwd"] == APP
    assert hit["session"]["title"] == "Test runner habits"  # the note's front matter name
    assert hit["match"]["kind"] == "doc"
    both = cli.json("search", "make check-quick", "--source", "memory")["results"]
    assert sorted(h["session"]["cwd"] for h in both) == [APP, "/home/dev/code/other"]
    # Its session is still a Claude Code session of the same project.
    [session] = cli.json("search", "refund endpoint", "--project", APP)["results"]
    assert session["session"]["source"] == "claude-code"
    # Claude Code's own CLAUDE.md applies to every project: a note of none.
    [everywhere] = cli.json("search", "metric units")["results"]
    assert everywhere["session"]["source"] == "memory" and everywhere["session"]["cwd"] is None
    assert cli.json("search", "metric units", "--project", APP)["results"] == []


def test_memory_notes_are_read_when_claude_code_is_turned_off(cli: CLI, tmp_path: Path) -> None:
    memory_note(tmp_path, APP)
    (tmp_path / "config.toml").write_text("[sources]\nclaude-code = false\n")
    cli.json("index", "--no-embed")
    [hit] = cli.json("search", "make check-quick")["results"]
    assert hit["session"]["source"] == "memory" and hit["session"]["cwd"] == APP
    assert cli.json("search", "refund endpoint")["results"] == []  # its session is not read


def test_the_project_comes_from_the_sessions_index_when_no_session_is_left(
    cli: CLI, tmp_path: Path
) -> None:
    """Claude Code deletes old sessions; the memory folder and the index of them stay."""
    folder = memory_note(tmp_path, APP, with_session=False)
    (folder / "sessions-index.json").write_text(
        json.dumps({"version": 1, "entries": [], "originalPath": APP})
    )
    cli.json("index", "--no-embed")
    [hit] = cli.json("search", "make check-quick", "--project", APP)["results"]
    assert hit["session"]["cwd"] == APP


def test_a_memory_note_of_an_unknown_project_is_still_found(cli: CLI, tmp_path: Path) -> None:
    memory_note(tmp_path, APP, with_session=False)
    cli.json("index", "--no-embed")
    [hit] = cli.json("search", "make check-quick")["results"]
    assert hit["session"]["cwd"] is None


def test_a_projects_claude_md_is_a_note_of_that_project(cli: CLI, tmp_path: Path) -> None:
    project = tmp_path / "billing"
    shutil.copytree(FIXTURES / "project", project)
    (project / "README.md").write_text("# Billing\n\nNot agent memory: integer cents too.\n")
    cli.json("index", "--no-embed", "--source", "memory", str(project))

    [hit] = cli.json("search", "integer cents ledger", "--project", str(project))["results"]
    assert hit["session"]["path"] == str(project / "CLAUDE.md")
    assert hit["session"]["title"] == "Billing service"
    assert hit["match"]["turn"] == 1
    [deploy] = cli.json("search", "blue-green canary refund", "--source", "memory")["results"]
    assert deploy["match"]["turn"] == 2
