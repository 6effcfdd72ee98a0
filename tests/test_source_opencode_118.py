"""OpenCode 1.18.33's own store, read through the real CLI.

`fixtures/opencode-1.18/opencode/opencode.db` is what OpenCode 1.18.33 wrote in
`opencode run` sessions against a scripted OpenAI-compatible model on localhost: its
WAL checkpointed into the file, the home folder renamed to `/home/dev` in every text
column (the `event` table too), nothing else changed. Six sessions: one prompt; three
prompts, the last two with `--continue`, with a `write`, a `bash` that fails (exit 1)
and an `edit`; two prompts, the second with `--continue`; one prompt; one whose model
handed a task to the `general` subagent (`task`), and that subagent's session, a child
of it, which OpenCode titled "<task description> (@general subagent)". `opencode run`
stores each prompt with the quotes it added around it; they are the store's text.

The schema is 1.18's: beside `session`, `message` and `part` it has `session_message`,
`session_input`, `session_context_epoch` and `event` (the same changes as events). Only
`message` and `part` hold rows of the conversation; the others are empty or repeat them.

The counts come from the parts themselves (a few lines of SQL below), not the parser.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections import Counter
from pathlib import Path

import pytest
from conftest import CLI

FIXTURE = Path(__file__).parent / "fixtures" / "opencode-1.18"


@pytest.fixture
def store(cli: CLI, tmp_path: Path) -> Path:
    data = shutil.copytree(FIXTURE, tmp_path / "share")
    cli.env["XDG_DATA_HOME"] = str(data)
    return data / "opencode" / "opencode.db"


def expected(db: Path) -> dict[str, Counter[str]]:
    """Per session: typed prompts, replies, tool calls and their outputs."""
    out: dict[str, Counter[str]] = {}
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        rows = conn.execute(
            "SELECT p.session_id, json_extract(m.data, '$.role'), p.data FROM part p "
            "JOIN message m ON m.id = p.message_id"
        ).fetchall()
        for (sid,) in conn.execute("SELECT id FROM session"):
            out[sid] = Counter()
    for sid, role, data in rows:
        part = json.loads(data)
        if part["type"] == "text" and not part.get("synthetic") and not part.get("ignored"):
            out[sid]["prompt" if role == "user" else "reply"] += 1
        elif part["type"] == "tool":
            out[sid]["tool_call"] += 1
            out[sid]["tool_output"] += bool(part["state"].get("output"))
    return out


def test_each_session_gives_what_its_parts_hold(cli: CLI, store: Path) -> None:
    report = cli.json("index", "--no-embed", "--source", "opencode")
    assert report["problems"] == []
    want = expected(store)
    assert sum(want.values(), Counter()) == Counter(
        prompt=9, reply=13, tool_call=4, tool_output=4
    )  # the independent count itself, as the store stands
    assert len(want) == 6
    for sid, counts in want.items():
        read = cli.json("read", index_id(cli, sid), "--tools")
        got = Counter(m["kind"] for t in read["turns"] for m in t["messages"])
        assert +got == +counts, sid
        assert read["session"]["cwd"] == "/home/dev/zoo"


def index_id(cli: CLI, sid: str) -> str:
    """The index's id of a store's session: the store's file id, then the session's."""
    hit = cli.json("search", "--mode", "keyword", "--source", "opencode", "pelican")["results"][0]
    return hit["session"]["id"].split(":")[0] + ":" + sid


def test_the_subagents_session_keeps_the_title_opencode_gave_it(cli: CLI, store: Path) -> None:
    cli.json("index", "--no-embed", "--source", "opencode")
    with sqlite3.connect(f"file:{store}?mode=ro", uri=True) as conn:
        ((child, parent, title),) = conn.execute(
            "SELECT id, parent_id, title FROM session WHERE parent_id IS NOT NULL"
        ).fetchall()
    assert title == "Check the ibis notes (@general subagent)"
    session = cli.json("read", index_id(cli, child))["session"]
    assert session["subagent"] is True
    assert session["parent_id"] == index_id(cli, parent)
    assert session["title"] == title


def test_the_failing_command_and_the_edits(cli: CLI, store: Path) -> None:
    cli.json("index", "--no-embed", "--source", "opencode")
    hits = cli.json("search", "--mode", "keyword", "--source", "opencode", "giraffe")["results"]
    (session,) = {h["session"]["id"] for h in hits}
    turns = cli.json("read", session, "--tools")["turns"]
    assert [t["messages"][0]["text"] for t in turns] == [
        '"Write the zebra notes file please"',
        '"Now show me the giraffe file"',
        '"Edit the zebra notes to mention the okapi"',
    ]
    tools = [
        (m["tool"], m["text"]) for t in turns for m in t["messages"] if m["kind"] == "tool_output"
    ]
    assert [name for name, _ in tools] == ["write", "bash", "edit"]
    assert "No such file or directory" in tools[1][1]
