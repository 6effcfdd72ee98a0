"""Kilo Code's CLI 7.7.9's own store, read through the real findsession CLI.

`fixtures/kilo-7.7/kilo/kilo.db` is what the real `kilo` 7.7.9 (npm
`@kilocode/cli-linux-x64`; the newest `@kilocode/cli`, 7.8.1, names a Linux binary of
its own version that the registry does not hold, so 7.7.9 is the newest a Linux machine
installs) wrote in `kilo run` sessions against a scripted OpenAI-compatible model on
localhost: `ZEBRA` by `kilo run` (a `write`) and two `kilo run --continue` (a `bash`
that exits 1, an `edit`); `PELICAN`, one question. Its WAL checkpointed into the file,
the home folder renamed to `/home/dev` in every text column, nothing else changed.

The schema is OpenCode 1.18's with Kilo's own tables beside it (`kilo_board`,
`kilo_board_message`: a board of the sessions, each row a session's first prompt
again; `todo`); only `message` and `part` hold the conversation. `kilo run` stores each
prompt with the quotes it added around it.

The counts come from the parts themselves (SQL below), not the parser: a `bash` call
whose `state.metadata.exit` is not 0 failed, though its `status` is `completed`.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI
from read_counts import indexed

FIXTURE = Path(__file__).parent / "fixtures" / "kilo-7.7"
ZEBRA = "ses_daf0742c5ffeoeJdA6MUtDhyo2"
PELICAN = "ses_daf07a2cfffe1lmlyD1EKbd48D"


@pytest.fixture
def store(cli: CLI, tmp_path: Path) -> Path:
    data = shutil.copytree(FIXTURE, tmp_path / "share")
    cli.env["XDG_DATA_HOME"] = str(data)
    return data / "kilo" / "kilo.db"


def expected(db: Path, sid: str) -> dict[str, Any]:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        rows = conn.execute(
            "SELECT json_extract(m.data, '$.role'), p.data FROM part p "
            "JOIN message m ON m.id = p.message_id WHERE p.session_id = ? ORDER BY p.id",
            (sid,),
        ).fetchall()
    prompts, counts = [], dict.fromkeys(("replies", "calls", "results", "failed"), 0)
    for role, data in rows:
        part = json.loads(data)
        if part["type"] == "text" and not part.get("synthetic"):
            if role == "user":
                prompts.append(part["text"])
            else:
                counts["replies"] += 1
        elif part["type"] == "tool":
            state = part["state"]
            counts["calls"] += 1
            counts["results"] += bool(state.get("output") or state.get("error"))
            exit_code = (state.get("metadata") or {}).get("exit")
            counts["failed"] += state["status"] == "error" or exit_code not in (None, 0)
    return {"prompts": prompts, **counts}


def index_id(cli: CLI, sid: str) -> str:
    """The index's id of a store's session: the store's file id, then the session's."""
    hit = cli.json("search", "--mode", "keyword", "--source", "kilo-code", "pelican")["results"][0]
    return hit["session"]["id"].split(":")[0] + ":" + sid


def test_each_session_gives_what_its_parts_hold(cli: CLI, store: Path) -> None:
    report = cli.json("index", "--no-embed", "--source", "kilo-code")
    assert report["problems"] == []
    for sid in (ZEBRA, PELICAN):
        assert indexed(cli, index_id(cli, sid)) == expected(store, sid), sid
    assert expected(store, ZEBRA) == {
        "prompts": [
            '"Please write the zebra notes file"',
            '"Now check the giraffe file with cat"',
            '"Add the okapi line to the zebra notes"',
        ],
        "replies": 6,
        "calls": 3,
        "results": 3,
        "failed": 1,
    }


def test_a_command_that_exited_non_zero_failed(cli: CLI, store: Path) -> None:
    cli.json("index", "--no-embed", "--source", "kilo-code")
    turns = cli.json("read", index_id(cli, ZEBRA), "--tools")["turns"]
    outputs = [m for t in turns for m in t["messages"] if m["kind"] == "tool_output"]
    assert [(m["tool"], m["is_error"]) for m in outputs] == [
        ("write", False),
        ("bash", True),
        ("edit", False),
    ]
    assert "cat: giraffe-missing.txt: No such file or directory" in outputs[1]["text"]


def test_blame_finds_the_write_and_the_edit(cli: CLI, store: Path) -> None:
    cli.json("index", "--no-embed", "--source", "kilo-code")
    writers = cli.json("blame", "/home/dev/proj/zebra.md")["writers"]
    assert [(w["turn"], w["op"]) for w in writers] == [(3, "edit"), (1, "create")]
    assert {w["session"]["id"] for w in writers} == {index_id(cli, ZEBRA)}
