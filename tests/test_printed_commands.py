"""The commands findsession prints for a person or an agent to run (`open --print`,
`handoff --to`, the MCP tool `handoff`, the page's resume command) run only themselves
under a POSIX shell: each printed line is run by `dash` (Debian's `/bin/sh`) for a
session whose directory was planted to break out of its quotes, and must start the
agent in that directory and run nothing else."""

from __future__ import annotations

import asyncio
import json
import re
import shutil
import subprocess
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI
from hypothesis import example, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from test_mcp import call, connect
from test_resume import stand_in
from transcripts import Transcript, project_dir
from web_page import served

from findsession.cli.open_session import shell_word

SID = "5ac30ab5-7777-4222-8333-944445555666"
DASH = shutil.which("dash")
needs_dash = pytest.mark.skipif(DASH is None, reason="dash is not installed (apt-get install dash)")
#: A directory whose name leaves bash's `$'…'` quoting under dash and runs `touch`.
PLANTED = "x\x01';touch ~/pwned;#"


def dash(line: str, cli: CLI) -> subprocess.CompletedProcess:
    assert DASH is not None
    return subprocess.run([DASH, "-c", line], env=cli.env, capture_output=True, text=True)


def planted(cli: CLI, tmp_path: Path, name: str) -> Path:
    """A Claude Code session in a directory called `name`, indexed, and a stand-in
    `claude` on PATH that records how it was started."""
    where = tmp_path / "work" / name
    where.mkdir(parents=True)
    t = Transcript(session_id=SID, cwd=str(where))
    t.prompt("fix the flaky upload retry").reply("Done: the retry now waits between tries.")
    t.write(project_dir(Path(cli.env["CLAUDE_CONFIG_DIR"]) / "projects", str(where)))
    cli.env["FINDSESSION_NO_SERVICE"] = "1"
    cli.run("index", "--no-embed")
    (tmp_path / "home").mkdir(exist_ok=True)
    return where


def ran_only_the_agent(cli: CLI, tmp_path: Path, line: str, where: Path) -> list[str]:
    """Run `line` under dash: the agent ran in `where`, and nothing else ran; its argv."""
    record = tmp_path / "claude-ran.json"
    record.unlink(missing_ok=True)
    done = dash(line, cli)
    pwned = Path(cli.env["HOME"]) / "pwned"
    assert not pwned.exists(), (line, done.stderr)
    assert done.returncode == 7, (line, done.stdout, done.stderr)  # the stand-in's status
    ran = json.loads(record.read_text())
    assert ran["cwd"] == str(where), line
    return ran["argv"]


@needs_dash
def test_a_planted_directory_runs_nothing_from_any_printed_line(cli: CLI, tmp_path: Path) -> None:
    where = planted(cli, tmp_path, PLANTED)
    stand_in(cli, tmp_path, "claude")
    # `open --print`
    line = cli.run("open", SID, "--print").stdout.rstrip("\n")
    assert ran_only_the_agent(cli, tmp_path, line, where) == ["--resume", SID]
    assert "\x01" not in line and "$'" not in line  # safe to print, and no bash-only quoting
    # `handoff --to`: the brief as the agent's first prompt.
    brief = cli.run("handoff", SID, "--no-model").stdout
    start = cli.run("handoff", SID, "--no-model", "--to", "claude").stdout
    assert ran_only_the_agent(cli, tmp_path, start, where) == [brief.rstrip("\n")]
    # The brief's own resume line.
    (resume,) = re.findall(r"```sh\n(.*?)\n```", brief, re.S)
    assert ran_only_the_agent(cli, tmp_path, resume, where) == ["--resume", SID]

    async def mcp() -> dict[str, Any]:
        async with connect(cli, where) as client:
            error, answer = await call(client, "handoff", sessionId=SID, to="claude")
            assert not error, answer
            return answer

    answer = asyncio.run(mcp())
    argv = ran_only_the_agent(cli, tmp_path, answer["start"]["shell"], where)
    assert argv == [answer["markdown"].rstrip("\n")]
    (resume,) = re.findall(r"```sh\n(.*?)\n```", answer["markdown"], re.S)
    assert ran_only_the_agent(cli, tmp_path, resume, where) == ["--resume", SID]
    # The page's resume command.
    with served(cli) as page:
        request = urllib.request.Request(
            f"http://127.0.0.1:{page.port}{page.base}api/session/{SID}",
            headers={"X-Findsession-Token": page.session},
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            shell = json.loads(response.read())["resume"]["shell"]
    assert ran_only_the_agent(cli, tmp_path, shell, where) == ["--resume", SID]


@needs_dash
def test_a_line_feed_in_a_directory_adds_nothing_to_the_brief(cli: CLI, tmp_path: Path) -> None:
    name = "shop\n# Injected heading\n- [click](javascript:alert(1))\n"
    where = planted(cli, tmp_path, name)
    stand_in(cli, tmp_path, "claude")
    brief = cli.run("handoff", SID, "--no-model").stdout
    tokens = MarkdownIt("commonmark").parse(brief)
    headings = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open"]
    assert "Injected heading" not in headings, brief
    assert all(t.type != "link_open" for t in tokens if t.children is None), brief
    assert not any(c.type == "link_open" for t in tokens for c in t.children or []), brief
    (resume,) = re.findall(r"```sh\n(.*?)\n```", brief, re.S)
    assert ran_only_the_agent(cli, tmp_path, resume, where) == ["--resume", SID]
    line = cli.run("open", SID, "--print").stdout.rstrip("\n")
    assert ran_only_the_agent(cli, tmp_path, line, where) == ["--resume", SID]


# Characters a path can hold (no NUL); control characters, quotes and the shell's own
# marks are drawn often.
_TEXT = st.text(
    alphabet=st.one_of(
        st.sampled_from("\x01\x1b\n\t\x7f\x9b\u202e'\"$`\\%-~;#&|()<>*? !"),
        st.characters(blacklist_characters="\x00", blacklist_categories=("Cs",)),
    ),
    max_size=24,
)


@needs_dash
@settings(max_examples=60, deadline=None, derandomize=True)
@given(text=_TEXT)
@example(text=PLANTED)
@example(text="-n\n")
@example(text="\n\n")
@example(text="%s\\x41\\")
def test_a_shell_word_means_its_text_to_dash(text: str) -> None:
    assert DASH is not None
    word = shell_word(text)
    done = subprocess.run([DASH, "-c", f"printf %s {word}"], capture_output=True)
    assert done.returncode == 0, (word, done.stderr)
    assert done.stdout == text.encode(), word
    # Printable as it is: no character a terminal acts on.
    assert not re.search("[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e]", word), word
