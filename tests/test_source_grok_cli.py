"""Grok CLI's own store, `~/.grok/grok.db`, read through the real findsession CLI.

`fixtures/grok-cli/.grok/grok.db` is what the real Grok CLI (superagent-ai's `grok-dev`
1.1.7, its newest source, run with Bun; the older `@vibe-kit/grok-cli` 0.0.x keeps
nothing on disk) wrote against a scripted OpenAI-compatible model on localhost, its
home a scratch folder:

- `SHOPPING`, in `proj`: `grok -p` (a `write_file`), then `grok -s latest -p` twice (an
  `edit_file`; a `bash` whose `ls` fails, then one that works). Headless runs set no
  title.
- `CAPITAL`, in `proj`: one question, `grok -p`.
- `GARDEN`, in `garden`: the terminal UI, driven through a pseudo-terminal (two
  prompts; the UI had the model title the session), then `grok --session <id> -p` (an
  `edit_file` whose old text is not there, so it failed, and a `read_file`).
- `ORCHARD`, in `orchard`: `grok -p` whose model thought aloud (`reasoning_content`) and
  handed the folder to an `explore` subagent (`task`): the subagent keeps no session of
  its own, its answer is the `task` call's result.

Its WAL checkpointed into the file and the home folder renamed to `/home/dev` in every
text column; nothing else changed. The counts come from the store's own `tool_calls`
and `tool_results` tables and its messages' JSON (SQL below), not from the reader, which
reads only `messages`.
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

FIXTURE = Path(__file__).parent / "fixtures" / "grok-cli"
SHOPPING = "64fa8cb88a31"
CAPITAL = "7b0aec6cdeb8"
GARDEN = "fb4eedb407d4"
ORCHARD = "859d4d332b54"


@pytest.fixture
def store(cli: CLI, tmp_path: Path) -> Path:
    home = shutil.copytree(FIXTURE, tmp_path / "home")
    cli.env["HOME"] = str(home)
    return home / ".grok" / "grok.db"


def expected(db: Path, sid: str) -> dict[str, Any]:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        prompts = [
            row[0]
            for row in conn.execute(
                "SELECT json_extract(message_json, '$.content') FROM messages "
                "WHERE session_id = ? AND role = 'user' ORDER BY seq",
                (sid,),
            )
        ]
        [(replies,)] = conn.execute(
            "SELECT count(*) FROM messages m, json_each(m.message_json, '$.content') p "
            "WHERE m.session_id = ? AND m.role = 'assistant' "
            "AND json_extract(p.value, '$.type') = 'text'",
            (sid,),
        ).fetchall()
        [(calls,)] = conn.execute(
            "SELECT count(*) FROM tool_calls WHERE session_id = ?", (sid,)
        ).fetchall()
        [(results, failed)] = conn.execute(
            "SELECT count(*), coalesce(sum(r.success = 0), 0) FROM tool_results r "
            "JOIN tool_calls c ON c.id = r.tool_call_row_id WHERE c.session_id = ?",
            (sid,),
        ).fetchall()
    return {"prompts": prompts, "replies": replies, "calls": calls, "results": results,
            "failed": failed}  # fmt: skip


def index_id(cli: CLI, sid: str) -> str:
    """The index's id of a store's session: the store's file id, then the session's."""
    hit = cli.json("search", "--mode", "keyword", "--source", "grok-cli", "Canberra")
    return hit["results"][0]["session"]["id"].split(":")[0] + ":" + sid


def test_each_session_gives_what_its_store_counts(cli: CLI, store: Path) -> None:
    report = cli.json("index", "--no-embed", "--source", "grok-cli")
    assert (report["problems"], report["errors"], report["sessions_total"]) == ([], [], 4)
    for sid in (SHOPPING, CAPITAL, GARDEN, ORCHARD):
        assert indexed(cli, index_id(cli, sid)) == expected(store, sid), sid
    assert expected(store, SHOPPING) == {
        "prompts": [
            "Please make a shopping list in notes.txt",
            "Now add eggs to the list",
            "Run the test suite please",
        ],
        "replies": 3,
        "calls": 4,
        "results": 4,
        "failed": 1,
    }
    assert expected(store, GARDEN)["failed"] == 1


def test_thinking_and_a_subagents_answer(cli: CLI, store: Path) -> None:
    cli.json("index", "--no-embed", "--source", "grok-cli")
    read = cli.json("read", index_id(cli, ORCHARD), "--tools")
    got = [(m["kind"], m.get("tool")) for t in read["turns"] for m in t["messages"]]
    assert got == [
        ("prompt", None),
        ("thinking", None),
        ("tool_call", "task"),
        ("tool_output", "task"),
        ("thinking", None),
        ("reply", None),
    ]
    texts = [m["text"] for t in read["turns"] for m in t["messages"]]
    assert texts[1] == "The plan needs a survey of the folder first; a subagent can look."
    assert texts[3] == "The orchard folder holds only plan.md."
    assert read["session"]["cwd"] == "/home/dev/orchard"


def test_failed_calls_are_marked(cli: CLI, store: Path) -> None:
    cli.json("index", "--no-embed", "--source", "grok-cli")
    outputs = {}
    for sid in (SHOPPING, GARDEN):
        turns = cli.json("read", index_id(cli, sid), "--tools")["turns"]
        outputs[sid] = [m for t in turns for m in t["messages"] if m["kind"] == "tool_output"]
    assert [(m["tool"], m["is_error"]) for m in outputs[SHOPPING]] == [
        ("write_file", False),
        ("edit_file", False),
        ("bash", True),
        ("bash", False),
    ]
    assert "No such file or directory" in outputs[SHOPPING][2]["text"]
    assert [(m["tool"], m["is_error"]) for m in outputs[GARDEN]] == [
        ("write_file", False),
        ("edit_file", True),
        ("read_file", False),
    ]
    assert outputs[GARDEN][1]["text"] == "old_string not found in notes.txt"


def test_title_folder_turns_and_resume(cli: CLI, store: Path) -> None:
    cli.json("index", "--no-embed", "--source", "grok-cli")
    [hit] = cli.json("search", "--mode", "keyword", "--source", "grok-cli", "plums")["results"]
    session = hit["session"]
    assert session["id"] == index_id(cli, GARDEN)
    assert session["title"] == "Shopping list in notes file"  # the one the UI had made
    assert session["cwd"] == "/home/dev/garden"
    assert hit["resume"]["command"] == ["grok", "--session", GARDEN]
    assert hit["resume"]["cwd"] == "/home/dev/garden"
    read = cli.json("read", index_id(cli, SHOPPING), "--tools")
    # A headless session has no title of its own: its first prompt stands for one.
    assert read["session"]["title"] == "Please make a shopping list in notes.txt"
    assert read["session"]["cwd"] == "/home/dev/proj"
    assert len(read["turns"]) == 3


def test_blame_finds_the_write_and_the_edit_not_the_failed_one(cli: CLI, store: Path) -> None:
    cli.json("index", "--no-embed", "--source", "grok-cli")
    writers = cli.json("blame", "/home/dev/proj/notes.txt")["writers"]
    assert [(w["turn"], w["op"], w["tool"]) for w in writers] == [
        (2, "edit", "edit_file"),
        (1, "create", "write_file"),
    ]
    assert {w["session"]["id"] for w in writers} == {index_id(cli, SHOPPING)}
    # The `edit_file` that found no pears wrote nothing.
    writers = cli.json("blame", "/home/dev/garden/notes.txt")["writers"]
    assert [(w["turn"], w["op"], w["tool"]) for w in writers] == [(1, "create", "write_file")]


def test_only_a_changed_session_is_read_again(cli: CLI, store: Path) -> None:
    """A turn added as the CLI adds one (its messages, then the session's time), its
    tool having thrown: the AI SDK keeps that result as `error-text`."""
    cli.json("index", "--no-embed", "--source", "grok-cli")
    assert cli.json("index", "--no-embed", "--source", "grok-cli")["files_read"] == 0
    when = "2026-12-07T17:00:00.000Z"
    turn = [
        ("user", {"role": "user", "content": "Look up the kumquat price"}),
        ("assistant", {"role": "assistant", "content": [{"type": "tool-call",
            "toolCallId": "call_90", "toolName": "search_web", "input": {"query": "kumquat"}}]}),
        ("tool", {"role": "tool", "content": [{"type": "tool-result", "toolCallId": "call_90",
            "toolName": "search_web", "output": {"type": "error-text",
                                                  "value": "Web search failed: offline"}}]}),
        ("assistant", {"role": "assistant", "content": [{"type": "text",
            "text": "The search is offline."}]}),
    ]  # fmt: skip
    with sqlite3.connect(store) as conn:
        for seq, (role, message) in enumerate(turn, start=3):
            conn.execute(
                "INSERT INTO messages VALUES (?, ?, ?, ?, ?)",
                (CAPITAL, seq, role, json.dumps(message), when),
            )
        conn.execute("UPDATE sessions SET updated_at = ? WHERE id = ?", (when, CAPITAL))
    conn.close()
    report = cli.json("index", "--no-embed", "--source", "grok-cli")
    assert (report["files_read"], report["lines_read"], report["sessions_changed"]) == (1, 1, 1)
    turns = cli.json("read", index_id(cli, CAPITAL), "--tools")["turns"]
    got = [(m["kind"], m.get("tool"), m["is_error"]) for m in turns[-1]["messages"]]
    assert got == [
        ("prompt", None, False),
        ("tool_call", "search_web", False),
        ("tool_output", "search_web", True),
        ("reply", None, False),
    ]


def test_a_file_that_is_not_grok_clis_store(cli: CLI, tmp_path: Path) -> None:
    folder = tmp_path / "home" / ".grok"
    folder.mkdir(parents=True)
    sqlite3.connect(folder / "grok.db").execute("CREATE TABLE other (x)").connection.close()
    report = cli.json("index", "--no-embed", "--source", "grok-cli")
    assert "not a Grok CLI store" in json.dumps(report["problems"])
