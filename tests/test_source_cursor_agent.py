"""cursor-agent transcripts: found under `~/.cursor/projects`, searched, read back, kept
up to date, through the real CLI.

The fixture (`fixtures/cursor-agent/home/.cursor`), written from the documented format,
holds one project folder with a JSONL session in its own folder (injected `<user_info>`
around the typed `<user_query>`, thinking, a tool call and its result, a redacted
block, a malformed line), that session's subagent, an older `.txt` session, a stale
`.txt` twin of the JSONL session, a terminal log outside `agent-transcripts`, and the
session's title in `chats/<hash>/<id>/meta.json`. The chats' own `store.db` files (a
`meta` row of hex JSON) are built in the tests, from the documented format.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI

FIXTURE = Path(__file__).parent / "fixtures" / "cursor-agent" / "home" / ".cursor"
TENSION = "5b0e7c3d-2f41-4a9e-8c16-9d3e0a7b1f52"
CALLERS = "e8a4c2f0-6d13-4b7a-9f25-1c0b3d8e7a64"
VALVE = "9c2f4e1a-7b35-4d8c-a061-3e5f2b9d0c18"


@pytest.fixture
def cursor_home(cli: CLI) -> Path:
    """A copy of the fixture in the CLI's home folder, the agent's standard place."""
    home = Path(cli.env["HOME"]) / ".cursor"
    shutil.copytree(FIXTURE, home)
    return home


def transcripts(cursor_home: Path) -> Path:
    return cursor_home / "projects" / "home-dev-trellis" / "agent-transcripts"


def line(role: str, text: str) -> str:
    return json.dumps({"role": role, "message": {"content": [{"type": "text", "text": text}]}})


def hits(cli: CLI, query: str) -> list[dict[str, Any]]:
    return cli.json("search", "--mode", "keyword", "--source", "cursor-agent", query)["results"]


def found(cli: CLI, query: str) -> list[str]:
    return [h["session"]["id"] for h in hits(cli, query)]


def test_the_standard_place_is_indexed_and_a_prompt_found(cli: CLI, cursor_home: Path) -> None:
    report = cli.json("index", "--no-embed")
    assert str(cursor_home / "projects") in report["roots"]
    # The JSONL session, its subagent and the `.txt` session; not the `.txt` twin of the
    # JSONL session, not the terminal log.
    assert report["files_read"] == 3 and report["errors"] == []
    listed = {s["kind"]: s for s in cli.json("sources")["sources"]}["cursor-agent"]
    assert (listed["files"], listed["sessions"], listed["subagents"]) == (3, 2, 1)
    assert found(cli, "compost") == [] and found(cli, "sprinkler") == []

    hit = hits(cli, "trellis wire tension load cell")[0]
    session = hit["session"]
    assert session["id"] == TENSION and session["turns"] == 2
    assert session["title"] == "Trellis tension sensor calibration"  # chats/…/meta.json
    assert session["cwd"] == "/home/dev/trellis"  # the injected workspace path
    assert session["started"]  # the file's time: the transcript records none
    assert hit["resume"]["command"] == ["cursor-agent", "--resume", TENSION]
    assert cli.json("index", "--no-embed")["files_read"] == 0  # unchanged: a stat each


def test_read_shows_the_typed_query_not_what_was_injected(cli: CLI, cursor_home: Path) -> None:
    report = cli.json("index", "--no-embed")
    path = transcripts(cursor_home) / TENSION / f"{TENSION}.jsonl"
    assert [(p["path"], p["line"], p["reason"]) for p in report["problems"]] == [
        (str(path), 4, "malformed JSON")
    ]
    turns = cli.json("read", TENSION, "--tools")["turns"]
    first = [(m["kind"], m["tool"], m["text"]) for m in turns[0]["messages"]]
    assert first[0] == (
        "prompt",
        None,
        "Calibrate the trellis wire tension sensor against the load cell",
    )
    assert [k for k, _, _ in first] == [
        "prompt",
        "thinking",
        "reply",
        "tool_call",
        "tool_output",
        "reply",
    ]
    assert first[3] == ("tool_call", "read_file", "path: /home/dev/trellis/src/calibrate.py")
    everything = " ".join(m["text"] for t in turns for m in t["messages"])
    assert "REDACTED" not in everything and "user_info" not in everything
    assert found(cli, "linux Shell bash") == []  # the injected context is not searchable
    raw = cli.run("read", TENSION, "--raw").stdout
    assert "Calibrate the trellis wire tension sensor against the load cell" in raw


def test_a_subagent_is_linked_to_the_session_that_started_it(cli: CLI, cursor_home: Path) -> None:
    cli.run("index", "--no-embed")
    hit = hits(cli, "nightly tensioner greenhouse dashboard")[0]
    child = hit["session"]
    assert child["id"] == CALLERS and child["subagent"] and child["parent_id"] == TENSION
    assert child["cwd"] == "/home/dev/trellis"  # the workspace its parent's transcript names
    assert hit["resume"]["command"] == ["cursor-agent", "--resume", TENSION]


def test_an_older_txt_transcript_is_read_with_its_thinking_and_tools(
    cli: CLI, cursor_home: Path
) -> None:
    cli.run("index", "--no-embed")
    hit = hits(cli, "irrigation valve chatter pressure")[0]
    assert hit["session"]["id"] == VALVE and hit["session"]["turns"] == 2
    assert hit["session"]["cwd"] is None  # its project folder names no folder here
    turns = cli.json("read", VALVE, "--tools")["turns"]
    first = [(m["kind"], m["tool"], m["text"]) for m in turns[0]["messages"]]
    thought = "The solenoid may lack a flyback diode.\nCheck the driver board revision too."
    said = (
        "Let me look at the valve driver.\n"
        "The driver toggles on every PWM edge, so low pressure makes the valve chatter."
    )
    assert first == [
        ("prompt", None, "Why does the irrigation valve chatter when the pressure drops?"),
        ("thinking", None, thought),
        ("reply", None, said),
        ("tool_call", "read_file", "path: firmware/valve_driver.c\nlimit: 40"),
        ("tool_output", None, "31: gpio_write(VALVE, duty > 0);"),
    ]
    raw = cli.json("read", VALVE, "--raw")["turns"][1]["messages"]
    assert raw[0]["text"] == "Add hysteresis to the valve driver"

    # Rewritten in place: read whole again, nothing doubled.
    path = transcripts(cursor_home) / f"{VALVE}.txt"
    path.write_text(
        path.read_text() + "\nuser:\n<user_query>Log each valve cycle</user_query>\n\n"
        "assistant:\nEvery cycle now goes to valve.log.\n"
    )
    assert cli.json("index", "--no-embed")["files_read"] == 1
    assert found(cli, "valve cycle log")[0] == VALVE
    assert cli.json("read", VALVE)["total_turns"] == 3


def test_a_grown_transcript_is_read_on_from_where_it_stopped(cli: CLI, cursor_home: Path) -> None:
    cli.run("index", "--no-embed")
    path = transcripts(cursor_home) / TENSION / f"{TENSION}.jsonl"
    added = (
        line("user", "<user_query>Also clamp the tension to the rated range</user_query>")
        + "\n"
        + line("assistant", "Clamped between 20 and 180 newtons.")
        + "\n"
    ).encode()
    with path.open("ab") as fh:
        fh.write(added)
    report = cli.json("index", "--no-embed")
    assert report["files_read"] == 1 and report["bytes_read"] == len(added)
    assert report["problems"] == []  # the malformed line is behind the cursor
    hit = hits(cli, "clamp tension rated range")[0]
    assert hit["session"]["id"] == TENSION and hit["match"]["turn"] == 3
    assert hit["session"]["title"] == "Trellis tension sensor calibration"


def test_the_project_folder_name_is_settled_by_the_folders_that_exist(
    cli: CLI, cursor_home: Path, tmp_path: Path
) -> None:
    """`my-app.v2` and `my/app-v2` encode alike; only the folder that exists is taken,
    after a wrong turn into `my/`."""
    project = tmp_path / "src" / "my-app.v2"
    project.mkdir(parents=True)
    (tmp_path / "src" / "my").mkdir()
    encoded = str(project).lstrip("/").replace("/", "-").replace(".", "-")
    folder = cursor_home / "projects" / encoded / "agent-transcripts"
    folder.mkdir(parents=True)
    (folder / "0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0.jsonl").write_text(
        line("user", "<user_query>Bump the greenhouse firmware version</user_query>") + "\n"
    )
    cli.run("index", "--no-embed")
    hit = hits(cli, "bump greenhouse firmware")[0]
    assert hit["session"]["cwd"] == str(project)


def test_a_machine_without_cursor_agent_hears_nothing_of_it(cli: CLI) -> None:
    proc = cli.run("index", "--no-embed")
    said = proc.stdout + proc.stderr
    assert "cursor-agent" not in said and ".cursor" not in said
    listed = {s["kind"]: s for s in cli.json("sources")["sources"]}["cursor-agent"]
    assert listed["enabled"] and listed["sessions"] == 0
    home = Path(cli.env["HOME"]) / ".cursor"
    assert listed["roots"] == [
        {"path": str(home / "projects"), "exists": False},
        {"path": str(home / "chats"), "exists": False},  # chats kept only in their store
    ]


def chat_store(
    cursor_home: Path, session_id: str, workspace: str = "/home/dev/trellis", **meta: Any
) -> sqlite3.Connection:
    """cursor-agent's `chats/<md5 of the folder>/<id>/store.db`, held open in WAL mode as
    the running agent holds it; its `meta` row `'0'` is the chat's JSON in hex."""
    digest = hashlib.md5(workspace.encode()).hexdigest()
    folder = cursor_home / "chats" / digest / session_id
    folder.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(folder / "store.db", isolation_level=None)
    conn.execute("PRAGMA journal_mode = wal")
    conn.execute("PRAGMA wal_autocheckpoint = 0")
    conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
    conn.execute("CREATE TABLE blobs (id TEXT PRIMARY KEY, data BLOB)")
    value = json.dumps({"agentId": session_id, "mode": "default", **meta}).encode().hex()
    conn.execute("INSERT INTO meta (key, value) VALUES ('0', ?)", (value,))
    return conn


