"""Mistral Vibe's resumes and branches, through the real CLI: each typed prompt found in
the one session it was typed in, whatever order the files are read in.

Every file was written by the real Vibe offline against a scripted OpenAI-compatible
server on localhost, in one project (`zebra`). Vibe 2.2.1 (2.x folders): `ORIGINAL` by
`vibe -p` (a `write_file`); `vibe -c -p` (a `bash` command that failed) wrote
`CONTINUED`, `vibe --resume ORIGINAL -p` wrote `RESUMED`, and `vibe --resume CONTINUED
-p` wrote `AGAIN`: in 2.2 a resume starts a new session (a new id and folder) whose first
save writes the whole conversation so far, each message's `message_id` kept (a tool
result has none: it names its call), then the new turn; nothing names the session it
came from. Vibe 2.26.1 (stores under `unified/`): `ROOT` by `vibe -p`, carried on with
`vibe -c -p` (the same store), then in the terminal UI one prompt, `/branch` (which
makes `BRANCH` and stays in `ROOT`), another prompt; `BRANCH` carried on with `vibe
--resume BRANCH -p`. `/branch` writes a store whose identity is `kind: fork` with its
`parent_session_id`, holding the history copied as entries numbered `imported-<n>`,
all with the time of the branch, a copied prompt's source `harness`. Paths were renamed
to /home/dev and the user name to `dev`; nothing else was changed.

Where each prompt was typed is counted without findsession from what Vibe records: in
a 2.x folder, a user message whose `message_id` no folder that began earlier holds; in
a store, a user entry whose source is `turn_start`.
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

FIXTURE = Path(__file__).parent / "fixtures" / "vibe-forks" / "home" / ".vibe"
SESSIONS = "logs/session"
ORIGINAL = "0b985691-210f-4f6d-a4b0-b695117de09b"
CONTINUED = "ded992bd-e4e4-4816-9556-d5d12702f203"  # vibe -c: ORIGINAL's copy, one more
RESUMED = "31c03e38-761e-467a-8d8e-d7d94bf7a064"  # vibe --resume ORIGINAL
AGAIN = "5177a8e5-6291-485e-b391-d772a0279a7c"  # vibe --resume CONTINUED
ROOT = "c979c846-4cc7-d491-58e1-7601355e8c2e"  # 2.26
BRANCH = "c9421bca-e124-d128-ff54-9b2dff1a8c6e"  # /branch in ROOT
COPIES_FIRST = [AGAIN, RESUMED, CONTINUED, ORIGINAL, BRANCH, ROOT]


@pytest.fixture
def home(cli: CLI, tmp_path: Path) -> Path:
    place = tmp_path / "home" / ".vibe"
    shutil.copytree(FIXTURE, place)
    return place


def file_of(home: Path, sid: str) -> Path:
    store = home / SESSIONS / "unified" / sid / "CURRENT"
    if store.exists():
        return store
    (folder,) = (home / SESSIONS).glob(f"session_*_{sid[:8]}")
    return folder / "messages.jsonl"


def store_entries(store: Path) -> list[dict]:
    generation = json.loads((store / "CURRENT").read_text())["generation"]
    manifest = json.loads((store / "generations" / generation / "manifest.json").read_text())
    chunks = manifest["projection_state"]["chunks"]
    return [e for c in chunks for e in json.loads((store / "chunks" / f"{c}.json").read_text())]


def typed_where(home: Path) -> dict[str, list[str]]:
    """Each session's typed prompts, in order, as Vibe recorded them."""
    where: dict[str, list[str]] = defaultdict(list)
    seen: set[str] = set()
    folders = sorted(
        (json.loads((f / "meta.json").read_text())["start_time"], f)
        for f in (home / SESSIONS).glob("session_*")
    )
    for _, folder in folders:
        sid = json.loads((folder / "meta.json").read_text())["session_id"]
        for line in (folder / "messages.jsonl").read_text().splitlines():
            msg = json.loads(line)
            if msg["role"] == "user" and msg["message_id"] not in seen:
                where[sid].append(msg["content"])
            seen.add(msg.get("message_id"))
    for store in (home / SESSIONS / "unified").iterdir():
        for entry in store_entries(store):
            if entry.get("role") == "user" and entry.get("source") == "turn_start":
                where[store.name].append(entry["content"][0]["text"])
    return dict(where)


@pytest.mark.parametrize(
    "order", [COPIES_FIRST, COPIES_FIRST[::-1]], ids=["copies first", "originals first"]
)
def test_each_prompt_is_found_in_the_session_it_was_typed_in(
    cli: CLI, home: Path, order: list[str]
) -> None:
    where = typed_where(home)
    assert {sid: len(typed) for sid, typed in where.items()} == {
        ORIGINAL: 1,
        CONTINUED: 1,
        RESUMED: 1,
        AGAIN: 1,
        ROOT: 4,
        BRANCH: 1,
    }
    index_in_order(cli, "vibe", [file_of(home, sid) for sid in order])
    words = ("giraffe", "pelican", "narwhal", "walrus", "heron")
    assert_found_where_typed(cli, "vibe", where, words, None)
    assert cli.json("status")["sessions"] == 6


def test_a_copy_keeps_its_own_calls_and_resumes_itself(cli: CLI, home: Path) -> None:
    cli.json("index", "--no-embed")
    original = cli.json("read", ORIGINAL, "--tools")["turns"]
    assert [m["tool"] for t in original for m in t["messages"] if m["kind"] == "tool_call"] == [
        "write_file"
    ]
    continued = cli.json("read", CONTINUED, "--tools")["turns"]
    assert [[m["kind"] for m in t["messages"]] for t in continued] == [
        ["prompt", "reply", "tool_call", "tool_output", "reply"]
    ]
    assert [m["is_error"] for m in continued[0]["messages"]] == [False, False, False, True, False]
    resume = cli.json("open", BRANCH)["resume"]
    assert resume["command"] == ["vibe", "--resume", BRANCH]
    assert resume["cwd"] == "/home/dev/zebra"


def test_an_index_a_copy_was_read_into_first_gives_the_session_its_turns_back(
    cli: CLI, home: Path, db_path: Path
) -> None:
    """An index that read the copies before their originals (an older release) held the
    copied turns as the copies'; the reading this release gives reads them again."""
    index_in_order(cli, "vibe", [file_of(home, sid) for sid in COPIES_FIRST])
    with Store.open(db_path) as store, store.transaction():
        store.set_setting("reading.vibe", "4.1")  # the reading before this one

    assert cli.json("index", "--no-embed")["read_anew"] == ["vibe"]
    for sid, typed in typed_where(home).items():
        assert prompts(cli, sid) == typed, sid
