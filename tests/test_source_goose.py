"""Goose's `sessions.db`, through the real CLI: read while Goose holds it open and never
written, only the sessions that changed read again, subagents linked, titles, and
`goose session --resume --session-id`.

The database is built in the test (`goose_store.py`) from the documented schema, not
copied from a real one: a session with thinking, a tool call answered in the next user
message and an injected message the person never saw; one still under Goose's
placeholder name; and a subagent session naming its parent.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI
from goose_store import FIRST_SCHEMA, GooseStore, text, thinking, tool_request, tool_response

from findsession.sources.foreign_db import line_of
from findsession.sources.goose import file_id

FERRY, LIGHT, FOG = "20251108_1", "20251108_2", "20251108_3"


@pytest.fixture
def place(cli: CLI, tmp_path: Path) -> Path:
    """Goose's standard sessions folder under the CLI's home."""
    for name in ("XDG_DATA_HOME", "GOOSE_PATH_ROOT"):
        cli.env.pop(name, None)
    return tmp_path / "home" / ".local" / "share" / "goose" / "sessions"


@pytest.fixture
def goose(place: Path) -> Iterator[GooseStore]:
    """The store with its three sessions; Goose keeps it open while the test runs."""
    store = GooseStore(place / "sessions.db")
    store.session(FERRY, "/home/dev/ferry times", "Harbour ferry timetable scraper")
    store.message(FERRY, "user", text("Scrape the harbour ferry timetable into a calendar feed"))
    store.message(
        FERRY,
        "assistant",
        thinking("The timetable is an HTML table with one row per sailing."),
        text("I will read the scraper first."),
        tool_request("call_1", "developer__text_editor", command="view", path="/srv/scrape.py"),
    )
    store.message(FERRY, "user", tool_response("call_1", "Kelp Island departs 07:15 and 16:40"))
    store.message(FERRY, "assistant", text("The feed now lists every sailing of the harbour."))
    store.message(FERRY, "user", text("Injected context: quokka reminder"), visible=False)
    store.session(LIGHT, "/home/dev/lighthouse", "CLI Session")
    store.message(LIGHT, "user", text("Why does the lighthouse keeper log skip leap days?"))
    store.message(LIGHT, "assistant", text("Its date parser assumes every year has 365 days."))
    store.session(FOG, "/home/dev/ferry times", "Fog check", session_type="sub_agent",
                  parent_session_id=FERRY)  # fmt: skip
    store.message(FOG, "user", text("List every sailing cancelled for fog in March"))
    store.message(FOG, "assistant", text("Three sailings were cancelled for fog."))
    yield store
    store.close()


def sid(store: GooseStore, key: str) -> str:
    return f"{file_id(store.path)}:{key}"


def hits(cli: CLI, query: str) -> list[dict[str, Any]]:
    return cli.json("search", "--mode", "keyword", "--source", "goose", query)["results"]


def found(cli: CLI, query: str) -> list[str]:
    return [h["session"]["id"] for h in hits(cli, query)]


def index(cli: CLI) -> dict[str, Any]:
    return cli.json("index", "--no-embed")


def on_disk(store: GooseStore) -> bytes:
    """The database and its write-ahead log (a reader keeps the `-shm` index current: that
    file is shared memory, not the data)."""
    files = [store.path, store.path.with_name("sessions.db-wal")]
    return hashlib.sha256(b"".join(p.read_bytes() for p in files if p.exists())).digest()


def test_the_standard_place_is_read_and_an_unchanged_store_costs_nothing(
    cli: CLI, goose: GooseStore, place: Path
) -> None:
    before = on_disk(goose)
    report = index(cli)
    assert str(place) in report["roots"] and report["errors"] == []
    assert report["files_read"] == 1 and report["lines_read"] == 9
    assert on_disk(goose) == before  # Goose's files, byte for byte
    listed = {s["kind"]: s for s in cli.json("sources")["sources"]}["goose"]
    assert (listed["files"], listed["sessions"], listed["subagents"]) == (1, 2, 1)
    assert index(cli)["files_read"] == 0


def test_a_session_gives_its_title_folder_prompts_replies_and_tools(
    cli: CLI, goose: GooseStore
) -> None:
    index(cli)
    session = hits(cli, "harbour ferry timetable calendar")[0]["session"]
    assert session["id"] == sid(goose, FERRY) and session["turns"] == 1
    assert session["title"] == "Harbour ferry timetable scraper"
    assert session["cwd"] == "/home/dev/ferry times" and not session["subagent"]
    assert found(cli, "Kelp Island departs") == [sid(goose, FERRY)]  # a tool's output
    assert found(cli, "quokka") == []  # Goose's injected message, never shown
    messages = cli.json("read", sid(goose, FERRY), "--tools")["turns"][0]["messages"]
    assert [(m["kind"], m["tool"]) for m in messages] == [
        ("prompt", None),
        ("thinking", None),
        ("reply", None),
        ("tool_call", "developer__text_editor"),
        ("tool_output", "developer__text_editor"),
        ("reply", None),
    ]
    raw = cli.json("read", sid(goose, FERRY), "--raw")
    assert raw["turns"] == cli.json("read", sid(goose, FERRY))["turns"]
    light = hits(cli, "lighthouse keeper leap days")[0]["session"]
    assert light["title"].startswith("Why does the lighthouse keeper")  # not "CLI Session"


def test_a_subagent_is_linked_and_resumes_the_session_that_started_it(
    cli: CLI, goose: GooseStore
) -> None:
    index(cli)
    [hit] = [h for h in hits(cli, "cancelled for fog") if h["session"]["subagent"]]
    assert hit["session"]["id"] == sid(goose, FOG)
    assert hit["session"]["subagent"] and hit["session"]["parent_id"] == sid(goose, FERRY)
    assert hit["session"]["title"] == "Fog check"  # the parent link took the title's line
    assert hit["resume"]["command"] == ["goose", "session", "--resume", "--session-id", FERRY]
    assert hit["resume"]["cwd"] == "/home/dev/ferry times"
    own = hits(cli, "lighthouse leap days")[0]["resume"]
    assert own["command"] == ["goose", "session", "--resume", "--session-id", LIGHT]


def test_only_the_session_goose_changed_is_read_again(cli: CLI, goose: GooseStore) -> None:
    index(cli)
    goose.message(LIGHT, "user", text("Also log the solar eclipse of next April"))
    assert goose.path.with_name("sessions.db-wal").stat().st_size > 0  # not checkpointed
    before = on_disk(goose)
    report = index(cli)
    assert report["files_read"] == 1 and report["lines_read"] == 3  # that session's rows
    assert on_disk(goose) == before
    assert found(cli, "solar eclipse") == [sid(goose, LIGHT)]
    assert found(cli, "Kelp Island") == [sid(goose, FERRY)]
    goose.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # new bytes, the same sessions
    report = index(cli)
    assert report["files_read"] == 0 and report["lines_read"] == 0


def test_a_replaced_conversation_and_a_new_name(cli: CLI, goose: GooseStore) -> None:
    index(cli)
    goose.replace_conversation(
        FERRY,
        [
            ("user", [text("Scrape the ferry timetable into an iCal feed")]),
            ("assistant", [text("The iCal feed has one event per crossing.")]),
        ],
    )
    goose.rename(FERRY, "Ferry iCal feed", by_user=True)
    index(cli)
    assert found(cli, "Kelp Island") == []  # the old messages went with their rows
    hit = hits(cli, "iCal crossing")[0]["session"]
    assert hit["id"] == sid(goose, FERRY) and hit["title"] == "Ferry iCal feed"
    assert cli.json("read", sid(goose, FERRY))["total_turns"] == 1


def test_a_locked_store_is_reported_in_one_line_and_read_next_run(cli: CLI, place: Path) -> None:
    store = GooseStore(place / "sessions.db", journal="delete")
    store.session(LIGHT, "/home/dev/lighthouse", "Lighthouse log")
    store.message(LIGHT, "user", text("Why does the lighthouse keeper log skip leap days?"))
    store.conn.execute("BEGIN EXCLUSIVE")
    store.message(LIGHT, "assistant", text("half written"))
    report = index(cli)
    [error] = report["errors"]
    assert error["path"] == str(store.path) and "locked" in error["error"]
    store.conn.execute("ROLLBACK")
    assert index(cli)["files_read"] == 1
    assert found(cli, "lighthouse keeper") == [sid(store, LIGHT)]
    store.close()


def test_forgotten_stays_forgotten_and_a_secret_is_never_stored(
    cli: CLI, goose: GooseStore, db_path: Path
) -> None:
    token = "ghp_R8sT2vW5yZ1aB4cD7eF0gH3iJ6kL9mN2oP5q"
    goose.message(FERRY, "user", text(f"Use the token {token} for the timetable API"))
    index(cli)
    assert found(cli, token) == []
    index_bytes = b"".join(p.read_bytes() for p in db_path.parent.iterdir() if p.is_file())
    assert token.encode() not in index_bytes
    cli.run("forget", sid(goose, LIGHT))
    goose.message(LIGHT, "assistant", text("The leap day fix is in the lighthouse parser."))
    goose.message(FERRY, "assistant", text("Noted, the timetable API token is set."))
    index(cli)
    assert found(cli, "lighthouse") == []
    assert found(cli, "timetable API token") == [sid(goose, FERRY)]


def test_a_broken_row_and_a_database_that_is_not_goose_s(
    cli: CLI, goose: GooseStore, tmp_path: Path
) -> None:
    goose.message(LIGHT, "assistant", raw='[{"type": "text", "text": "cut off')
    report = index(cli)
    [problem] = report["problems"]
    assert (problem["line"], problem["reason"]) == (line_of(2, 3), "malformed JSON")
    assert found(cli, "365 days") == [sid(goose, LIGHT)]  # its other rows stay
    elsewhere = tmp_path / "root" / "data" / "sessions" / "sessions.db"
    other = GooseStore(elsewhere, schema="CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);")
    cli.env["GOOSE_PATH_ROOT"] = str(tmp_path / "root")
    report = index(cli)
    assert report["errors"] == []
    assert [p["reason"] for p in report["problems"]] == ["not a Goose session store"]
    other.close()


def test_the_first_database_schema_is_read_too(cli: CLI, place: Path) -> None:
    store = GooseStore(place / "sessions.db", schema=FIRST_SCHEMA)
    store.session("20250901_1", "/home/dev/orchard", description="Orchard frost alarm")
    store.message("20250901_1", "user", text("Wire the orchard frost alarm to the pager"))
    index(cli)
    hit = hits(cli, "orchard frost pager")[0]["session"]
    assert hit["id"] == sid(store, "20250901_1") and hit["title"] == "Orchard frost alarm"
    store.close()


def test_a_machine_without_goose_hears_nothing_of_it(cli: CLI, tmp_path: Path) -> None:
    cli.env["GOOSE_PATH_ROOT"] = str(tmp_path / "no-goose")
    proc = cli.run("index", "--no-embed")
    said = proc.stdout + proc.stderr
    assert "no-goose" not in said and "sessions.db" not in said
    listed = {s["kind"]: s for s in cli.json("sources")["sources"]}["goose"]
    assert listed["enabled"] and listed["sessions"] == 0
    assert listed["roots"] == [
        {"path": str(tmp_path / "no-goose" / "data" / "sessions"), "exists": False}
    ]
