"""OpenCode's older JSON tree (`storage/session|message|part/`), through the real CLI: a
session read whole when one of its files changed, a file caught half written read again
on the next run, and a session the database beside the tree also holds indexed once,
from the database.

The fixture (`fixtures/opencode/storage`) is written from the documented layout: a
session with a synthetic text part, thinking, a finished and a failed tool call and a
part of a kind not known here; a subagent session with OpenCode's placeholder title;
and a session with a placeholder title in another project folder.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI
from opencode_store import OpenCodeStore

FIXTURE = Path(__file__).parent / "fixtures" / "opencode" / "storage"
TIDES = "ses_5a1f00000001TidechartParser"
CHILD = "ses_5a1f00000002ChildSession"
LAMP = "ses_5a1f00000003LighthouseLamp"


@pytest.fixture
def data(cli: CLI, tmp_path: Path) -> Path:
    """OpenCode's data folder in its standard place, holding the tree and no store."""
    cli.env.pop("XDG_DATA_HOME", None)
    folder = tmp_path / "home" / ".local" / "share" / "opencode"
    shutil.copytree(FIXTURE, folder / "storage")
    return folder


def hits(cli: CLI, query: str) -> list[dict[str, Any]]:
    return cli.json("search", "--mode", "keyword", "--source", "opencode", query)["results"]


def found(cli: CLI, query: str) -> list[str]:
    return [h["session"]["id"].split(":", 1)[1] for h in hits(cli, query)]


def index(cli: CLI) -> dict[str, Any]:
    return cli.json("index", "--no-embed")


def add_message(data: Path, session: str, message: str, role: str, text: str) -> Path:
    """A message file and its one text part, as OpenCode before 1.2 wrote them."""
    folder = data / "storage" / "message" / session
    doc = {"id": message, "sessionID": session, "role": role, "time": {"created": 1762170000000}}
    (folder / f"{message}.json").write_text(json.dumps(doc))
    part = data / "storage" / "part" / message / f"prt_9{message[4:]}.json"
    part.parent.mkdir(parents=True, exist_ok=True)
    part.write_text(
        json.dumps({"id": part.stem, "messageID": message, "type": "text", "text": text})
    )
    return part


def test_the_tree_gives_sessions_turns_subagents_and_titles(cli: CLI, data: Path) -> None:
    report = index(cli)
    assert report["files_read"] == 3 and report["errors"] == []
    [problem] = report["problems"]
    assert (problem["reason"], problem["detail"]) == ("unknown part kind", "hologram (1 part)")
    hit = hits(cli, "harbour tide chart high low water")[0]
    session = hit["session"]
    assert session["id"].endswith(":" + TIDES) and session["title"] == "Tide chart parser"
    assert session["cwd"] == "/home/dev/tidepool"
    assert hit["resume"]["command"] == ["opencode", "--session", TIDES]
    assert found(cli, "brinewatch") == [TIDES]  # a failed tool's error
    messages = cli.json("read", session["id"], "--tools")["turns"][0]["messages"]
    assert [(m["kind"], m["tool"]) for m in messages] == [
        ("prompt", None),
        ("thinking", None),
        ("tool_call", "read"),
        ("tool_output", "read"),
        ("tool_call", "bash"),
        ("tool_output", "bash"),
        ("reply", None),
    ]  # the synthetic part ("Called the Read tool ...") is OpenCode's, not the person's
    assert (
        cli.json("read", session["id"], "--raw")["turns"]
        == cli.json("read", session["id"])["turns"]
    )
    child = hits(cli, "barometer offset")[0]["session"]
    assert child["subagent"] and child["parent_id"] == session["id"]
    assert child["title"] == "Find every place that reads the barometer offset"
    lamp = hits(cli, "lighthouse lamp rotation")[0]["session"]
    assert lamp["title"].startswith("Why does the lighthouse lamp")
    assert lamp["cwd"] == "/home/dev/lighthouse"


def test_a_new_message_is_read_and_a_half_written_file_waits_for_the_next_run(
    cli: CLI, data: Path
) -> None:
    index(cli)
    assert index(cli)["files_read"] == 0
    add_message(data, TIDES, "msg_5a1f00000103", "user", "Now add the spring tide flag")
    report = index(cli)
    assert report["files_read"] == 1 and report["sessions_changed"] == 1
    assert found(cli, "spring tide flag") == [TIDES]
    tides = hits(cli, "spring tide flag")[0]["session"]["id"]
    assert cli.json("read", tides)["total_turns"] == 2  # nothing read twice
    part = add_message(
        data, TIDES, "msg_5a1f00000104", "assistant", "Spring tides get a semaphore pennant."
    )
    whole = part.read_text()
    part.write_text(whole[:30])  # OpenCode is still writing it
    report = index(cli)
    [error] = report["errors"]
    assert "half written" in error["error"]
    assert found(cli, "semaphore pennant") == [] and found(cli, "harbour tide chart")
    part.write_text(whole)
    assert index(cli)["files_read"] == 1
    assert found(cli, "semaphore pennant") == [TIDES]


