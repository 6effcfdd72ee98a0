"""Forge's `.forge.db`, through the real CLI: each conversation's typed prompts (counted
here from the store's own JSON with SQLite's JSON functions, with no findsession code),
replies, thinking, calls and their results (a failed one marked), what Forge wrote as
the user itself left out of the prompts, a subagent linked to its parent (also when it
was read before its parent's answer was saved), a command, a row of the older shape, a
malformed message and a malformed context each one problem with the rest read, only
the conversations that changed read again, `forge --conversation-id` to resume, and
blame through its `write`, `patch` (today's argument names and the older ones),
`multi_patch` and `remove`.

Forge could not be run here (it installs from its site's script, which fetches a binary
from GitHub; no package registry here held a build of it), and no store of a person's
was found published: the store is built (`forge_store`) in the schema of Forge's own
migrations and the JSON shapes its `conversation_record.rs` writes (docs/sources.md,
"Forge"). The reader was also checked,
outside the suite, against the two conversations Forge's developers committed as test
fixtures, read the same way into a store: the same prompts, replies, calls, results and
failed results as a count of their JSON.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI
from forge_store import (
    ForgeStore,
    agent_result,
    assistant,
    call,
    command,
    harness,
    result,
    system,
    task,
)
from read_counts import indexed

from findsession.sources.forge import file_id

SHELF = "0d6f3c1e-5b2a-4c8e-9f10-2a7b3c4d5e61"  # two prompts, a failed command
LANTERN = "3b9e7a20-1c44-4d1f-8e2a-55c0f1a2b3c4"  # hands work to a subagent
SAGE = "7c1d2e3f-4a5b-4c6d-9e7f-8091a2b3c4d5"  # that subagent
KETTLE = "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d"  # older shape, a malformed message
FIXME = "5f4e3d2c-1b0a-4978-8695-a4b3c2d1e0f9"  # a compaction's summary, a command
EMPTY = "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d"  # started, nothing said
BROKEN = "2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e"  # context not JSON

SAGE_TASK = "Find which GPIO pin drives the lantern LEDs"


def lantern(answered: bool = True) -> list[dict[str, Any]]:
    messages = [
        system("/home/dev/lantern"),
        task("Survey how the lantern firmware wires its LEDs"),
        assistant("Asking sage to look.", call("call_sage", "sage", tasks=[SAGE_TASK])),
    ]
    if answered:
        answer = f'<task_completed task="{SAGE_TASK}"><output>GPIO 4.</output></task_completed>'
        messages += [
            agent_result("call_sage", "sage", answer, SAGE),
            assistant("The lantern LEDs are driven from GPIO 4."),
        ]
    return messages


def build(home: Path, *, answered: bool = True) -> Path:
    """The store in Forge's folder under `home`; its path."""
    db = home / ".forge" / ".forge.db"
    s = ForgeStore(db)
    s.save(SHELF, "Bookshelf inventory script", [
        system("/home/dev/shelf"),
        task("Write a script that counts the books on the shelf"),
        harness('<file_content path="/home/dev/shelf/notes.md">shelf notes</file_content>'),
        assistant("I'll write it.", call("call_1", "write", file_path="/home/dev/shelf/count.py",
                  content="print(len(open('books.txt').readlines()))"),
                  thinking="The shelf list should be in books.txt."),
        result("call_1", "write", "Successfully wrote /home/dev/shelf/count.py"),
        assistant("Running it.", call("call_2", "shell", command="python count.py",
                                      cwd="/home/dev/shelf")),
        result("call_2", "shell", "FileNotFoundError: [Errno 2] No such file: 'books.txt'",
               failed=True),
        assistant("The list was missing; I made it.", call("call_3", "write",
                  file_path="/home/dev/shelf/books.txt", content="Dune\nEmma\nBeloved\n")),
        result("call_3", "write", "Successfully wrote /home/dev/shelf/books.txt"),
        assistant("Done: the shelf holds 3 books."),
        task("Now sort them by author", first=False),
        harness("**Current task list:**\n\n- [DONE] count the books\n"),
        assistant("Sorting.", call("call_4", "patch", file_path="/home/dev/shelf/books.txt",
                  old_string="Dune\nEmma\nBeloved\n", new_string="Emma\nDune\nBeloved\n")),
        result("call_4", "patch", "patched books.txt"),
        assistant("Sorted by author: Austen, Herbert, Morrison."),
    ], "2026-12-07 09:00:00.123456", "2026-12-07 09:21:30.500000",
       started="2026-12-07T09:20:00Z")  # fmt: skip
    s.save(SAGE, SAGE_TASK, [
        system("/home/dev/lantern"),
        task(SAGE_TASK),
        assistant("Reading.", call("call_s1", "read", file_path="/home/dev/lantern/leds.c")),
        result("call_s1", "read", "#define LED_PIN 4"),
        assistant("GPIO 4."),
    ], "2026-12-07 10:00:05", "2026-12-07 10:00:20", initiator="agent")  # fmt: skip
    s.save(LANTERN, "Lantern LED wiring", lantern(answered), "2026-12-07 10:00:00",
           "2026-12-07 10:00:30")  # fmt: skip
    s.save(KETTLE, None, [
        system("/home/dev/kettle"),
        {"text": {"role": "User", "content": "<task>Tune the kettle timer</task>"}},
        {"bogus": {"role": "User"}},
        # `patch` as Forge wrote it before `file_path`, `old_string` and `new_string`.
        assistant("Changing the wait.", call("call_t1", "patch", content="WAIT = 240",
                  operation="replace", path="/home/dev/kettle/timer.py", search="WAIT = 180")),
        result("call_t1", "patch", "patched timer.py"),
        assistant("The timer now waits 240 seconds."),
    ], "2025-10-01 08:00:00", "2025-10-01 08:05:00", direct=True)  # fmt: skip
    s.save(FIXME, "Kettle FIXMEs", [
        system("/home/dev/kettle"),
        harness("Use the following summary frames as the authoritative reference.\n\n"
                "## Summary\n\n### 1. user\n\nthe kettle descales weekly", droppable=False),
        assistant("Picking up from the summary."),
        command("fixme", ["kettle.rs"], "Fix every FIXME in kettle.rs"),
        assistant("Fixing both.", call("call_k1", "multi_patch",
                  file_path="/home/dev/kettle/kettle.rs", edits=[
                      {"old_string": "// FIXME boil", "new_string": "boil_once();"},
                      {"old_string": "// FIXME beep", "new_string": "beep();"}]),
                  call("call_k2", "remove", path="/home/dev/kettle/old_kettle.rs")),
        result("call_k1", "multi_patch", "patched kettle.rs"),
        result("call_k2", "remove", "removed old_kettle.rs"),
        assistant("No FIXME is left in kettle.rs."),
    ], "2026-12-06 12:00:00", "2026-12-06 12:10:00")  # fmt: skip
    s.save(EMPTY, None, None, "2026-12-07 11:00:00")
    s.save(BROKEN, "half written", None, "2026-12-07 11:30:00", "2026-12-07 11:31:00",
           raw_context='{"conversation_id": "' + BROKEN + '", "messages": [')  # fmt: skip
    s.close()
    return db


