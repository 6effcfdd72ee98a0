"""Going back into a session: `findsession open` gives each agent's own resume command, run
in the session's directory, through the real CLI (and a stand-in agent on PATH that
records how it was started); search results carry the same command in `--json` and MCP.
"""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import shutil
import stat
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI
from test_mcp import call, connect
from transcripts import Transcript, project_dir

from findsession.resume import STALE_AFTER, remember_shown, shown_session
from findsession.storage.sqlite import Store

FIXTURES = Path(__file__).parent / "fixtures"
CODEX_MAIN = "019df26e-2d00-7f29-8645-deec08007ae4"
CODEX_CHILD = "019df272-c0e0-7320-8908-5d728c026738"
GEMINI_ORCHARD = "aaaa1111-0000-4000-8000-000000000001"
GEMINI_KILN = "cccc3333-0000-4000-8000-000000000003"
GEMINI_SUBAGENT = "dddd4444-0000-4000-8000-000000000004"
DECK = "d0d0d0d0-1111-4222-8333-000000000001"
FENCE = "f0f0f0f0-1111-4222-8333-000000000002"
PARENT = "0a0a0a0a-1111-4222-8333-000000000003"


def projects(cli: CLI) -> Path:
    return Path(cli.env["CLAUDE_CONFIG_DIR"]) / "projects"


def claude_session(cli: CLI, sid: str, cwd: Path | str, prompt: str, reply: str) -> Transcript:
    t = Transcript(session_id=sid, cwd=str(cwd))
    t.prompt(prompt).reply(reply)
    t.write(project_dir(projects(cli), str(cwd)))
    return t


def opened(cli: CLI, *args: str) -> dict[str, Any]:
    return json.loads(cli.run("open", *args, "--json").stdout)


def printed(cli: CLI, *args: str) -> list[str]:
    """The `--print` line, split back into words as a shell would."""
    return shlex.split(cli.run("open", *args, "--print").stdout)


