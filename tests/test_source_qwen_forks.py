"""Qwen Code's `/branch` copies, through the real CLI: each typed prompt found in the one
session it was typed in, whatever order the files are read in, and the session a branch
was made from keeps all its turns.

Every file was written by the real Qwen Code 0.15.10 offline against a scripted
OpenAI-compatible server on localhost, in one project (`zebra`), in this order:
`ORIGINAL` by `qwen -p` (a `write_file`), resumed with `-p --resume` (a shell command
that failed) and `-p --continue` (an `edit` refused: the file was not read first); then
in the terminal UI with `--resume ORIGINAL` (one prompt), `/branch` there (`BRANCH`, one
prompt); `ORIGINAL` resumed in the terminal UI again (one prompt); `BRANCH` resumed with
`-p --resume` (one prompt), then in the terminal UI, where `/branch ibis plan` made
`TWICE` (one prompt). What Qwen Code writes: `--resume` and `--continue` append to the
session's file; `/branch` (also `/fork`) writes a new file that copies every record of
the session with the same `uuid`s, `sessionId` changed, `parentUuid` made one chain, each
marked `forkedFrom: {sessionId, messageUuid}`, then its own `custom_title` ("… (Branch)",
or the name given and "(Branch)"). Paths were renamed to /home/dev; nothing else was changed.

Where each prompt was typed is counted without findsession from what Qwen Code records:
a `user` record it did not copy (no `forkedFrom`), and, for the terminal UI's prompts,
`logs.json`, which names the session each typed line went to.
"""

from __future__ import annotations

import json
import shutil
from collections import defaultdict
from pathlib import Path

import pytest
from conftest import CLI
from fork_checks import assert_found_where_typed, index_in_order, prompts

from findsession.storage.sqlite import Store

FIXTURE = Path(__file__).parent / "fixtures" / "qwen-forks" / "home" / ".qwen"
CHATS = "projects/-home-dev-zebra/chats"
ORIGINAL = "ac5a69a7-a52b-4a1c-beb0-1d8b34e914f6"
BRANCH = "03f09220-c4ab-4f78-a4be-75662c6782d1"  # /branch in ORIGINAL
TWICE = "2d37da25-0104-4506-b157-a70cad184ebf"  # /branch ibis plan in BRANCH
BRANCHES_FIRST = [TWICE, BRANCH, ORIGINAL]


@pytest.fixture
def home(cli: CLI, tmp_path: Path) -> Path:
    place = tmp_path / "home" / ".qwen"
    shutil.copytree(FIXTURE, place)
    return place


def typed_where(home: Path) -> dict[str, list[str]]:
    """Each session's typed prompts, in order, as Qwen Code recorded them."""
    where: dict[str, list[str]] = defaultdict(list)
    for path in (home / CHATS).glob("*.jsonl"):
        for line in path.read_text().splitlines():
            rec = json.loads(line)
            if rec["type"] == "user" and "subtype" not in rec and "forkedFrom" not in rec:
                where[path.stem].append(rec["message"]["parts"][0]["text"])
    (logs,) = (home / "tmp").glob("*/logs.json")
    for entry in json.loads(logs.read_text()):
        if not entry["message"].startswith("/"):  # a slash command is no prompt
            assert entry["message"] in where[entry["sessionId"]], entry
    return dict(where)


@pytest.mark.parametrize(
    "order", [BRANCHES_FIRST, BRANCHES_FIRST[::-1]], ids=["branches first", "originals first"]
)
def test_each_prompt_is_found_in_the_session_it_was_typed_in(
    cli: CLI, home: Path, order: list[str]
) -> None:
    where = typed_where(home)
    assert {sid: len(typed) for sid, typed in where.items()} == {
        ORIGINAL: 5,
        BRANCH: 2,
        TWICE: 1,
    }
    index_in_order(cli, "qwen", [home / CHATS / f"{sid}.jsonl" for sid in order])
    words = ("giraffe", "okapi", "pelican", "narwhal", "walrus", "heron", "lemur")
    assert_found_where_typed(cli, "qwen", where, words, None)
    assert cli.json("status")["sessions"] == 3


def test_a_branch_reads_as_its_own_turns_and_title(cli: CLI, home: Path) -> None:
    cli.json("index", "--no-embed")
    read = cli.json("read", BRANCH)
    assert read["session"]["title"] == "Please create the zebra notes file (Branch)"
    assert [m["text"] for t in read["turns"] for m in t["messages"] if m["kind"] == "reply"] == [
        "Reply to: walrus question answered.",
        "Reply to: heron question answered.",
    ]
    assert read["session"]["cwd"] == "/home/dev/zebra"
    assert cli.json("read", TWICE)["session"]["title"] == "ibis plan (Branch)"
    original = cli.json("read", ORIGINAL, "--tools")["turns"]
    calls = [m["tool"] for t in original for m in t["messages"] if m["kind"] == "tool_call"]
    assert calls == ["write_file", "run_shell_command", "edit"]
    failed = [m["text"] for t in original for m in t["messages"] if m["is_error"]]
    assert len(failed) == 1 and "has not been read" in failed[0]  # the refused edit
    resume = cli.json("open", TWICE)["resume"]
    assert resume["command"] == ["qwen", "--resume", TWICE]
    assert resume["cwd"] == "/home/dev/zebra"


def test_an_index_read_before_branches_were_told_reads_them_again(
    cli: CLI, home: Path, db_path: Path
) -> None:
    """An index whose Qwen Code files were read by the reading before this one held each
    branch's copy of its session's turns as the branch's; this reading reads them again."""
    cli.json("index", "--no-embed")
    with Store.open(db_path) as store, store.transaction():
        store.set_setting("reading.qwen", "4.2")  # the reading before this one

    assert cli.json("index", "--no-embed")["read_anew"] == ["qwen"]
    for sid, typed in typed_where(home).items():
        assert prompts(cli, sid) == typed, sid