@pytest.fixture
def store(cli: CLI, tmp_path: Path) -> Path:
    return build(tmp_path / "home")


def sid(db: Path, cid: str) -> str:
    return f"{file_id(db)}:{cid}"


def expected(db: Path, cid: str) -> dict[str, Any]:
    """The conversation counted from its JSON by SQLite, as Forge's record shapes say."""
    messages = (
        "SELECT coalesce(json_extract(m.value, '$.message'), m.value) AS v "
        "FROM conversations c, json_each(c.context, '$.messages') m "
        "WHERE c.conversation_id = ?"
    )
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        prompts = [
            row[0]
            for row in conn.execute(
                f"SELECT json_extract(v, '$.text.raw_content.Text') FROM ({messages}) "
                "WHERE json_extract(v, '$.text.raw_content.Text') IS NOT NULL",
                (cid,),
            )
        ]
        [(replies,)] = conn.execute(
            f"SELECT count(*) FROM ({messages}) WHERE json_extract(v, '$.text.role') = "
            "'Assistant' AND json_extract(v, '$.text.content') <> ''",
            (cid,),
        ).fetchall()
        [(calls,)] = conn.execute(
            f"SELECT coalesce(sum(json_array_length(v, '$.text.tool_calls')), 0) FROM ({messages})",
            (cid,),
        ).fetchall()
        [(results, failed)] = conn.execute(
            f"SELECT count(*), coalesce(sum(json_extract(v, '$.tool.output.is_error')), 0) "
            f"FROM ({messages}) WHERE json_type(v, '$.tool') = 'object'",
            (cid,),
        ).fetchall()
    return {"prompts": prompts, "replies": replies, "calls": calls, "results": results,
            "failed": failed}  # fmt: skip