def copy_home(fixture: Path, target: Path, old: str, new: str) -> Path:
    """A fixture folder copied with its recorded paths moved from `old` to `new`, so the
    sessions' working directories exist on this machine."""
    shutil.copytree(fixture, target)
    for path in target.rglob("*"):
        if path.is_file():
            path.write_text(path.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")
    return target


@pytest.fixture
def app(tmp_path: Path) -> Path:
    path = tmp_path / "work" / "deck app"
    path.mkdir(parents=True)
    return path


# -- each source's own command ---------------------------------------------------------


def test_claude_code_resumes_with_claude_resume_in_its_directory(cli: CLI, app: Path) -> None:
    claude_session(cli, DECK, app, "seal the deck boards before rain", "Use an oil finish.")
    cli.run("index", "--no-embed")
    assert printed(cli, DECK[:8]) == ["cd", str(app), "&&", "claude", "--resume", DECK]
    plan = opened(cli, DECK)
    assert plan["schema"] == "findsession.open/1" and plan["session"]["id"] == DECK
    assert plan["resume"] == {
        "available": True,
        "command": ["claude", "--resume", DECK],
        "cwd": str(app),
        "cwd_exists": True,
        "anywhere": False,
        "session_id": DECK,
        "note": None,
        "reason": None,
        "machine": None,
        "restore": None,
    }


def test_codex_resumes_with_codex_resume_and_a_subagent_through_its_parent(
    cli: CLI, tmp_path: Path
) -> None:
    orchard = tmp_path / "dev" / "orchard"
    orchard.mkdir(parents=True)
    home = copy_home(
        FIXTURES / "codex" / "home", tmp_path / "codex", "/home/dev/", f"{tmp_path}/dev/"
    )
    cli.env["CODEX_HOME"] = str(home)
    cli.run("index", "--no-embed")
    assert printed(cli, CODEX_MAIN) == ["cd", str(orchard), "&&", "codex", "resume", CODEX_MAIN]
    child = cli.run("open", CODEX_CHILD, "--print")
    assert shlex.split(child.stdout) == ["cd", str(orchard), "&&", "codex", "resume", CODEX_MAIN]
    assert f"this resumes its parent session {CODEX_MAIN}" in child.stderr
    assert opened(cli, CODEX_CHILD)["resume"]["session_id"] == CODEX_MAIN


def test_gemini_resumes_by_session_id_in_the_project_and_a_subagent_through_its_parent(
    cli: CLI, tmp_path: Path
) -> None:
    for name in ("orchard", "kiln"):
        (tmp_path / "dev" / name).mkdir(parents=True)
    home = copy_home(
        FIXTURES / "gemini" / "home", tmp_path / "gemini", "/home/dev/", f"{tmp_path}/dev/"
    )
    cli.env["GEMINI_CLI_HOME"] = str(home)
    cli.run("index", "--no-embed")
    orchard, kiln = tmp_path / "dev" / "orchard", tmp_path / "dev" / "kiln"
    assert printed(cli, GEMINI_ORCHARD) == [
        "cd", str(orchard), "&&", "gemini", "--resume", GEMINI_ORCHARD
    ]  # fmt: skip
    sub = opened(cli, GEMINI_SUBAGENT)
    assert sub["session"]["subagent"] and sub["resume"]["session_id"] == GEMINI_KILN
    assert sub["resume"]["command"] == ["gemini", "--resume", GEMINI_KILN]
    assert sub["resume"]["cwd"] == str(kiln) and "parent session" in sub["resume"]["note"]


def test_aider_restores_the_history_file_of_the_project_and_says_it_is_the_whole_file(
    cli: CLI, tmp_path: Path
) -> None:
    project = tmp_path / "code" / "weather-station"
    shutil.copytree(FIXTURES / "aider" / "weather-station", project)
    cli.run("index", "--no-embed", "--source", "aider", str(tmp_path / "code"))
    hit = cli.json("search", "--mode", "keyword", "barometer drifts after midnight")["results"][0]
    sid = hit["session"]["id"]
    result = cli.run("open", sid, "--print")
    history = str(project / ".aider.chat.history.md")
    assert shlex.split(result.stdout) == [
        "cd", str(project), "&&", "aider", "--restore-chat-history", "--chat-history-file", history
    ]  # fmt: skip
    assert (
        "Aider keeps no session ids" in result.stderr and "whole chat history file" in result.stderr
    )
    assert hit["resume"]["command"][-1] == history


def test_a_markdown_note_has_no_resume_command_and_says_why(cli: CLI, tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "garden.md").write_text("# Garden\n\n## Compost\n\nTurn the compost heap weekly.\n")
    cli.run("index", "--no-embed", "--source", "markdown", str(notes))
    hit = cli.json("search", "--mode", "keyword", "compost heap")["results"][0]
    assert hit["session"]["source"] == "markdown"
    assert hit["resume"]["available"] is False and hit["resume"]["command"] is None
    assert "Markdown document is not an agent's session" in hit["resume"]["reason"]
    refused = cli.run("open", hit["session"]["id"], "--print", check=False)
    assert refused.returncode == 1 and refused.stdout == ""
    assert "cannot be resumed: a Markdown document" in refused.stderr


# -- the list `open N` reads -------------------------------------------------------------


def test_open_n_opens_the_nth_result_this_terminal_was_shown(cli: CLI, app: Path) -> None:
    assert "search first" in cli.run("open", "1", "--print", check=False).stderr
    other = app.parent / "fence"
    other.mkdir()
    claude_session(cli, DECK, app, "stain the cedar deck", "Two coats of cedar stain on the deck.")
    claude_session(cli, FENCE, other, "paint the fence", "A cedar fence takes stain too.")
    cli.run("index", "--no-embed")
    shown = cli.run("search", "--mode", "keyword", "cedar deck stain").stdout
    second = FENCE if shown.index(DECK[:8]) < shown.index(FENCE[:8]) else DECK
    expected = other if second == FENCE else app
    assert printed(cli, "2") == ["cd", str(expected), "&&", "claude", "--resume", second]
    # A script's --json search in the same terminal leaves the person's list alone.
    cli.json("search", "--mode", "keyword", "paint the fence")
    assert printed(cli, "2")[-1] == second
    beyond = cli.run("open", "3", "--print", check=False)
    assert beyond.returncode == 1 and "showed results 1–2, not 3" in beyond.stderr


def test_a_list_too_old_or_a_result_forgotten_since_is_not_opened(
    cli: CLI, app: Path, db_path: Path
) -> None:
    claude_session(cli, DECK, app, "stain the cedar deck", "Two coats.")
    cli.run("index", "--no-embed")
    with Store.open(db_path) as store:
        shown_at = datetime.now(UTC) - STALE_AFTER - timedelta(minutes=1)
        remember_shown(store, "tty:/dev/pts/7", [DECK], now=shown_at)
        assert shown_session(store, "tty:/dev/pts/7", 1, now=shown_at).id == DECK
        with pytest.raises(Exception, match="over 12 hours ago.*search first"):
            shown_session(store, "tty:/dev/pts/7", 1)
        with pytest.raises(Exception, match="no search results are remembered"):
            shown_session(store, "tty:/dev/pts/8", 1)  # another terminal's list is its own
    cli.run("search", "--mode", "keyword", "cedar deck")
    cli.run("forget", DECK)
    gone = cli.run("open", "1", "--print", check=False)
    assert gone.returncode == 1 and "no longer in the index" in gone.stderr


# -- directories and running ------------------------------------------------------------


def test_a_missing_working_directory_is_reported_and_nothing_runs(cli: CLI, tmp_path: Path) -> None:
    gone = tmp_path / "moved-away"
    claude_session(cli, DECK, gone, "seal the deck", "Oil finish.")
    cli.run("index", "--no-embed")
    record = stand_in(cli, tmp_path, "claude")
    warned = cli.run("open", DECK, "--print")
    assert shlex.split(warned.stdout) == ["cd", str(gone), "&&", "claude", "--resume", DECK]
    assert "warning:" in warned.stderr and "no longer exists" in warned.stderr
    refused = cli.run("open", DECK, check=False)
    assert refused.returncode == 1 and "no longer exists" in refused.stderr
    assert "nothing was run" in refused.stderr and f"--resume {DECK}" in refused.stdout
    assert not record.exists()
    assert opened(cli, DECK)["resume"]["cwd_exists"] is False


def stand_in(cli: CLI, tmp_path: Path, name: str) -> Path:
    """An executable called `name`, first on PATH, that records its argv and directory."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    record = tmp_path / f"{name}-ran.json"
    script = bin_dir / name
    script.write_text(
        f"#!{sys.executable}\n"
        "import json, os, sys\n"
        "ran = {'argv': sys.argv[1:], 'cwd': os.getcwd()}\n"
        f"open({str(record)!r}, 'w').write(json.dumps(ran))\n"
        "sys.exit(7)\n"
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    cli.env["PATH"] = f"{bin_dir}{os.pathsep}{cli.env.get('PATH', '')}"
    return record


def test_open_runs_the_agent_in_the_session_directory_with_odd_ids_and_paths_whole(
    cli: CLI, tmp_path: Path
) -> None:
    odd_dir = tmp_path / 'it\'s a "deck" $(app)'
    odd_dir.mkdir()
    odd_id = "-rf 'deck' session"
    claude_session(cli, odd_id, odd_dir, "seal the deck boards", "Oil finish.")
    cli.run("index", "--no-embed")
    record = stand_in(cli, tmp_path, "claude")
    ran = cli.run("open", odd_id, check=False)
    assert ran.returncode == 7  # the agent took the process over: its exit status is ours
    assert json.loads(record.read_text()) == {"argv": [f"--resume={odd_id}"], "cwd": str(odd_dir)}
    # The printed line means the same to a shell.
    words = printed(cli, odd_id)
    assert words == ["cd", str(odd_dir), "&&", "claude", f"--resume={odd_id}"]


def test_an_agent_missing_from_path_is_named_and_its_command_printed(
    cli: CLI, tmp_path: Path, app: Path
) -> None:
    claude_session(cli, DECK, app, "seal the deck", "Oil finish.")
    cli.run("index", "--no-embed")
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    cli.env["PATH"] = str(empty)
    missing = cli.run("open", DECK, check=False)
    assert missing.returncode == 1 and "'claude' is not on PATH" in missing.stderr
    assert shlex.split(missing.stdout) == ["cd", str(app), "&&", "claude", "--resume", DECK]


# -- search results carry the command ----------------------------------------------------


def test_json_and_mcp_hits_carry_the_resume_command(cli: CLI, tmp_path: Path, app: Path) -> None:
    claude_session(cli, DECK, app, "seal the deck boards before rain", "Use an oil finish.")
    sub = Transcript(session_id=PARENT, cwd=str(app), sidechain=True, agent_id="a1b2c3")
    sub.prompt("list every deck board fastener").reply("Stainless deck screws throughout.")
    sub.write(project_dir(projects(cli), str(app)) / PARENT / "subagents", "agent-a1b2c3.jsonl")
    cli.run("index", "--no-embed")
    results = cli.json("search", "--mode", "keyword", "deck")["results"]
    by_id = {h["session"]["id"]: h["resume"] for h in results}
    assert by_id[DECK]["command"] == ["claude", "--resume", DECK]
    assert by_id[DECK]["cwd"] == str(app) and by_id[DECK]["cwd_exists"] is True
    assert by_id["agent-a1b2c3"]["command"] == ["claude", "--resume", PARENT]
    assert f"parent session {PARENT}" in by_id["agent-a1b2c3"]["note"]

    async def go() -> dict[str, Any]:
        async with connect(cli, app) as client:
            error, data = await call(client, "search_conversation", query="seal the deck boards")
            assert not error, data
            return data

    hit = next(h for h in asyncio.run(go())["results"] if h["session"]["id"] == DECK)
    assert hit["resume"]["command"] == ["claude", "--resume", DECK]
    assert hit["resume"]["cwd"] == str(app) and hit["resume"]["available"] is True