def test_a_session_the_database_also_holds_is_indexed_once_from_the_database(
    cli: CLI, data: Path
) -> None:
    index(cli)  # the tree alone, as before OpenCode 1.2
    tides = hits(cli, "harbour tide chart")[0]["session"]["id"]
    cli.run("forget", tides)
    # OpenCode 1.2 copies the tree into its store and goes on there; the tree stays.
    db = OpenCodeStore(data / "opencode.db")
    db.project("/home/dev/lighthouse")
    db.session(LAMP, "/home/dev/lighthouse", "Lighthouse lamp timer")
    db.turn(LAMP, "Why does the lighthouse lamp rotation timer drift?", "A fixed sleep.")
    db.turn(LAMP, "Correct it against the clock", "The loop now sleeps until the next tick.")
    db.session(TIDES, "/home/dev/tidepool", "Tide chart parser")
    db.turn(TIDES, "Parse the harbour tide chart CSV", "Done.")
    report = index(cli)
    assert report["errors"] == []
    assert found(cli, "lighthouse lamp rotation") == [LAMP]  # once
    lamp = hits(cli, "lighthouse lamp rotation")[0]["session"]
    assert lamp["path"] == str(data / "opencode.db") and lamp["title"] == "Lighthouse lamp timer"
    assert cli.json("read", lamp["id"])["total_turns"] == 2
    # Forgotten from the tree (its subagent with it), still forgotten from the store.
    assert found(cli, "harbour tide chart") == [] and found(cli, "barometer offset") == []
    # A later change to a tree file the store holds gives nothing from the tree.
    [lamp_file] = (data / "storage" / "session").glob(f"*/{LAMP}.json")
    lamp_file.write_text(lamp_file.read_text().replace("08:00:00", "08:00:01"))
    index(cli)
    assert found(cli, "lighthouse lamp rotation") == [LAMP]
    assert hits(cli, "lighthouse lamp rotation")[0]["session"]["path"] == str(data / "opencode.db")
    db.close()


def test_a_read_files_attachment_and_an_aborted_message_as_opencode_1_1_wrote_them(
    cli: CLI, data: Path
) -> None:
    """Shaped after a real session of OpenCode 1.1.44 (its tree published in a home a
    person committed; none of its text here): in the `global` project, a user message
    with no `path`, a reply whose `read` of a PDF carries the file in
    `state.attachments` as a base64 data URL (1.4 MB there), then a message the person
    aborted (`error: MessageAbortedError`) holding only a step start and thinking, and
    (as in a second real session) an aborted message with no part at all. The session
    reads as one prompt, one reply, two thoughts, one call and its output, in
    the session's folder; the attached file's bytes are not indexed."""
    session, storage = "ses_5a1f00000004SpeakerNotes", data / "storage"
    blob = "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo"

    def put(path: Path, doc: dict[str, Any]) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(doc))

    put(storage / "project" / "global.json", {"id": "global", "worktree": "/"})
    put(
        storage / "session" / "global" / f"{session}.json",
        {
            "id": session,
            "version": "1.1.44",
            "projectID": "global",
            "directory": "/home/dev/deck",
            "title": "Speaker notes from the deck",
            "time": {"created": 1769826586949, "updated": 1769826596497},
        },
    )
    messages = {
        "msg_5a1f0000000401": {"role": "user", "agent": "plan"},
        "msg_5a1f0000000402": {
            "role": "assistant",
            "finish": "tool-calls",
            "path": {"cwd": "/home/dev/deck", "root": "/home/dev"},
        },
        "msg_5a1f0000000403": {
            "role": "assistant",
            "error": {
                "name": "MessageAbortedError",
                "data": {"message": "The operation was aborted."},
            },
            "path": {"cwd": "/home/dev/deck", "root": "/home/dev"},
        },
        "msg_5a1f0000000404": {  # aborted before its first part: no part folder at all
            "role": "assistant",
            "error": {"name": "MessageAbortedError", "data": {}},
        },
    }
    for n, (message, doc) in enumerate(messages.items()):
        put(
            storage / "message" / session / f"{message}.json",
            {"id": message, "sessionID": session, "time": {"created": 1769826587000 + n}} | doc,
        )
    parts = [
        ("msg_5a1f0000000401", {"type": "text", "text": "draft speaker notes from deck.pdf"}),
        ("msg_5a1f0000000402", {"type": "step-start", "snapshot": "5fac"}),
        ("msg_5a1f0000000402", {"type": "reasoning", "text": "plan mode, read the deck first"}),
        ("msg_5a1f0000000402", {"type": "text", "text": "Reading the deck first."}),
        (
            "msg_5a1f0000000402",
            {
                "type": "tool",
                "callID": "call_1",
                "tool": "read",
                "state": {
                    "status": "completed",
                    "input": {"filePath": "/home/dev/deck/deck.pdf"},
                    "output": "PDF read successfully",
                    "title": "deck/deck.pdf",
                    "attachments": [
                        {
                            "type": "file",
                            "mime": "application/pdf",
                            "url": f"data:application/pdf;base64,{blob}",
                        }
                    ],
                },
            },
        ),
        ("msg_5a1f0000000402", {"type": "step-finish", "reason": "tool-calls"}),
        ("msg_5a1f0000000403", {"type": "step-start", "snapshot": "5fac"}),
        ("msg_5a1f0000000403", {"type": "reasoning", "text": "aborted quokka musing"}),
    ]
    for n, (message, doc) in enumerate(parts):
        part = f"prt_5a1f00000004{n:02d}"
        put(
            storage / "part" / message / f"{part}.json",
            {"id": part, "sessionID": session, "messageID": message} | doc,
        )

    report = index(cli)
    assert report["errors"] == []
    assert [p for p in report["problems"] if session in p["path"]] == []
    read = cli.json("read", hits(cli, "speaker notes deck")[0]["session"]["id"], "--tools")
    kinds = [m["kind"] for t in read["turns"] for m in t["messages"]]
    assert sorted(kinds) == sorted(
        ["prompt", "thinking", "reply", "tool_call", "tool_output", "thinking"]
    )
    assert read["session"]["cwd"] == "/home/dev/deck"
    assert read["session"]["title"] == "Speaker notes from the deck"
    assert found(cli, "aborted quokka musing") == [session]
    assert found(cli, blob) == []