def test_each_conversation_gives_what_its_store_counts(cli: CLI, store: Path) -> None:
    report = cli.json("index", "--no-embed", "--source", "forge")
    assert report["errors"] == [] and report["sessions_total"] == 5
    for cid in (SHELF, LANTERN, SAGE):
        assert indexed(cli, sid(store, cid)) == expected(store, cid), cid
    assert expected(store, SHELF) == {
        "prompts": ["Write a script that counts the books on the shelf", "Now sort them by author"],
        "replies": 6,
        "calls": 4,
        "results": 4,
        "failed": 1,
    }


def test_a_bad_message_or_context_is_one_problem_and_the_rest_is_read(
    cli: CLI, store: Path
) -> None:
    report = cli.json("index", "--no-embed", "--source", "forge")
    problems = json.dumps(report["problems"])
    assert problems.count("unknown message shape") == 1
    assert problems.count("malformed JSON") == 1
    # The older row: read from its `<task>` wrapper, the message after the bad one read.
    assert indexed(cli, sid(store, KETTLE)) == {
        "prompts": ["Tune the kettle timer"], "replies": 2, "calls": 1, "results": 1,
        "failed": 0}  # fmt: skip
    hits = cli.json("search", "--mode", "keyword", "--source", "forge", "half written")
    assert all(BROKEN not in h["session"]["id"] for h in hits["results"])


def test_thinking_calls_and_the_failed_command(cli: CLI, store: Path) -> None:
    cli.json("index", "--no-embed", "--source", "forge")
    read = cli.json("read", sid(store, SHELF), "--tools")
    got = [(m["kind"], m.get("tool"), m["is_error"]) for m in read["turns"][0]["messages"]]
    assert got == [
        ("prompt", None, False),
        ("thinking", None, False),
        ("reply", None, False),
        ("tool_call", "write", False),
        ("tool_output", "write", False),
        ("reply", None, False),
        ("tool_call", "shell", False),
        ("tool_output", "shell", True),
        ("reply", None, False),
        ("tool_call", "write", False),
        ("tool_output", "write", False),
        ("reply", None, False),
    ]
    texts = [m["text"] for m in read["turns"][0]["messages"]]
    assert "FileNotFoundError" in texts[7]
    # What Forge put in as the user (an attached file, the task list) is no prompt.
    assert all("Current task list" not in m["text"] and "shelf notes" not in m["text"]
               for t in read["turns"] for m in t["messages"] if m["kind"] == "prompt")  # fmt: skip


def test_title_folder_times_and_resume(cli: CLI, store: Path) -> None:
    cli.json("index", "--no-embed", "--source", "forge")
    [hit] = cli.json("search", "--mode", "keyword", "--source", "forge", "sort by author")[
        "results"
    ]
    session = hit["session"]
    assert session["id"] == sid(store, SHELF)
    assert session["title"] == "Bookshelf inventory script"
    assert session["cwd"] == "/home/dev/shelf"
    assert hit["resume"]["command"] == ["forge", "--conversation-id", SHELF]
    assert hit["resume"]["cwd"] == "/home/dev/shelf"
    read = cli.json("read", sid(store, SHELF))
    assert [t["timestamp"] for t in read["turns"]] == [
        "2026-12-07T09:00:00.123Z",  # created_at
        "2026-12-07T09:20:00.000Z",  # when the last request began
    ]
    assert (read["session"]["started"], read["session"]["ended"]) == (
        "2026-12-07T09:00:00.123Z",
        "2026-12-07T09:21:30.500Z",
    )
    # No title of its own: the first prompt stands for one.
    assert cli.json("read", sid(store, KETTLE))["session"]["title"] == "Tune the kettle timer"


def test_a_command_and_a_compaction_summary(cli: CLI, store: Path) -> None:
    cli.json("index", "--no-embed", "--source", "forge")
    got = indexed(cli, sid(store, FIXME))
    assert (got["prompts"], got["replies"]) == (["/fixme kettle.rs"], 3)
    # The summary restates turns a compaction replaced: neither a prompt nor a reply.
    hits = cli.json("search", "--mode", "keyword", "--source", "forge", "descales weekly")
    assert hits["results"] == []


def test_a_subagent_is_linked_to_its_parent(cli: CLI, store: Path) -> None:
    cli.json("index", "--no-embed", "--source", "forge")
    child = cli.json("read", sid(store, SAGE))["session"]
    assert (child["subagent"], child["parent_id"]) == (True, sid(store, LANTERN))
    assert child["title"] == SAGE_TASK
    assert child["cwd"] == "/home/dev/lantern"
    parent = cli.json("read", sid(store, LANTERN), "--tools")
    outputs = [m for t in parent["turns"] for m in t["messages"] if m["kind"] == "tool_output"]
    assert [(m["tool"], m["is_error"]) for m in outputs] == [("sage", False)]
    assert "GPIO 4." in outputs[0]["text"]


