"""Kiro CLI: its `data.sqlite3` read conversation by conversation while the CLI holds it
open, and its JSON-lines layout read on from a byte offset, through the real CLI.

The database is built by `kiro_store` in the documented shape of `conversations_v2`; the
JSON-lines fixture (`fixtures/kiro/sessions/cli`) was written from the documented format:
a session with a tool call and its result, a `Clear` line, a line of a kind not known
here and a last line still being written; and an older copy of a conversation the
database also holds. None of it is copied from a real store.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI, SHARED
from kiro_store import KiroStore, prompt, reply, results, tool_use

FIXTURE = Path(__file__).parent / "fixtures" / "kiro" / "sessions" / "cli"
ORCHARD = "f2946a26-3735-4b08-8d05-c928010302d5"
HIVE = "3b8d1f22-9c4e-4a7b-8e13-6f2a0c9d5e02"
VENT = "7c3e9a10-5b2d-4e8f-9a61-0d4b2c8e1f01"
SECRET = "ghp_" + "Z8xCv7Bn6Mq5Wl4Ek3Rt2Yu1Io9Pa0Sd8Fg7"


@pytest.fixture
def home(cli: CLI, tmp_path: Path) -> Path:
    cli.env.pop("XDG_DATA_HOME", None)
    return tmp_path / "home"


@pytest.fixture
def lines(home: Path) -> Path:
    place = home / ".kiro" / "sessions" / "cli"
    shutil.copytree(FIXTURE, place)
    return place


@pytest.fixture
def store(home: Path, lines: Path) -> Iterator[KiroStore]:
    db = KiroStore(home / ".local" / "share" / "kiro-cli" / "data.sqlite3")
    # Started in one directory, continued in another: the newer row is the conversation.
    db.put("/home/dev/old-dir", ORCHARD, [prompt("stale espalier pruning notes", "/home/dev")])
    db.put("/home/dev/orchard", ORCHARD, [
        {
            "user": prompt("How should the orchard irrigation skip rainy days?", "/home/dev"),
            "assistant": tool_use("m-1", "Checking the weather feed.",
                                  ("tu-1", "execute_bash", {"command": "curl weather.local/rain"})),
            "request_metadata": {"stream_end_timestamp_ms": 1_780_000_500_000},
        },
        {
            "user": results(("tu-1", "rain_mm=12 forecast drizzle")),
            "assistant": reply("m-2", "Skip watering when rain_mm exceeds five."),
        },
    ])  # fmt: skip
    db.put("/home/dev/apiary", HIVE, [
        {"user": prompt("Calibrate the beehive scale tare", "/home/dev/apiary"),
         "assistant": reply("m-3", "Tare it with the empty super on.")},
    ])  # fmt: skip
    db.put("/home/dev/apiary", "broken-1", "{not json")
    yield db
    db.close()


def index(cli: CLI, *args: str) -> dict[str, Any]:
    return cli.json("index", "--no-embed", *args)


def hits(cli: CLI, query: str) -> list[dict[str, Any]]:
    return cli.json("search", "--mode", "keyword", "--source", "kiro", query)["results"]


def found(cli: CLI, query: str) -> list[str]:
    return [h["session"]["id"].split(":")[-1] for h in hits(cli, query)]


def digest(db: Path) -> str:
    return "".join(
        hashlib.sha256(p.read_bytes()).hexdigest() for p in (db, Path(f"{db}-wal")) if p.exists()
    )


def test_the_database_and_the_lines_are_indexed(
    cli: CLI, store: KiroStore, lines: Path, home: Path
) -> None:
    before = digest(store.path)
    report = index(cli)
    assert {str(home / ".local/share/kiro-cli"), str(lines)} <= set(report["roots"])
    assert report["files_read"] == 3 and report["errors"] == []
    reasons = {p["reason"] for p in report["problems"]}
    assert {"malformed JSON", "unknown line kind"} <= reasons
    listed = {s["kind"]: s for s in cli.json("sources")["sources"]}["kiro"]
    assert (listed["files"], listed["sessions"]) == (3, 3)
    assert digest(store.path) == before

    orchard = hits(cli, "orchard irrigation rainy days")[0]["session"]
    assert orchard["id"].endswith(":" + ORCHARD) and orchard["cwd"] == "/home/dev/orchard"
    assert found(cli, "espalier") == []  # the older row of the same id
    assert found(cli, "drizzle") == [ORCHARD]  # a tool's result
    # The database wins over the older layout's copy of the same conversation.
    assert found(cli, "beehive scale tare") == [HIVE] and found(cli, "Outdated copy") == []
    vent = hits(cli, "greenhouse vent motor dawn")[0]["session"]
    assert vent["id"] == VENT and vent["title"] == "Vent motor stalls at dawn"
    assert vent["cwd"] == "/home/dev/greenhouse"
    assert index(cli)["files_read"] == 0


def test_read_shows_the_turns_and_raw_reads_them_back(cli: CLI, store: KiroStore) -> None:
    index(cli)
    orchard = hits(cli, "orchard irrigation")[0]["session"]["id"]
    turn = cli.json("read", orchard, "--tools")["turns"][0]
    assert [(m["kind"], m["tool"]) for m in turn["messages"]] == [
        ("prompt", None),
        ("reply", None),
        ("tool_call", "execute_bash"),
        ("tool_output", "execute_bash"),
        ("reply", None),
    ]
    assert turn["timestamp"] == "2026-05-28T17:00:00.000Z"  # the prompt's offset, in UTC
    vent = cli.json("read", VENT, "--tools")["turns"][0]["messages"]
    assert [(m["kind"], m["tool"]) for m in vent] == [
        ("prompt", None),
        ("reply", None),
        ("tool_call", "fs_read"),
        ("tool_output", "fs_read"),
        ("reply", None),
    ]
    for sid in (orchard, VENT):
        assert cli.json("read", sid, "--raw")["turns"] == cli.json("read", sid)["turns"]


def test_kiro_cli_resumes_a_conversation_by_its_id(cli: CLI, store: KiroStore) -> None:
    index(cli)
    resume = hits(cli, "orchard irrigation")[0]["resume"]
    assert resume["command"] == ["kiro-cli", "chat", "--resume-id", ORCHARD]
    assert resume["cwd"] == "/home/dev/orchard"
    assert hits(cli, "vent motor")[0]["resume"]["command"][-1] == VENT


def test_only_the_changed_conversation_and_the_new_lines_are_read(
    cli: CLI, store: KiroStore, lines: Path
) -> None:
    index(cli)
    store.put("/home/dev/apiary", HIVE, [
        {"user": prompt("Calibrate the beehive scale tare", "/home/dev/apiary"),
         "assistant": reply("m-3", "Tare it with the empty super on.")},
        {"user": prompt("Log the propolis harvest weight too", "/home/dev/apiary"),
         "assistant": reply("m-4", "Added a propolis column.")},
    ])  # fmt: skip
    assert Path(f"{store.path}-wal").stat().st_size > 0  # the commit waits in the WAL
    before = digest(store.path)
    report = index(cli)
    assert (report["files_read"], report["lines_read"], report["sessions_changed"]) == (1, 1, 1)
    assert found(cli, "propolis harvest") == [HIVE]
    assert found(cli, "drizzle") == [ORCHARD]
    assert digest(store.path) == before

    log = lines / f"{VENT}.jsonl"
    size = log.stat().st_size
    with log.open("a") as fh:  # the half-written last line is finished
        fh.write('xt","data":"Does the louvre actuator need the same fix?"}]}}\n')
    report = index(cli)
    assert report["files_read"] == 1 and report["bytes_read"] < log.stat().st_size - 400
    assert log.stat().st_size > size
    assert found(cli, "louvre actuator") == [VENT]
    assert cli.json("read", VENT)["total_turns"] == 2
    # A call in one read, its result in the next: the result is still named after it.
    call = {"kind": "toolUse", "data": {"toolUseId": "tu-9", "name": "grep", "input": {}}}
    result = {"kind": "toolResult", "data": {"toolUseId": "tu-9", "content": "louvre.py:12"}}
    for line in ({"kind": "AssistantMessage", "data": {"content": [call]}},
                 {"kind": "ToolResults", "data": {"content": [result]}}):  # fmt: skip
        with log.open("a") as fh:
            fh.write(json.dumps(line) + "\n")
        index(cli)
    messages = cli.json("read", VENT, "--tools")["turns"][1]["messages"]
    assert [(m["kind"], m["tool"]) for m in messages][-2:] == [
        ("tool_call", "grep"),
        ("tool_output", "grep"),
    ]


def test_forgotten_stays_forgotten_secrets_redacted_and_a_locked_db_waits(
    cli: CLI, store: KiroStore, db_path: Path, tmp_path: Path
) -> None:
    store.put("/home/dev/vault", "vault-1", [
        {"user": prompt(f"rotate {SECRET} tonight", "/home/dev/vault"),
         "assistant": reply("m-9", "Rotated.")},
    ])  # fmt: skip
    index(cli)
    assert found(cli, SECRET) == [] and SECRET.encode() not in db_path.read_bytes()
    cli.run("forget", hits(cli, "orchard irrigation")[0]["session"]["id"])
    store.put("/home/dev/orchard", ORCHARD, [{"user": prompt("orchard irrigation again", "/")}])
    store.put("/home/dev/apiary", HIVE, [{"user": prompt("hive wax moth traps", "/")}])
    index(cli)
    assert found(cli, "orchard irrigation") == [] and found(cli, "wax moth") == [HIVE]

    other = KiroStore(tmp_path / "copy" / "data.sqlite3", journal="delete")
    other.put("/home/dev/mill", "mill-1", [{"user": prompt("mill race sluice gate", "/")}])
    other.conn.execute("BEGIN EXCLUSIVE")
    [error] = index(cli, "--source", "kiro", str(other.path.parent))["errors"]
    assert "locked by its agent" in error["error"]
    other.conn.execute("ROLLBACK")
    assert index(cli, "--source", "kiro", str(other.path.parent))["files_read"] == 1
    assert found(cli, "sluice gate") == ["mill-1"]
    other.close()


def test_sources_stays_quiet_about_kiro_where_there_is_none(cli: CLI, home: Path) -> None:
    listed = {s["kind"]: s for s in cli.json("sources")["sources"]}["kiro"]
    assert [r["exists"] for r in listed["roots"]] == [False, False]
    assert listed["files"] == 0
    roots = cli.json("index", "--no-embed")["roots"]
    assert not any(root.endswith(("kiro-cli", "sessions/cli")) for root in roots)


#: The tables Kiro CLI makes from its first start, before any conversation: its schema
#: migrations, settings state, shell history and sign-in (no `conversations_v2` yet).
FIRST_START = """
CREATE TABLE migrations (id INTEGER PRIMARY KEY, version INTEGER NOT NULL,
                         migration_time INTEGER NOT NULL);