def test_the_chat_store_gives_title_and_start_time_and_is_never_written(
    cli: CLI, cursor_home: Path
) -> None:
    valve = chat_store(cursor_home, VALVE, name="Valve chatter fix", createdAt=1781256145540)
    tension = chat_store(cursor_home, TENSION, name="New Agent", createdAt="1781000000000")
    fresh = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
    path = transcripts(cursor_home) / f"{fresh}.jsonl"
    path.write_text(line("user", "<user_query>Prune the espalier pear</user_query>") + "\n")
    unnamed = chat_store(cursor_home, fresh, name="New Agent", createdAt=1781100000000)
    # The database and its write-ahead log; `-shm` is the readers' shared memory, which
    # every reader of a WAL database marks.
    stores = sorted(p for p in (cursor_home / "chats").rglob("store.db*") if p.suffix != ".db-shm")
    before = [hashlib.sha256(p.read_bytes()).hexdigest() for p in stores]
    cli.run("index", "--no-embed")
    old = hits(cli, "valve chatter pressure")[0]["session"]
    assert old["id"] == VALVE and old["title"] == "Valve chatter fix"
    assert old["started"] == "2026-06-12T09:22:25.540Z"  # the store's createdAt
    named = hits(cli, "trellis wire tension load cell")[0]["session"]
    assert named["title"] == "Trellis tension sensor calibration"  # meta.json's, not the store's
    assert named["started"] == "2026-06-09T10:13:20.000Z"
    assert hits(cli, "espalier pear")[0]["session"]["title"] == "Prune the espalier pear"
    assert [hashlib.sha256(p.read_bytes()).hexdigest() for p in stores] == before
    for conn in (valve, tension, unnamed):
        conn.close()