def test_a_subagent_read_before_its_parents_answer_is_linked_later(
    cli: CLI, tmp_path: Path
) -> None:
    """Forge saves the subagent's conversation before the parent's result names it."""
    db = build(tmp_path / "home", answered=False)
    cli.json("index", "--no-embed", "--source", "forge")
    assert cli.json("read", sid(db, SAGE))["session"]["parent_id"] is None
    s = ForgeStore.__new__(ForgeStore)
    s.conn = sqlite3.connect(db)
    s.save(LANTERN, "Lantern LED wiring", lantern(), "2026-12-07 10:00:00", "2026-12-07 10:00:30")
    s.close()
    report = cli.json("index", "--no-embed", "--source", "forge")
    assert report["sessions_changed"] == 2  # the parent, and the subagent its answer names
    assert cli.json("read", sid(db, SAGE))["session"]["parent_id"] == sid(db, LANTERN)


def test_only_a_changed_conversation_is_read_again(cli: CLI, store: Path) -> None:
    cli.json("index", "--no-embed", "--source", "forge")
    assert cli.json("index", "--no-embed", "--source", "forge")["files_read"] == 0
    conn = sqlite3.connect(store)
    [(context,)] = conn.execute(
        "SELECT context FROM conversations WHERE conversation_id = ?", (KETTLE,)
    ).fetchall()
    data = json.loads(context)
    data["messages"] += [
        {"text": {"role": "User", "content": "<feedback>and the whistle</feedback>",
                  "raw_content": {"Text": "and the whistle"}}},
        {"text": {"role": "Assistant", "content": "The whistle sounds at 100 degrees."}},
    ]  # fmt: skip
    conn.execute(
        "UPDATE conversations SET context = ?, updated_at = ? WHERE conversation_id = ?",
        (json.dumps(data), "2025-10-01 09:00:00", KETTLE),
    )
    conn.commit()
    conn.close()
    report = cli.json("index", "--no-embed", "--source", "forge")
    assert (report["files_read"], report["lines_read"], report["sessions_changed"]) == (1, 1, 1)
    assert indexed(cli, sid(store, KETTLE))["prompts"] == [
        "Tune the kettle timer",
        "and the whistle",
    ]


def test_a_file_that_is_not_a_forge_store(cli: CLI, tmp_path: Path) -> None:
    folder = tmp_path / "home" / ".forge"
    folder.mkdir(parents=True)
    sqlite3.connect(folder / ".forge.db").execute("CREATE TABLE other (x)").connection.close()
    report = cli.json("index", "--no-embed", "--source", "forge")
    assert "not a Forge store" in json.dumps(report["problems"])


def test_blame_finds_the_writes_and_the_patch(cli: CLI, store: Path) -> None:
    cli.json("index", "--no-embed", "--source", "forge")
    writers = cli.json("blame", "/home/dev/shelf/books.txt")["writers"]
    assert [(w["turn"], w["op"], w["tool"]) for w in writers] == [
        (2, "edit", "patch"),
        (1, "create", "write"),
    ]
    assert {w["session"]["id"] for w in writers} == {sid(store, SHELF)}
    writers = cli.json("blame", "/home/dev/shelf/count.py")["writers"]
    assert [(w["turn"], w["op"], w["tool"]) for w in writers] == [(1, "create", "write")]
    writers = cli.json("blame", "/home/dev/kettle/kettle.rs")["writers"]
    assert [(w["op"], w["tool"]) for w in writers] == [("edit", "multi_patch")]
    writers = cli.json("blame", "/home/dev/kettle/old_kettle.rs")["writers"]
    assert [(w["op"], w["tool"]) for w in writers] == [("delete", "remove")]


def test_an_older_patch_is_read_by_the_names_forge_reads_it_by(cli: CLI, store: Path) -> None:
    """Forge's catalog takes `path`, `search` and `content` as aliases of a patch's
    `file_path`, `old_string` and `new_string`: the edit is found with its texts."""
    cli.json("index", "--no-embed", "--source", "forge")
    [writer] = cli.json("blame", "/home/dev/kettle/timer.py")["writers"]
    assert (writer["op"], writer["tool"]) == ("edit", "patch")
    turns = cli.json("read", sid(store, KETTLE), "--tools")["turns"]
    [call_text] = [m["text"] for t in turns for m in t["messages"] if m["kind"] == "tool_call"]
    assert call_text.splitlines()[:3] == [
        "file_path: /home/dev/kettle/timer.py",
        "old_string: WAIT = 180",
        "new_string: WAIT = 240",
    ]