CREATE TABLE history (id INTEGER PRIMARY KEY, command TEXT, shell TEXT, pid INTEGER,
                      session_id TEXT, cwd TEXT, start_time INTEGER, hostname TEXT,
                      exit_code INTEGER, end_time INTEGER, duration INTEGER);
CREATE TABLE state (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE auth_kv (key TEXT PRIMARY KEY, value TEXT);
INSERT INTO migrations (version, migration_time) VALUES (0, 1780000000), (1, 1780000000);
INSERT INTO state VALUES ('telemetry.clientId', '"a1b2"');
"""


def _is_empty_kiro_store(cli: CLI, db: Path) -> None:
    report = index(cli, "--source", "kiro", str(db.parent))
    assert report["errors"] == [] and report["problems"] == []
    listed = {s["kind"]: s for s in cli.json("sources")["sources"]}["kiro"]
    assert (listed["files"], listed["unusable_files"], listed["sessions"]) == (1, 0, 0)
    assert listed["problems"] == 0


def test_a_store_before_its_first_conversation_is_kiros_and_empty(cli: CLI, tmp_path: Path) -> None:
    """It was reported as "not a Kiro CLI database" on every run."""
    db = tmp_path / "kiro-cli" / "data.sqlite3"
    db.parent.mkdir()
    with sqlite3.connect(db) as conn:
        conn.executescript(FIRST_START)
    conn.close()
    _is_empty_kiro_store(cli, db)
    # A database of some other tool under the same name is still said to be no store.
    (tmp_path / "other").mkdir()
    with sqlite3.connect(tmp_path / "other" / "data.sqlite3") as conn:
        conn.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
    conn.close()
    report = index(cli, "--source", "kiro", str(tmp_path / "other"))
    assert [p["reason"] for p in report["problems"]] == ["unknown database"]


REAL_KIRO = SHARED / "realfiles" / "kiro" / "data.sqlite3"


@pytest.mark.skipif(not REAL_KIRO.exists(), reason="needs ../shared/realfiles/kiro")
def test_a_real_store_before_its_first_conversation(cli: CLI, tmp_path: Path) -> None:
    db = tmp_path / "kiro-cli" / "data.sqlite3"
    db.parent.mkdir()
    shutil.copyfile(REAL_KIRO, db)
    # Counted without findsession: Kiro's own tables, and none that holds a conversation.
    uri = f"{db.as_uri()}?mode=ro&immutable=1"
    with sqlite3.connect(uri, uri=True) as conn:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    conn.close()
    assert {"migrations", "state"} <= tables and not any("conversation" in t for t in tables)
    _is_empty_kiro_store(cli, db)


def test_a_session_of_lines_without_times_or_with_injected_context(
    cli: CLI, home: Path, lines: Path
) -> None:
    """Kiro CLI of 2026 writes no time in a line: the session's times are its sidecar's
    (`created_at` for the first line, `updated_at` for the lines after). And a prompt
    whose context an agent's hook added as a text block of its own (one tagged block) is
    the typed block, the context harness text, so the title is what was typed."""
    sid = "5e1f2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b"
    context = "<site-context>\n# Glasshouse rules\nShut louvres in sleet.\n</site-context>"
    events = [
        {"version": "v1", "kind": "Prompt", "data": {"message_id": "p1", "content": [
            {"kind": "text", "data": context},
            {"kind": "text", "data": "Draft the frost alarm runbook"}]}},
        {"version": "v1", "kind": "AssistantMessage", "data": {"message_id": "a1", "content": [
            {"kind": "text", "data": "Here is the frost alarm runbook outline."}]}},
    ]  # fmt: skip
    (lines / f"{sid}.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))
    (lines / f"{sid}.json").write_text(json.dumps({
        "session_id": sid, "cwd": "/home/dev/greenhouse",
        "created_at": "2026-05-06T14:04:15.804165464Z",
        "updated_at": "2026-05-06T14:04:32.026985339Z"}))  # fmt: skip
    index(cli)
    session = hits(cli, "frost alarm runbook")[0]["session"]
    assert session["title"] == "Draft the frost alarm runbook"
    assert session["started"].startswith("2026-05-06T14:04:15")
    messages = cli.json("read", session["id"])["turns"][0]["messages"]
    assert [(m["kind"], m["text"][:12]) for m in messages] == [
        ("prompt", "Draft the fr"),
        ("reply", "Here is the "),
    ]
    assert [m["timestamp"][:19] for m in messages] == ["2026-05-06T14:04:15", "2026-05-06T14:04:32"]


def test_a_store_of_kiro_cli_before_1_23_is_read_from_its_one_per_directory_table(
    cli: CLI, home: Path
) -> None:
    """Kiro CLI up to 1.22 (as Amazon Q Developer CLI before it) kept one conversation per
    directory in `conversations(key, value)`, replaced whole on each write; its migration
    008 made `conversations_v2` from it. A store that never ran 008 is read from it."""
    db = home / ".local" / "share" / "kiro-cli" / "data.sqlite3"
    db.parent.mkdir(parents=True)
    conn = sqlite3.connect(db, isolation_level=None)
    conn.executescript(
        "CREATE TABLE migrations (id INTEGER PRIMARY KEY, version INTEGER NOT NULL,"
        " migration_time INTEGER NOT NULL);"
        "CREATE TABLE state (key TEXT PRIMARY KEY, value BLOB);"
        "CREATE TABLE conversations (key TEXT PRIMARY KEY, value TEXT);"
    )
    said = prompt("Why does the kiln controller overshoot at cone six?", "/home/dev/kiln")
    answer = reply("m-1", "The ramp ends too late; start the hold earlier.")
    kiln = {"conversation_id": "kiln-1", "history": [{"user": said, "assistant": answer}]}
    for value in ({"conversation_id": "kiln-1", "history": []}, kiln):
        conn.execute(
            "INSERT OR REPLACE INTO conversations (key, value) VALUES (?, ?)",
            ("/home/dev/kiln", json.dumps(value)),
        )
    conn.close()
    report = index(cli)
    assert report["problems"] == [] and report["errors"] == []
    assert found(cli, "kiln controller overshoot") == ["kiln-1"]
    session = hits(cli, "kiln controller")[0]["session"]
    assert session["cwd"] == "/home/dev/kiln"
    assert index(cli)["files_read"] == 0


def test_a_compacted_conversation_keeps_its_summary_and_what_only_its_transcript_holds(
    cli: CLI, home: Path, db_path: Path
) -> None:
    """`/compact` replaces the history with a summary (`latest_summary`: its text and the
    request's metadata) and `/clear` empties it; what came before survives only in the
    conversation's `transcript` of lines (`> ` and the typed prompt, the reply and
    `[Tool uses: …]`). Both are read, before the history, and nothing twice."""
    db = KiroStore(home / ".local" / "share" / "kiro-cli" / "data.sqlite3")
    history = [
        {"user": prompt("Now tune the glaze firing schedule", "/home/dev/kiln"),
         "assistant": reply("m-5", "Slow cool from 1100 degrees.")},
    ]  # fmt: skip
    value = {
        "conversation_id": "kiln-2",
        "history": history,
        "transcript": [
            "> Which thermocouple suits a raku kiln?",
            "A type K thermocouple in a ceramic sheath.\n[Tool uses: none]",
            "> /compact",
            "> Now tune the glaze firing schedule",
            "Slow cool from 1100 degrees.\n[Tool uses: none]",
        ],
        "latest_summary": ["We chose a type K thermocouple for the raku kiln.", {}],
    }
    db.put("/home/dev/kiln", "kiln-2", json.dumps(value))
    db.close()
    index(cli)
    assert found(cli, "raku thermocouple sheath") == ["kiln-2"]
    sid = hits(cli, "raku thermocouple")[0]["session"]["id"]
    with closing(sqlite3.connect(f"{db_path.as_uri()}?mode=ro", uri=True)) as conn:
        rows = conn.execute("SELECT kind, substr(text, 1, 20) FROM messages ORDER BY line")
        assert rows.fetchall() == [
            ("prompt", "Which thermocouple s"),
            ("reply", "A type K thermocoupl"),
            ("harness", "/compact"),
            ("compact_summary", "We chose a type K th"),
            ("prompt", "Now tune the glaze f"),
            ("reply", "Slow cool from 1100 "),
        ]
    assert cli.json("read", sid, "--raw")["turns"] == cli.json("read", sid)["turns"]