def test_a_txt_result_line_names_its_tool_and_arguments_keep_their_equals(
    cli: CLI, cursor_home: Path
) -> None:
    """Real `.txt` transcripts write `key: value` arguments and a `[Tool result] <name>`
    line with no body when the result was not kept: the name is no output, and a value
    holding `=` is not split at it."""
    sid = "2d7a9e41-0c3b-4f58-9a16-5e8b7c1d0f23"
    (transcripts(cursor_home) / f"{sid}.txt").write_text(
        "user:\n<user_query>\nrun the greenhouse tests with the debug flag\n</user_query>\n\n"
        "assistant:\n[Thinking] **Running the tests**\n[Tool call] Shell\n"
        "  command: GREENHOUSE_DEBUG=1 npm test\n  description: Run tests\n\n"
        "[Tool result] Shell\n\nassistant:\nThe tests pass with the debug flag on.\n"
    )
    cli.run("index", "--no-embed")
    messages = cli.json("read", sid, "--tools")["turns"][0]["messages"]
    shown = [(m["kind"], m["tool"], m["text"]) for m in messages]
    assert (
        "tool_call",
        "Shell",
        "command: GREENHOUSE_DEBUG=1 npm test\ndescription: Run tests",
    ) in shown
    assert not [m for m in messages if m["kind"] == "tool_output"]


def blob_store(
    cursor_home: Path, session_id: str, messages: list[dict[str, Any]], workspace: str = "/x"
) -> None:
    """A chat as cursor-agent builds of 2025 kept it, in its `store.db` alone (no
    transcript): each message a JSON blob named by its SHA-256, and the chat's root blob,
    which `latestRootBlobId` names, listing them in order (protocol buffers, field 1)."""
    conn = chat_store(cursor_home, session_id, workspace, name="Greenhouse vents")
    ids = []
    for message in messages:
        data = json.dumps(message).encode()
        ids.append(hashlib.sha256(data).digest())
        conn.execute("INSERT INTO blobs VALUES (?, ?)", (ids[-1].hex(), data))
    root = b"".join(b"\x0a\x20" + i for i in ids) + b"\x12\x03abc"
    root_id = hashlib.sha256(root).hexdigest()
    conn.execute("INSERT INTO blobs VALUES (?, ?)", (root_id, root))
    value = json.dumps({"agentId": session_id, "latestRootBlobId": root_id,
                        "name": "Greenhouse vents", "createdAt": 1754610971756})  # fmt: skip
    conn.execute("UPDATE meta SET value = ? WHERE key = '0'", (value.encode().hex(),))
    conn.close()


