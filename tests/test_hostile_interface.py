"""Hostile input at the interfaces: out-of-range options, empty queries, turn 0, raw
column filters, and terminal escape sequences inside transcripts.

Every refusal is one line that says what to do, with a non-zero exit (CLI) or a tool
error carrying that line (MCP), never a traceback or a bare "Error executing tool".
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import CLI
from transcripts import Transcript, project_dir

HOSTILE = "6b7c8d9e-2222-4333-8444-955556666777"

# -- terminal control sequences inside transcripts ----------------------------------------

#: What a hostile or merely colourful transcript can hold: a screen clear, a window
#: title (OSC 0, ended by BEL), a hyperlink (OSC 8, ended by ST), an 8-bit CSI, a bare
#: BEL, a carriage return that would overwrite the line, DEL and a bidi override.
CLEAR = "\x1b[2J\x1b[H"
TITLE = "\x1b]0;pwned\x07"
LINK = "\x1b]8;;https://evil.example/\x1b\\click here\x1b]8;;\x1b\\"
C1 = "\x9b31m"
NASTY = f"{CLEAR}{TITLE}{LINK}{C1} bell\x07 over\rwrite del\x7f bidi\u202eelif.exe"
CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


@pytest.fixture
def hostile(cli: CLI, tmp_path: Path) -> Path:
    root = Path(cli.env["CLAUDE_CONFIG_DIR"]) / "projects"
    cwd = str(tmp_path / f"proj{CLEAR}")
    t = Transcript(session_id=HOSTILE, cwd=cwd)
    t.prompt(f"flamingo prompt {NASTY} tail")
    t.reply(f"flamingo reply {NASTY} tail")
    t.tool(f"Ba{CLEAR}sh", {"command": f"echo {NASTY}"}, f"flamingo output {NASTY} tail")
    t.reply({"type": "thinking", "thinking": f"flamingo thought {NASTY}"})
    t.title(f"flamingo {TITLE}title{CLEAR}")
    t.raw(f"{{not json {NASTY}")
    return t.write(project_dir(root, cwd))


def assert_clean(text: str) -> None:
    found = CONTROLS.findall(text)
    assert not found, f"control characters reached the terminal: {found!r}"


def test_control_sequences_never_reach_the_terminal(cli: CLI, hostile: Path) -> None:
    index = cli.run("index", "-v", "--no-embed")
    assert_clean(index.stderr)
    for args in (
        ("search", "flamingo", "--explain"),
        ("search", "flamingo", "--speaker", "assistant"),
        ("search", "--raw", "flamingo"),
        ("read", HOSTILE, "--tools"),
        ("read", HOSTILE, "--tools", "--raw"),
        ("read", HOSTILE, "--turn", "1"),
        ("status",),
    ):
        proc = cli.run(*args)
        assert_clean(proc.stdout)
        assert_clean(proc.stderr)
    shown = cli.run("read", HOSTILE, "--tools").stdout
    # The text around the sequences is kept; the link's text stays, its target goes.
    assert "flamingo prompt" in shown and "click here" in shown and "tail" in shown
    assert "evil.example" not in shown and "pwned" not in shown
    hit = cli.run("search", "flamingo").stdout
    assert "flamingo" in hit and "click here" in hit


def test_json_keeps_the_text_with_every_control_character_escaped(cli: CLI, hostile: Path) -> None:
    cli.run("index", "--no-embed")
    for args in (("search", "flamingo"), ("read", HOSTILE, "--tools", "--raw"), ("status",)):
        proc = cli.run(args[0], "--json", *args[1:])
        assert_clean(proc.stdout)  # escaped as \u001b, \u009b, \u202e: safe in a terminal
        data = json.loads(proc.stdout)
        if args[0] == "read":
            prompt = data["turns"][0]["messages"][0]["text"]
            assert NASTY in prompt  # the transcript's own text, unchanged
        if args[0] == "search":
            assert "\x1b" in data["results"][0]["session"]["title"]
