"""Pi's forks, through the real CLI: each typed prompt found in the one session it was
typed in, whatever order the files are read in, and the session a fork was made from
keeps all its turns.

Every file was written by the real Pi 0.73.1 offline against a scripted
OpenAI-compatible server on localhost, in one project (`zebra`), in this order:
`ORIGINAL` by `pi -p` (a `write`), carried on with `-p -c` twice (a `bash` command that
failed, an `edit`); `FORK_CLI` by `pi --fork <ORIGINAL's id> -p` (one prompt); `ORIGINAL`
opened in the terminal UI with `--session` (one prompt), then `/fork` there on its last
prompt, the prompt it put back in the editor cleared and another typed (`FORK_UI`);
`FORK_UI` opened again, `/clone` (`CLONE`, one prompt); `ORIGINAL` carried on with
`-p --session` (one prompt). What Pi writes: `-c` and `--session` append to the session's
file; `--fork` writes a new file whose header names the original's file
(`parentSession`) and copies every entry after it unchanged (`id`, `parentId`,
`timestamp`); `/fork` and `/clone` do the same with the entries from the root to the
chosen one. Paths were renamed to /home/dev; nothing else was changed.

Where each prompt was typed is counted without findsession from the times Pi records: a
user message written in a file after its header (a copy keeps the time it was first
written, before the fork's header).
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

FIXTURE = Path(__file__).parent / "fixtures" / "pi-forks" / "home" / ".pi"
FOLDER = "agent/sessions/--home-dev-zebra--"
ORIGINAL = "01a24f1f-8c6d-74a2-99e1-13b39e42ccfc"
FORK_CLI = "01a24f1f-be30-7587-88cc-771e0280fbc4"  # pi --fork ORIGINAL
FORK_UI = "01a24f20-3d5b-7647-9828-9ad667e89094"  # /fork in ORIGINAL
CLONE = "01a24f20-d453-75c3-b336-65e7153c9fcf"  # /clone in FORK_UI
FORKS_FIRST = [CLONE, FORK_UI, FORK_CLI, ORIGINAL]


@pytest.fixture
def home(cli: CLI, tmp_path: Path) -> Path:
    place = tmp_path / "home" / ".pi"
    shutil.copytree(FIXTURE, place)
    return place


def file_of(home: Path, sid: str) -> Path:
    (path,) = (home / FOLDER).glob(f"*_{sid}.jsonl")
    return path


def typed_where(home: Path) -> dict[str, list[str]]:
    """Each session's typed prompts, in order: its user messages written after its header."""
    where: dict[str, list[str]] = defaultdict(list)
    for path in (home / FOLDER).glob("*.jsonl"):
        header, *entries = map(json.loads, path.read_text().splitlines())
        for entry in entries:
            message = entry.get("message") or {}
            if message.get("role") == "user" and entry["timestamp"] > header["timestamp"]:
                where[header["id"]].append(message["content"][0]["text"])
    return dict(where)


def test_a_fork_names_the_file_it_copied() -> None:
    parents = {}
    for path in (FIXTURE / FOLDER).glob("*.jsonl"):
        header = json.loads(path.read_text().splitlines()[0])
        parents[header["id"]] = Path(header.get("parentSession", "")).stem.split("_")[-1]
    assert parents == {ORIGINAL: "", FORK_CLI: ORIGINAL, FORK_UI: ORIGINAL, CLONE: FORK_UI}


@pytest.mark.parametrize(
    "order", [FORKS_FIRST, FORKS_FIRST[::-1]], ids=["forks first", "originals first"]
)
def test_each_prompt_is_found_in_the_session_it_was_typed_in(
    cli: CLI, home: Path, order: list[str]
) -> None:
    where = typed_where(home)
    assert {sid: len(typed) for sid, typed in where.items()} == {
        ORIGINAL: 5,
        FORK_CLI: 1,
        FORK_UI: 1,
        CLONE: 1,
    }
    index_in_order(cli, "pi", [file_of(home, sid) for sid in order])
    words = ("zebra", "giraffe", "okapi", "pelican", "narwhal", "heron", "walrus", "lemur")
    assert_found_where_typed(cli, "pi", where, words, None)
    assert cli.json("status")["sessions"] == 4


def test_the_original_keeps_its_calls_and_a_fork_resumes_itself(cli: CLI, home: Path) -> None:
    cli.json("index", "--no-embed")
    original = cli.json("read", ORIGINAL, "--tools")["turns"]
    calls = [m["tool"] for t in original for m in t["messages"] if m["kind"] == "tool_call"]
    assert calls == ["write", "bash", "edit"]
    failed = [m["text"] for t in original for m in t["messages"] if m["is_error"]]
    assert len(failed) == 1 and "giraffe-missing.txt" in failed[0]
    clone = cli.json("read", CLONE, "--tools")["turns"]
    assert [m["text"] for t in clone for m in t["messages"] if m["kind"] == "reply"] == [
        "Reply to: lemur question answered."
    ]
    resume = cli.json("open", CLONE)["resume"]
    assert resume["command"] == ["pi", "--session", str(file_of(home, CLONE))]
    assert resume["cwd"] == "/home/dev/zebra"


def test_an_index_a_fork_was_read_into_first_gives_the_session_its_turns_back(
    cli: CLI, home: Path, db_path: Path
) -> None:
    """An index that read the forks before the session they copy (a run over the forks
    alone, or an older release) held the copied turns as the forks'; the reading this
    release gives reads them again."""
    index_in_order(cli, "pi", [file_of(home, sid) for sid in FORKS_FIRST[:-1]])
    cli.json("index", "--no-embed")
    with Store.open(db_path) as store, store.transaction():
        store.set_setting("reading.pi", "4.2")  # the reading before this one

    assert cli.json("index", "--no-embed")["read_anew"] == ["pi"]
    for sid, typed in typed_where(home).items():
        assert prompts(cli, sid) == typed, sid
