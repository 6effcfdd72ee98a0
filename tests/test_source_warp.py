"""Warp's agent conversations (`warp.sqlite`'s `agent_conversations` and `agent_tasks`),
through the real CLI: each conversation's prompts counted by a reader of its own, the
tasks' protocol buffers read by field number (prompts, replies, thinking, each tool call
answered by its result, a failed one kept out of blame), a subagent under the task that
started it, a child agent under its parent conversation, titles, the folder from the
query's context, a task that does not decode costing itself alone, only the
conversations whose token moved read again, and nothing written beside the store.

The store is built by `warp_store`, as Warp's own persistence code saves a conversation,
each task encoded as `task.proto` lays it out.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI
from warp_store import (
    WarpStore,
    diffs_applied,
    diffs_failed,
    file_diffs,
    files_read,
    mcp,
    message,
    output,
    read_files,
    reasoning,
    server_call,
    shell,
    shell_done,
    subagent,
    summary,
    system,
    task,
    todos,
    user,
)

from findsession.sources.protobuf_wire import Wire
from findsession.sources.warp import file_id

LANTERN = "0c4f1e2a-1111-4a5b-8c6d-000000000001"
TIDE = "0c4f1e2a-1111-4a5b-8c6d-000000000002"  # a child agent of the lantern conversation
BROKEN = "0c4f1e2a-1111-4a5b-8c6d-000000000003"
PROJECT = "/home/dev/lighthouse"
T0 = 1_790_000_000


def lantern_tasks() -> list[tuple[str, bytes]]:
    root = [
        message("m1", T0, user("why does the lighthouse lantern stall at dusk", PROJECT,
                               attached=[(f"{PROJECT}/notes/dusk.md", "stall log of the keeper")])),
        message("m2", T0 + 2, reasoning("the gear motor torque drops when the air cools")),
        message("m3", T0 + 3, output("Let me read the motor driver first.")),
        message("m4", T0 + 4, read_files("c1", f"{PROJECT}/motor.c")),
        message("m5", T0 + 5, files_read("c1", (f"{PROJECT}/motor.c", "#define STALL_TORQUE 12"))),
        message("m6", T0 + 6, shell("c2", "make lantern-test")),
        message("m7", T0 + 8, shell_done("c2", "make lantern-test", "2 passed", 0, PROJECT)),
        message("m8", T0 + 9, file_diffs(
            "c3", "Raise the stall torque",
            diffs=[(f"{PROJECT}/motor.c", "#define STALL_TORQUE 12", "#define STALL_TORQUE 18")],
            new=[(f"{PROJECT}/dusk_test.c", "int dusk_test(void) { return lantern_turns(); }")])),
        message("m9", T0 + 10, diffs_applied("c3", f"{PROJECT}/motor.c", f"{PROJECT}/dusk_test.c")),
        message("m10", T0 + 11, output("Raised the stall torque; the lantern turns at dusk now.")),
        message("m11", T0 + 60, user("and log each stall to the keeper console")),
        message("m12", T0 + 61, file_diffs(
            "c4", "Log stalls", diffs=[(f"{PROJECT}/log.c", "log(x);", "keeper_log(stall);")])),
        message("m13", T0 + 62, diffs_failed("c4", "log.c changed on disk")),
        message("m14", T0 + 63, subagent("c5", "t-probe", "Find the keeper console's baud rate")),
        message("m15", T0 + 64, server_call("c6")),
        message("m16", T0 + 65, summary("The lantern stall fix and the console log so far")),
        message("m17", T0 + 66, system("fix the build error in log.c")),
        message("m18", T0 + 67, todos()),
        message("m19", T0 + 68, b"\xc2\x02\x03\x0a\x01x"),  # field 40: a kind newer than us
        message("m20", T0 + 69, output("The console logs every stall at 9600 baud.")),
    ]  # fmt: skip
    probe = [
        message("p1", T0 + 63, mcp("c7", "docs_search", "keeper console baud")),
        message("p2", T0 + 64, output("The keeper console speaks 9600 baud serial.")),
    ]
    return [
        ("t-root", task("t-root", "Lighthouse lantern stall", root)),
        ("t-probe", task("t-probe", "", probe, parent="t-root")),
    ]


def build(home: Path) -> Path:
    """The store in Warp's place on Linux, as its tests' machine keeps it."""
    path = home / ".local" / "state" / "warp-terminal" / "warp.sqlite"
    store = WarpStore(path)
    store.save(LANTERN, lantern_tasks())
    tide = [message("n1", T0 + 200, user("chart the tide tables for the harbour", PROJECT)),
            message("n2", T0 + 201, output("High water at the harbour is 06:12."))]  # fmt: skip
    store.save(TIDE, [("t-tide", task("t-tide", "Harbour tide tables", tide))],
               parent_conversation_id=LANTERN)  # fmt: skip
    store.save(BROKEN, [])
    store.raw_task(BROKEN, "t-bad", b"\x0a\xff\xff")  # a length past the end
    good = [message("k1", T0 + 300, user("does the foghorn need a relay", PROJECT))]
    store.raw_task(BROKEN, "t-good", task("t-good", "", good))
    store.close()
    return path


@pytest.fixture
def store(cli: CLI, tmp_path: Path) -> Path:
    return build(tmp_path / "home")


def sid(store: Path, conversation: str) -> str:
    return f"{file_id(store)}:{conversation}"


def hits(cli: CLI, query: str) -> list[dict[str, Any]]:
    return cli.json("search", "--mode", "keyword", "--source", "warp", query)["results"]


def found(cli: CLI, query: str) -> list[str]:
    return [h["session"]["id"] for h in hits(cli, query)]


def index(cli: CLI) -> dict[str, Any]:
    return cli.json("index", "--no-embed")


def counted(path: Path) -> dict[str, int]:
    """Each conversation's prompts, counted without findsession's reader: the messages
    whose field 2 (a user query) holds a field 1 (its text), in every task that parses."""
    out: dict[str, int] = {}
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    for conversation, blob in conn.execute("SELECT conversation_id, task FROM agent_tasks"):
        try:
            parsed = Wire.parse(blob)
        except ValueError:
            continue
        if parsed.message(3) is not None:  # a subagent's task: its own session
            continue
        n = sum(1 for m in parsed.messages(5) if (q := m.message(2)) and q.string(1))
        out[conversation] = out.get(conversation, 0) + n
    conn.close()
    return out


def test_every_conversation_is_read_and_counted(cli: CLI, store: Path) -> None:
    report = index(cli)
    assert str(store.parent) in report["roots"] and report["errors"] == []
    assert report["files_read"] == 1
    reasons = sorted((p["reason"], p["detail"]) for p in report["problems"])
    assert reasons[0][0] == "unknown message kind" and reasons[0][1].startswith("field 40")
    assert reasons[1][0] == "unreadable task" and BROKEN in reasons[1][1]
    listed = {s["kind"]: s for s in cli.json("sources")["sources"]}["warp"]
    assert (listed["sessions"], listed["subagents"]) == (2, 2)  # the child agent: one
    expected = counted(store)
    assert expected == {LANTERN: 2, TIDE: 1, BROKEN: 1}
    for conversation, prompts in expected.items():
        assert cli.json("read", sid(store, conversation))["total_turns"] == prompts
    assert index(cli)["files_read"] == 0


def test_a_conversation_gives_prompts_replies_thinking_and_tools(cli: CLI, store: Path) -> None:
    index(cli)
    session = hits(cli, "lighthouse lantern stall dusk")[0]["session"]
    assert session["id"] == sid(store, LANTERN) and session["title"] == "Lighthouse lantern stall"
    assert session["cwd"] == PROJECT
    assert session["started"] == "2026-09-21T14:13:20.500Z"
    assert found(cli, "STALL_TORQUE") == [sid(store, LANTERN)]  # a file it read
    assert found(cli, "opaque") == []  # the server's own calls
    first = cli.json("read", sid(store, LANTERN), "--tools")["turns"][0]["messages"]
    assert [(m["kind"], m["tool"]) for m in first] == [
        ("prompt", None),
        ("thinking", None),
        ("reply", None),
        ("tool_call", "read_files"),
        ("tool_output", "read_files"),
        ("tool_call", "run_shell_command"),
        ("tool_output", "run_shell_command"),
        ("tool_call", "apply_file_diffs"),
        ("tool_output", "apply_file_diffs"),
        ("reply", None),
    ]
    assert first[0]["text"] == "why does the lighthouse lantern stall at dusk"
    assert "stall log of the keeper" not in first[0]["text"]  # attached: context
    raw = cli.json("read", sid(store, LANTERN), "--raw")
    assert raw["turns"] == cli.json("read", sid(store, LANTERN))["turns"]


def test_subagents_and_child_agents_are_sessions_under_their_parent(cli: CLI, store: Path) -> None:
    index(cli)
    probe = [h for h in hits(cli, "keeper console baud") if h["session"]["subagent"]]
    assert [h["session"]["id"] for h in probe] == [sid(store, f"{LANTERN}/t-probe")]
    assert probe[0]["session"]["parent_id"] == sid(store, LANTERN)
    asked = cli.json("read", sid(store, f"{LANTERN}/t-probe"))["turns"][0]["messages"][0]
    assert asked["text"] == "Find the keeper console's baud rate"  # what the parent asked
    tide = [h for h in hits(cli, "tide tables harbour") if h["session"]["subagent"]]
    assert [h["session"]["parent_id"] for h in tide] == [sid(store, LANTERN)]
    assert tide[0]["session"]["title"] == "Harbour tide tables"  # beside its parent, kept
    assert "Warp" in hits(cli, "tide tables")[0]["resume"]["reason"]


def test_blame_reads_the_diffs_and_leaves_out_a_failed_one(cli: CLI, store: Path) -> None:
    index(cli)
    edited = cli.json("blame", f"{PROJECT}/motor.c")["writers"]
    assert [(w["session"]["id"], w["op"], w["added"]) for w in edited] == [
        (sid(store, LANTERN), "patch", ["#define STALL_TORQUE 18"])
    ]
    created = cli.json("blame", f"{PROJECT}/dusk_test.c")["writers"]
    assert [(w["session"]["id"], w["op"]) for w in created] == [(sid(store, LANTERN), "create")]
    assert cli.json("blame", f"{PROJECT}/log.c")["writers"] == []  # the diff failed


def test_only_changed_conversations_are_read_again(cli: CLI, store: Path) -> None:
    index(cli)
    writer = WarpStore.__new__(WarpStore)
    writer.path, writer.conn = store, sqlite3.connect(store)
    tide = [message("n1", T0 + 200, user("chart the tide tables for the harbour", PROJECT)),
            message("n2", T0 + 201, output("High water at the harbour is 06:12.")),
            message("n3", T0 + 400, user("and the spring tides in March?", PROJECT)),
            message("n4", T0 + 401, output("Spring tides peak near the equinox."))]  # fmt: skip
    writer.save(TIDE, [("t-tide", task("t-tide", "", tide))], parent_conversation_id=LANTERN)
    writer.close()
    report = index(cli)
    assert report["files_read"] == 1 and report["lines_read"] == 1  # one conversation
    assert found(cli, "equinox") == [sid(store, TIDE)]
    assert cli.json("read", sid(store, TIDE))["total_turns"] == 2
    assert found(cli, "lighthouse lantern") == [sid(store, LANTERN)]


def test_the_store_is_left_as_it_was(cli: CLI, store: Path) -> None:
    before = {p.name: p.read_bytes() for p in store.parent.iterdir()}
    index(cli)
    index(cli)
    assert {p.name: p.read_bytes() for p in store.parent.iterdir()} == before


def test_warp_deletes_its_own_so_it_is_archived_by_default_yet_its_store_is_never_copied(
    cli: CLI, store: Path
) -> None:
    """Warp drops its oldest conversations beyond 200: the archive is on for it, but a
    database is never copied whole; what stays is the index's text of the conversation."""
    report = index(cli)
    assert report["archived_bytes"] == 0 and report["archive_errors"] == []
    listed = {s["kind"]: s for s in cli.json("sources")["sources"]}["warp"]
    assert listed["archived"] is True
    archive = cli.json("status")["archive"]
    assert "warp" in archive["sources"] and archive["files"] == 0
    writer = WarpStore.__new__(WarpStore)
    writer.path, writer.conn = store, sqlite3.connect(store)
    with writer.conn:  # Warp deletes its oldest conversation with its tasks
        writer.conn.execute("DELETE FROM agent_tasks WHERE conversation_id = ?", (TIDE,))
        writer.conn.execute("DELETE FROM agent_conversations WHERE conversation_id = ?", (TIDE,))
    writer.close()
    index(cli)
    assert found(cli, "harbour tide tables") == [sid(store, TIDE)]
    assert cli.json("status")["archive"]["files"] == 0


