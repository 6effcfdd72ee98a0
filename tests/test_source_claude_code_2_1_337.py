"""A session the real Claude Code 2.1.337 named before its first prompt, and its forks,
read through the real CLI.

The files (`fixtures/claude-code-2.1.337/home/.claude`) were written offline against a
scripted Anthropic Messages server on localhost, in one project (`greet2`): in the
terminal UI `/rename` before any prompt, then one prompt (`ORIGINAL`); `-p --resume
ORIGINAL --fork-session` with one prompt (`PRINTED_FORK`); `-p --resume ORIGINAL` with
one more prompt; then `--resume ORIGINAL --fork-session` in the terminal UI with one
prompt (`TYPED_FORK`). In a second project (`greet3`), `claude -n` in the terminal UI
with one prompt whose `Edit` ran (`NAMED`), `-p --resume NAMED --fork-session` with one
prompt (`NAMED_FORK`), then `-p --resume NAMED` with one more. Paths were renamed to
/home/dev; the harness text of Claude Code's own records was cut where a string of it
passed 1,500 characters (`[cut for the fixture: harness text]`), the tools a
`prompt_snapshot` lists keep only their names; nothing else was changed.

A session named before its first prompt (`/rename`, or `-n` in the terminal UI) begins
as a `--fork-session` of a named session does: its title lines (`custom-title`,
`agent-name`), then `mode`, and the history (which a fork copies with the same `uuid`s). What
tells them apart is the copy: Claude Code stamps every user record a fork copies with
the `promptId` of the prompt the fork was made for, where in the session's own records
each typed prompt has its own (its tool results share it). The counts below come from
Claude Code's own record of the typing (`history.jsonl` for the terminal UI, the
`enqueue` `queue-operation` of a `-p` prompt), without findsession.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI
from fork_checks import index_in_order, prompts

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "claude-code-2.1.337" / "home"
FOLDER = "projects/-home-dev-greet2"
ORIGINAL = "39e43d70-0668-4359-9057-bee5a2321657"
PRINTED_FORK = "b3beab08-f30f-4872-86ff-9ad1448d28bb"  # -p --resume ORIGINAL --fork-session
TYPED_FORK = "a9868835-2a30-406b-a8a1-323c5d053764"  # --resume ORIGINAL --fork-session
NAMED_FOLDER = "projects/-home-dev-greet3"
NAMED = "cee50f06-0afd-47cc-a210-5e00c33a0614"  # claude -n "gannet census"
NAMED_FORK = "1312870e-e366-44ae-99ae-5044cf932070"  # -p --resume NAMED --fork-session
SESSIONS = (ORIGINAL, PRINTED_FORK, TYPED_FORK)


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def typed(sid: str, folder: str = FOLDER) -> list[str]:
    """What was typed into `sid` itself, in order, slash commands aside."""
    seen = [
        (rec["timestamp"], rec["display"])
        for rec in lines(FIXTURE / ".claude" / "history.jsonl")
        if rec["sessionId"] == sid
    ]
    seen += [
        (_millis(rec["timestamp"]), rec["content"])
        for rec in lines(FIXTURE / ".claude" / folder / f"{sid}.jsonl")
        if rec["type"] == "queue-operation" and rec["operation"] == "enqueue"
    ]
    return [text for _, text in sorted(seen) if not text.startswith("/")]


def _millis(stamp: str) -> int:
    from datetime import datetime

    return int(datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp() * 1000)


@pytest.fixture
def home(cli: CLI, tmp_path: Path) -> Path:
    shutil.copytree(FIXTURE, tmp_path / "home", dirs_exist_ok=True)
    return tmp_path / "home" / ".claude"


def test_the_raw_count() -> None:
    assert typed(ORIGINAL) == [
        "What time is high tide at the lighthouse?",
        "Back in the original: what about the gulls?",
    ]
    assert typed(PRINTED_FORK) == ["A fork question about the seals"]
    assert typed(TYPED_FORK) == ["An interactive fork about the cormorants"]
    assert typed(NAMED, NAMED_FOLDER) == [
        "Edit hello.py to greet the gannets",
        "Back in the named original: how many gannets?",
    ]
    assert typed(NAMED_FORK, NAMED_FOLDER) == ["A fork question about the gannet nests"]
    files = [FIXTURE / ".claude" / FOLDER / f"{sid}.jsonl" for sid in SESSIONS]
    files += [FIXTURE / ".claude" / NAMED_FOLDER / f"{sid}.jsonl" for sid in (NAMED, NAMED_FORK)]
    heads = {path: [rec["type"] for rec in lines(path)[:3]] for path in files}
    assert set(map(tuple, heads.values())) == {("custom-title", "agent-name", "mode")}


@pytest.mark.parametrize("original_last", [True, False], ids=["original last", "forks last"])
def test_a_session_named_before_its_first_prompt_keeps_its_turns_beside_its_forks(
    cli: CLI, home: Path, original_last: bool
) -> None:
    """Read in one run, whichever was written last: each keeps what was typed in it.
    The session was resumed after its first fork was made, so it was written after it;
    taken for a fork, it was read after that fork, which kept its first turn."""
    files = {sid: home / FOLDER / f"{sid}.jsonl" for sid in SESSIONS}
    order = [PRINTED_FORK, TYPED_FORK, ORIGINAL] if original_last else list(SESSIONS)
    for age, sid in enumerate(order):
        os.utime(files[sid], (1_800_000_000 + age * 60,) * 2)
    index_in_order(cli, "claude-code", [files[sid] for sid in SESSIONS])
    for sid in SESSIONS:
        assert prompts(cli, sid) == typed(sid), sid
    assert cli.json("read", ORIGINAL)["session"]["title"] == "tide tables before any prompt"


@pytest.mark.parametrize("original_last", [True, False], ids=["original last", "fork last"])
def test_a_session_named_as_it_started_keeps_its_turns_beside_its_fork(
    cli: CLI, home: Path, original_last: bool
) -> None:
    """`claude -n NAME`'s session: its first prompt and that prompt's tool result share
    one `promptId`, as a fork's copied records do; its prompts do not."""
    files = {sid: home / NAMED_FOLDER / f"{sid}.jsonl" for sid in (NAMED, NAMED_FORK)}
    order = [NAMED_FORK, NAMED] if original_last else [NAMED, NAMED_FORK]
    for age, sid in enumerate(order):
        os.utime(files[sid], (1_800_000_000 + age * 60,) * 2)
    index_in_order(cli, "claude-code", list(files.values()))
    for sid in files:
        assert prompts(cli, sid) == typed(sid, NAMED_FOLDER), sid
    assert cli.json("read", NAMED)["session"]["title"] == "gannet census"
