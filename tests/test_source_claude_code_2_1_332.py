"""A session the real Claude Code 2.1.332 wrote, read through the real CLI.

The files (`fixtures/claude-code-2.1.332/home/.claude`) were written offline against a
scripted Anthropic Messages server on localhost, in one project (`greet`): `claude -p` (a
`Write`), then `-p --resume` six times (an `Edit`, a `Bash` command that failed, an
`Agent` call whose subagent ran in the background and whose notice came back as a
`<task-notification>`, a plain question, `/compact`, a question after it), then
`--resume` in the terminal UI: a prompt whose tool ran for 8 seconds while more words
were typed (kept as a `queued_command`), `/rename`, and one more prompt; then `-p
--resume --fork-session` of it (`FORK`, one prompt). Paths were
renamed to /home/dev; the harness text 2.1.332 keeps in its own records was cut where
a string of it passed 1,500 characters (`[cut for the fixture: harness text]`), and
the tools a `prompt_snapshot` lists keep only their names; nothing else was changed.

2.1.332 writes many lines earlier versions did not: `api-request`, `api-request-shape`
and `api-request-blob` (what was sent to the model, the harness's text and copies of the
conversation's messages among it), `prompt_snapshot`, `session_context`,
`remote_session_change` and `deferred_tools_record` attachments, `cost-state`,
`tools-used`, `atis-latch`, `permission-mode`; and `rowSource`, `turnOrigin`,
`turnPosition` and `sentAtMs` on the user records. None of them holds words a person
typed or the model answered that the `user` and `assistant` records do not: they are
not read. The counts below are made from the raw lines, without findsession: what was
typed from Claude Code's own record of the typing (the `enqueue` `queue-operation` of a
`-p` prompt and `history.jsonl` for the terminal UI), words absorbed into a running turn
from the `remove` that says so.
"""

from __future__ import annotations

import json
import shutil
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI
from fork_checks import index_in_order, prompts

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "claude-code-2.1.332" / "home"
FOLDER = "projects/-home-dev-greet"
SID = "58b4f31e-1617-4624-9476-326d65c84242"
AGENT = "agent-a8f117b832190631a"
FORK = "a8d0c8d6-ca41-45de-a295-038f61e8f8cd"  # -p --resume SID --fork-session


@pytest.fixture
def home(cli: CLI, tmp_path: Path) -> Path:
    shutil.copytree(FIXTURE, tmp_path / "home", dirs_exist_ok=True)
    return tmp_path / "home" / ".claude"


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def typed() -> tuple[list[str], list[str]]:
    """What was typed into the session, in order (slash commands aside), and which of it
    was absorbed into a running turn."""
    seen: list[tuple[str, str]] = []
    absorbed: list[str] = []
    for rec in lines(FIXTURE / ".claude" / FOLDER / f"{SID}.jsonl"):
        queued = rec["type"] == "queue-operation" and rec["operation"] == "enqueue"
        if queued and not rec["content"].startswith("<task-notification>"):  # the harness's
            seen.append((rec["timestamp"], rec["content"]))
        if rec["type"] == "queue-operation" and rec.get("reason") == "absorbed_mid_turn":
            absorbed.append(rec["content"])
    for rec in lines(FIXTURE / ".claude" / "history.jsonl"):
        seen.append((str(rec["timestamp"]), rec["display"]))
    texts: list[str] = []
    seen = [(at, text) for at, text in seen if _instant(at) < _instant(_forked_at())]
    for _, text in sorted(seen, key=lambda s: _instant(s[0])):
        if not text.startswith("/") and text not in texts:
            texts.append(text)
    return texts, absorbed


def _forked_at() -> str:
    """When the fork's prompt was typed (its `enqueue`), after every word of `SID`."""
    return next(
        rec["timestamp"]
        for rec in lines(FIXTURE / ".claude" / FOLDER / f"{FORK}.jsonl")
        if rec["type"] == "queue-operation" and rec["operation"] == "enqueue"
    )


def _instant(stamp: str) -> float:
    if stamp.isdigit():
        return int(stamp) / 1000
    return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()