def test_a_chat_kept_only_in_its_store_is_a_session(cli: CLI, cursor_home: Path) -> None:
    """Builds before transcripts kept a chat in its `store.db` only: it is read from
    there, and a store whose chat has a transcript is left to the transcript."""
    chat = "3d8e1f20-5a6b-4c7d-8e9f-0a1b2c3d4e5f"
    blob_store(cursor_home, chat, [
        {"role": "system", "content": "You are an AI coding assistant."},
        {"role": "user", "content": [{"type": "text", "text":
            "<user_info>\nWorkspace Path: /home/dev/greenhouse\n</user_info>\n"
            "<user_query>why do the roof vents stick open at noon</user_query>"}]},
        {"id": "a1", "role": "assistant", "content": [
            {"type": "reasoning", "text": "The actuator may overheat.", "signature": "{}"},
            {"type": "text", "text": "Let me read the vent controller."},
            {"type": "tool-call", "toolCallId": "call_1", "toolName": "Read",
             "args": {"target_file": "/home/dev/greenhouse/vents.py"}}]},
        {"role": "tool", "id": "t1", "content": [
            {"type": "tool-result", "toolCallId": "call_1", "toolName": "Read",
             "result": "VENT_LIMIT_CELSIUS = 31  # thermal cutoff"}]},
        {"id": "a2", "role": "assistant", "content": [
            {"type": "reasoning", "text": ""},
            {"type": "text", "text": "The thermal cutoff latches the vents open."}]},
        {"role": "user", "content": [{"type": "text", "text": "raise the cutoff to forty"}]},
        {"id": "a3", "role": "assistant", "content": "Raised the cutoff to forty."},
    ])  # fmt: skip
    blob_store(cursor_home, TENSION, [{"role": "user", "content": "a stale copy of the chat"}])
    cli.run("index", "--no-embed")
    listed = {s["kind"]: s for s in cli.json("sources")["sources"]}["cursor-agent"]
    assert (listed["files"], listed["sessions"]) == (4, 3)
    assert found(cli, "stale copy") == []

    session = hits(cli, "roof vents stick open at noon")[0]["session"]
    assert session["id"] == chat and session["title"] == "Greenhouse vents"
    assert session["cwd"] == "/home/dev/greenhouse" and session["turns"] == 2
    assert session["started"] == "2025-08-07T23:56:11.756Z"
    turns = cli.json("read", chat, "--tools")["turns"]
    assert [[(m["kind"], m["tool"]) for m in t["messages"]] for t in turns] == [
        [("prompt", None), ("thinking", None), ("reply", None), ("tool_call", "Read"),
         ("tool_output", None), ("reply", None)],
        [("prompt", None), ("reply", None)],
    ]  # fmt: skip
    assert turns[0]["messages"][0]["text"] == "why do the roof vents stick open at noon"
    assert "VENT_LIMIT_CELSIUS" in turns[0]["messages"][4]["text"]
    assert cli.json("read", chat, "--raw")["turns"] == cli.json("read", chat)["turns"]
    assert cli.json("index", "--no-embed")["files_read"] == 0

    # No `Workspace Path:`: the folder whose MD5 names the chat's folder, among the paths
    # its tool calls name and their parents.
    other = "7e6d5c4b-3a29-4180-9f7e-6d5c4b3a2918"
    blob_store(cursor_home, other, [
        {"role": "user", "content": "list the drip emitters"},
        {"id": "a1", "role": "assistant", "content": [
            {"type": "tool-call", "toolCallId": "c1", "toolName": "LS",
             "args": {"target_directory": "/srv/orchard/irrigation/emitters/"}}]},
    ], workspace="/srv/orchard")  # fmt: skip
    cli.run("index", "--no-embed")
    assert hits(cli, "drip emitters")[0]["session"]["cwd"] == "/srv/orchard"

    # A later build writes the chat's transcript too: the chat is the transcript's now,
    # one session under its id, not the store's and a second one beside it.
    path = transcripts(cursor_home) / f"{chat}.jsonl"
    path.write_text(line("user", "<user_query>why do the roof vents stick open</user_query>\n"))
    cli.run("index", "--no-embed")
    assert [h["session"]["id"] for h in hits(cli, "roof vents stick open")] == [chat]
    assert cli.json("read", chat)["session"]["turns"] == 1
