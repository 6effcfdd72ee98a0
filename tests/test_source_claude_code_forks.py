"""Claude Code's forks and resumes, through the real CLI: each typed prompt found in the
one session it was typed in, whatever order the files are read in, and each fork with
its own turns only.

Every file was written by the real Claude Code 2.1.197 offline against a scripted
Anthropic Messages server on localhost, in one project (`zebra`), in this order:
`ORIGINAL` by `claude -p` (a `Write`), resumed with `-p --resume` (a shell command that
failed) and `-p --continue` (an `Edit`); `FORK_P` by `-p --resume ORIGINAL
--fork-session`; `ORIGINAL` resumed in the terminal UI (one prompt, appended), then
`/branch` there (`BRANCH`, one prompt); `FORK_UI` by `--resume ORIGINAL --fork-session`
in the terminal UI (one prompt); `LEMUR` by `-p`, its fork `LEMUR_FORK` by `-p --resume
LEMUR --fork-session`, and `LEMUR_FORK`'s fork `TWICE` by `-p --continue
--fork-session`, then `/compact` in `TWICE` in the terminal UI, a prompt, and one more
with `-p --continue`. What Claude Code writes: `--resume` and `--continue` append to
the session's file, as `/compact` does; `--fork-session` writes a new file that begins
with a `mode` record and copies the history with the same `uuid`s, only `sessionId`
changed; `/branch` copies it with the same `uuid`s too, each copied record marked
`forkedFrom: {sessionId, messageUuid}`, then a `custom-title` ("… (Branch)"). Paths
were renamed to /home/dev; nothing else was changed.

Where each prompt was typed is counted without findsession from what Claude Code
records of the typing, never copied by a fork: the `enqueue` `queue-operation` a `-p`
prompt leaves in its session's file, and `history.jsonl` for the terminal UI.
"""

from __future__ import annotations

import json
import os
import shutil
from collections import defaultdict
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI
from fork_checks import assert_found_where_typed, index_in_order, prompts

from findsession.storage.sqlite import Store

FIXTURE = Path(__file__).parent / "fixtures" / "claude-code-forks" / "home" / ".claude"
FOLDER = "projects/-home-dev-zebra"
ORIGINAL = "89797f3e-247f-4d15-be11-0b1d886169da"
FORK_P = "596a220f-575e-4d38-9399-e5f299bf55f8"  # -p --resume ORIGINAL --fork-session
BRANCH = "075acb1c-cf80-4983-8dc3-ea0c786032fb"  # /branch in ORIGINAL
FORK_UI = "00bf21c4-60c3-445f-a367-b5d3fc7f7cd7"  # --resume ORIGINAL --fork-session
LEMUR = "637659c8-d32c-4fdb-abcf-4edd0c424eac"
LEMUR_FORK = "e343b618-b2e3-4675-961b-afd3cf3e4170"  # -p --resume LEMUR --fork-session
TWICE = "aadb9ec2-6380-4bc6-aca4-feaa9d019f0d"  # LEMUR_FORK's fork, compacted
FORKS_FIRST = [FORK_P, BRANCH, FORK_UI, TWICE, LEMUR_FORK, ORIGINAL, LEMUR]


@pytest.fixture
def home(cli: CLI, tmp_path: Path) -> Path:
    place = tmp_path / "home" / ".claude"
    shutil.copytree(FIXTURE, place)
    for path in (place / FOLDER).glob("*.jsonl"):  # when Claude Code last wrote it
        last = max(json.loads(line).get("timestamp", "") for line in path.open())
        stamp = datetime.fromisoformat(last.replace("Z", "+00:00")).timestamp()
        os.utime(path, (stamp, stamp))
    return place


def typed_where(home: Path) -> dict[str, list[str]]:
    """Each session's typed prompts, in order, as Claude Code recorded the typing."""
    typed: list[tuple[float, str, str]] = []
    for path in (home / FOLDER).glob("*.jsonl"):
        for line in path.read_text().splitlines():
            rec = json.loads(line)
            if rec.get("type") == "queue-operation" and rec.get("operation") == "enqueue":
                stamp = datetime.fromisoformat(rec["timestamp"].replace("Z", "+00:00"))
                typed.append((stamp.timestamp(), path.stem, rec["content"]))
    for line in (home / "history.jsonl").read_text().splitlines():
        rec = json.loads(line)
        if not rec["display"].startswith("/"):  # a slash command is no prompt
            typed.append((rec["timestamp"] / 1000, rec["sessionId"], rec["display"]))
    where: dict[str, list[str]] = defaultdict(list)
    for _, sid, text in sorted(typed):
        where[sid].append(text)
    return dict(where)


def index_claude_in_order(cli: CLI, home: Path, order: list[str]) -> dict[str, Any]:
    return index_in_order(cli, "claude-code", [home / FOLDER / f"{sid}.jsonl" for sid in order])


@pytest.mark.parametrize(
    "order", [FORKS_FIRST, FORKS_FIRST[::-1]], ids=["forks first", "originals first"]
)
def test_each_prompt_is_found_in_the_session_it_was_typed_in(
    cli: CLI, home: Path, order: list[str]
) -> None:
    where = typed_where(home)
    assert sum(map(len, where.values())) == 12 and len(where) == 7
    index_claude_in_order(cli, home, order)
    words = (
        "giraffe",
        "okapi",
        "pelican",
        "narwhal",
        "walrus",
        "heron",
        "lemur",
        "ibis",
        "yak",
        "toucan",
        "tapir",
    )
    assert_found_where_typed(cli, "claude-code", where, words, "prompt")
    status = cli.json("status")
    assert status["sessions"] == 7


def test_a_fork_reads_as_its_own_turns_and_resumes_itself(cli: CLI, home: Path) -> None:
    cli.json("index", "--no-embed")
    read = cli.json("read", BRANCH)
    assert read["session"]["title"].endswith("(Branch)")
    assert [m["text"] for t in read["turns"] for m in t["messages"] if m["kind"] == "reply"] == [
        "Reply to: Branch question about the walrus timetable"
    ]
    resume = cli.json("open", FORK_UI)["resume"]
    assert resume["command"] == ["claude", "--resume", FORK_UI]
    assert resume["cwd"] == "/home/dev/zebra"


def test_an_index_a_fork_was_read_into_first_gives_the_session_its_turns_back(
    cli: CLI, home: Path, db_path: Path
) -> None:
    """An index where each fork was read before the session it copies (a run that read
    the forks alone, or an older release's order) held the copied turns as the fork's
    and lost the original; the reading this release gives reads them again."""
    index_claude_in_order(cli, home, [FORK_P, FORK_UI, LEMUR_FORK])
    cli.json("index", "--no-embed")
    assert prompts(cli, FORK_P)[0].startswith("Please create the zebra notes file")
    with Store.open(db_path) as store, store.transaction():
        store.set_setting("reading.claude-code", "4.4")  # the reading before this one

    assert cli.json("index", "--no-embed")["read_anew"] == ["claude-code"]
    for sid, typed in typed_where(home).items():
        assert prompts(cli, sid) == typed, sid
