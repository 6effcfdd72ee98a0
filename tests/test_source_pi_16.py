"""Pi 1.6.0's own session files, through the real CLI.

Every file was written by the real Pi 1.6.0 (npm `@earendil-works/pi-coding-agent`,
the package `@mariozechner/pi-coding-agent` became) offline against a scripted
OpenAI-compatible server on localhost, in one project (`zebra`), paths renamed to
`/home/dev` and nothing else changed (the system prompt is short and kept whole):
`ZEBRA` by `pi -p` and two `pi -p -c` (a `write`, a `bash` command that fails, an
`edit`), then opened in the terminal UI with `--session` (a prompt, a command the person
ran with `!` that failed, `/name`, a `/compact` Pi refused as too small, a prompt);
`HERON` by `pi -p --name` (the name entry is written before anything else), carried on
in the terminal UI with `-c` (a prompt, `/compact` with a tiny `keepRecentTokens`, a
prompt); `YAK` by `pi -p` with `PI_CODING_AGENT_SESSION_DIR` set, which puts the file
straight into that folder (`pi-sessions/` here), no project folder.

New since 0.74: the first request of a session writes a `system` message (the system
prompt's sections and the tools declared); a compaction carries one too
(`systemMessage`). Both are Pi's words, never the person's.

The counts come from the lines themselves, not from the parser: a `user` message is a
typed prompt, an `assistant` message's `text` blocks replies and `toolCall` blocks
calls; a `toolResult` is an output (failed when `isError`), and a `bashExecution` a
call and its output (failed when its `exitCode` is not 0).
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI
from read_counts import indexed

FIXTURE = Path(__file__).parent / "fixtures" / "pi-1.6" / "home"
FOLDER = FIXTURE / ".pi" / "agent" / "sessions" / "--home-dev-zebra--"
ELSEWHERE = FIXTURE / "pi-sessions"
ZEBRA = "01a250e0-6a15-76ca-8f4e-cd043dbcea2c"
HERON = "01a250e3-1ba5-7150-b53e-a54a876ea7ae"
YAK = "01a250e4-a1dd-7754-9d9f-6d7c89431b81"
SYSTEM_PROMPT = "You are a coding assistant running inside pi"


@pytest.fixture
def home(cli: CLI, tmp_path: Path) -> Path:
    """The fixture laid out as the test's home: Pi's standard place, no root named."""
    place = Path(cli.env["HOME"])
    shutil.copytree(FIXTURE, place, dirs_exist_ok=True)
    return place


def file_of(sid: str) -> Path:
    (path,) = [*FOLDER.glob(f"*_{sid}.jsonl"), *ELSEWHERE.glob(f"*_{sid}.jsonl")]
    return path


def expected(path: Path) -> dict[str, Any]:
    counts: Counter[str] = Counter()
    prompts = []
    for line in path.read_text().splitlines():
        entry = json.loads(line)
        if entry["type"] != "message":
            continue
        message = entry["message"]
        role, content = message["role"], message.get("content")
        if role == "user":
            prompts += [b["text"] for b in content if b["type"] == "text"]
        elif role == "assistant":
            counts["replies"] += sum(b["type"] == "text" for b in content)
            counts["calls"] += sum(b["type"] == "toolCall" for b in content)
        elif role == "toolResult":
            counts["results"] += 1
            counts["failed"] += message["isError"] is True
        elif role == "bashExecution":
            counts["calls"] += 1
            counts["results"] += 1
            counts["failed"] += message["exitCode"] != 0
    return {"prompts": prompts, **{k: counts[k] for k in ("replies", "calls", "results", "failed")}}


def test_each_session_gives_what_its_lines_hold(cli: CLI, home: Path) -> None:
    cli.env["PI_CODING_AGENT_SESSION_DIR"] = str(home / "pi-sessions")
    report = cli.json("index", "--no-embed", "--source", "pi")
    assert report["problems"] == []
    totals: Counter[str] = Counter()
    for session in (ZEBRA, HERON, YAK):
        want = expected(file_of(session))
        assert indexed(cli, session) == want, session
        totals.update({k: len(v) if k == "prompts" else v for k, v in want.items()})
    assert totals == Counter(prompts=9, replies=12, calls=4, results=4, failed=2)


def test_titles_folders_and_the_system_prompt(cli: CLI, home: Path) -> None:
    cli.json("index", "--no-embed", "--source", "pi")
    for session, title in ((ZEBRA, "Zebra and pelican notes"), (HERON, "Heron study")):
        read = cli.json("read", session, "--tools")
        assert (read["session"]["title"], read["session"]["cwd"]) == (title, "/home/dev/zebra")
        texts = [m["text"] for t in read["turns"] for m in t["messages"]]
        assert all(SYSTEM_PROMPT not in text for text in texts)
    hits = cli.json("search", "--mode", "keyword", "--source", "pi", "harness")
    assert hits["results"] == []


def test_the_session_folder_pi_is_told_of_is_a_standard_place(cli: CLI, home: Path) -> None:
    """`PI_CODING_AGENT_SESSION_DIR` (Pi 0.71 on, as `--session-dir` and the `sessionDir`
    setting) moves the sessions out of the agent folder."""
    cli.json("index", "--no-embed", "--source", "pi")
    assert cli.run("read", YAK, check=False).returncode != 0
    cli.env["PI_CODING_AGENT_SESSION_DIR"] = str(home / "pi-sessions")
    cli.json("index", "--no-embed", "--source", "pi")
    assert indexed(cli, YAK)["prompts"] == ["One yak question"]


def test_the_session_dir_setting_is_a_standard_place(cli: CLI, home: Path) -> None:
    settings = home / ".pi" / "agent" / "settings.json"
    settings.write_text(json.dumps({"sessionDir": "~/pi-sessions"}))
    cli.json("index", "--no-embed", "--source", "pi")
    assert indexed(cli, YAK)["prompts"] == ["One yak question"]
    assert len(indexed(cli, ZEBRA)["prompts"]) == 5


def test_blame_finds_the_write_and_the_edit(cli: CLI, home: Path) -> None:
    cli.json("index", "--no-embed", "--source", "pi")
    writers = cli.json("blame", "/home/dev/zebra/zebra.md")["writers"]
    assert [(w["session"]["id"], w["tool"], w["turn"]) for w in writers] == [
        (ZEBRA, "edit", 3),
        (ZEBRA, "write", 1),
    ]