#: A store of Warp before its agent kept conversations (2024: the migrations up to
#: `split_ai_exchanges_table`): each exchange a row of `ai_queries`, the answer a pane
#: still showed a row of `ai_blocks`.
OLDER_SCHEMA = """
CREATE TABLE ai_queries (id INTEGER PRIMARY KEY NOT NULL, exchange_id TEXT NOT NULL,
    conversation_id TEXT NOT NULL, start_ts DATETIME NOT NULL, input TEXT NOT NULL,
    working_directory TEXT, output_status TEXT NOT NULL);
CREATE UNIQUE INDEX ux_ai_queries_exchange_id ON ai_queries(exchange_id);
CREATE TABLE ai_blocks (id INTEGER PRIMARY KEY NOT NULL, exchange_id TEXT NOT NULL,
    pane_leaf_uuid BLOB NOT NULL, output TEXT NOT NULL,
    FOREIGN KEY(exchange_id) REFERENCES "ai_queries"(exchange_id));
"""


def test_a_store_from_before_agent_conversations_gives_its_exchanges(
    cli: CLI, tmp_path: Path
) -> None:
    """It was "not a Warp store with agent conversations" on every run, and gave nothing:
    the person's questions and the answers Warp kept were lost."""
    path = tmp_path / "home" / ".local" / "state" / "warp-terminal" / "warp.sqlite"
    path.parent.mkdir(parents=True)
    conn = sqlite3.connect(path)
    conn.executescript(OLDER_SCHEMA)

    def exchange(n: int, conversation: str, when: str, typed: str | None, answer: str | None,
                 status: str = '"Completed"') -> None:  # fmt: skip
        query = [{"Query": {"text": typed, "context": []}}] if typed else []
        row = (f"x{n}", conversation, when, json.dumps(query), "/home/dev/tide", status)
        conn.execute("INSERT INTO ai_queries (exchange_id, conversation_id, start_ts, input,"
                     " working_directory, output_status) VALUES (?, ?, ?, ?, ?, ?)",
                     row)  # fmt: skip
        if answer is not None:
            output = {"Received": {"output": [{"Text": {"text": answer}}], "canceled": False}}
            block = (f"x{n}", b"\x01" * 16, json.dumps(output))
            conn.execute("INSERT INTO ai_blocks (exchange_id, pane_leaf_uuid, output)"
                         " VALUES (?, ?, ?)", block)  # fmt: skip

    exchange(1, "c-tide", "2024-10-14 09:40:15.380006613", "how do I read the tide gauge log",
             "The gauge writes one line per reading to tide.log.")  # fmt: skip
    exchange(2, "c-tide", "2024-10-14 09:41:02.000000001", None, "Its third column is the level.")
    exchange(3, "c-tide", "2024-10-14 09:45:00.5", "plot the levels of the last week", None)
    exchange(4, "c-buoy", "2024-10-15 08:00:00", "why does the buoy light blink twice", None)
    conn.commit()
    conn.close()
    report = index(cli)
    assert [p for p in report["problems"] if "warp.sqlite" in p["path"]] == []
    tide = f"{file_id(path)}:c-tide"
    assert sorted(found(cli, "tide gauge log")) == [tide]
    read = cli.json("read", tide)
    assert [[(m["kind"], m["text"]) for m in t["messages"]] for t in read["turns"]] == [
        [("prompt", "how do I read the tide gauge log"),
         ("reply", "The gauge writes one line per reading to tide.log."),
         ("reply", "Its third column is the level.")],
        [("prompt", "plot the levels of the last week")],
    ]  # fmt: skip
    [hit] = hits(cli, "gauge")
    assert hit["session"]["cwd"] == "/home/dev/tide"
    assert hit["session"]["started"] == "2024-10-14T09:40:15.380Z"
    assert found(cli, "buoy light blink") == [f"{file_id(path)}:c-buoy"]
    assert index(cli)["files_read"] == 0