def blocks(path: Path) -> dict[str, int]:
    """Replies, tool calls, tool results and failed results in a transcript's records."""
    count = {"replies": 0, "calls": 0, "results": 0, "failed": 0}
    for rec in lines(path):
        said = rec["type"] in ("user", "assistant")
        content = rec["message"]["content"] if said else None
        for b in content if isinstance(content, list) else []:
            if rec["type"] == "assistant" and b["type"] == "text" and b["text"].strip():
                count["replies"] += 1
            elif b["type"] == "tool_use":
                count["calls"] += 1
            elif b["type"] == "tool_result":
                count["results"] += 1
                count["failed"] += b.get("is_error") is True
    return count


def test_the_raw_count() -> None:
    words, absorbed = typed()
    assert len(words) == 9 and absorbed == ["also mention the foghorn schedule"]
    main = blocks(FIXTURE / ".claude" / FOLDER / f"{SID}.jsonl")
    assert main == {"replies": 10, "calls": 5, "results": 5, "failed": 1}
    assert blocks(FIXTURE / ".claude" / FOLDER / SID / "subagents" / f"{AGENT}.jsonl") == {
        "replies": 1, "calls": 0, "results": 0, "failed": 0}  # fmt: skip


def test_what_2_1_332_wrote_reads_as_the_raw_count(cli: CLI, home: Path) -> None:
    cli.json("index", "--no-embed")
    read = cli.json("read", SID, "--tools")
    messages = [m for t in read["turns"] for m in t["messages"]]
    words, absorbed = typed()
    said = [m["text"] for m in messages if m["kind"] == "prompt"]
    assert said == words
    assert [m["text"] for m in messages if m["kind"] == "prompt" and m["steers"]] == absorbed
    assert read["total_turns"] == len(words) - len(absorbed)
    main = blocks(FIXTURE / ".claude" / FOLDER / f"{SID}.jsonl")
    assert sum(m["kind"] == "reply" for m in messages) == main["replies"]
    assert sum(m["kind"] == "tool_call" for m in messages) == main["calls"]
    outputs = [m for m in messages if m["kind"] == "tool_output"]
    assert (len(outputs), sum(m["is_error"] for m in outputs)) == (main["results"], main["failed"])
    assert read["session"]["title"] == "lighthouse greeter work"  # /rename
    assert read["session"]["cwd"] == "/home/dev/greet"

    agent = cli.json("read", AGENT)
    assert agent["session"]["parent_id"] == SID
    assert agent["session"]["agent_type"] == "general-purpose"
    assert [m["kind"] for t in agent["turns"] for m in t["messages"]] == ["prompt", "reply"]


def test_the_harness_text_of_its_new_records_is_not_found(cli: CLI, home: Path) -> None:
    """Words held only by the new records (the attribution lines of the
    `remote_session_change` attachment, the deferred tools' names of a
    `deferred_tools_delta`, both copied into `api-request-blob`s) find nothing: they are
    the harness's, neither typed nor answered."""
    raw = (FIXTURE / ".claude" / FOLDER / f"{SID}.jsonl").read_text()
    cli.json("index", "--no-embed")
    for words in ("Co-Authored-By", "CronCreate"):
        assert raw.count(words) >= 2
        assert cli.json("search", "--mode", "keyword", words)["results"] == [], words


@pytest.mark.parametrize("fork_first", [True, False], ids=["fork first", "original first"])
def test_a_fork_of_a_renamed_session_keeps_its_own_turns_whichever_is_read_first(
    cli: CLI, home: Path, fork_first: bool
) -> None:
    """2.1.332's `--fork-session` of a session that has a title writes the title first
    (`custom-title`, `agent-name`), then the `mode` line, then the copied history with
    the same `uuid`s: it is a fork all the same, read after the session it copies, so
    the copied turns stay that session's."""
    head = [rec["type"] for rec in lines(FIXTURE / ".claude" / FOLDER / f"{FORK}.jsonl")[:3]]
    assert head == ["custom-title", "agent-name", "mode"]
    files = [home / FOLDER / f"{sid}.jsonl" for sid in (FORK, SID)]
    index_in_order(cli, "claude-code", files if fork_first else files[::-1])
    assert prompts(cli, SID) == typed()[0]
    assert prompts(cli, FORK) == ["A forked question about the puffin colony"]
