"""OpenCode's SQLite store, read through the real CLI: sessions re-read only when their
change token moves, never written, subagents linked, titles without OpenCode's
placeholders, `opencode --session` to go back; and Kilo Code's store as its own source.

The store is built in the test (`opencode_store.py`) from the documented schema, in WAL
mode with the "agent's" connection held open, as OpenCode holds it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI
from opencode_store import OpenCodeStore

FERRY = "ses_3cf7dd8d4ffeFerryTimetable"
PORTS = "ses_3cf7dd8d4ffePortsChildTask"
LAMP = "ses_3cf7dd8d4ffeLighthouseLamp"
TOKEN = "ghp_" + "Zq7Rw2Lx9Tv4Nb6Yp1Hs3Kd8Fm5Jc0Ag2Qe4"


def data_home(cli: CLI, tmp_path: Path) -> Path:
    cli.env.pop("XDG_DATA_HOME", None)  # the standard place under the test's home
    return tmp_path / "home" / ".local" / "share"


@pytest.fixture
def agent(cli: CLI, tmp_path: Path) -> Iterator[OpenCodeStore]:
    """OpenCode's store in its standard place, its writer connection still open."""
    db = OpenCodeStore(data_home(cli, tmp_path) / "opencode" / "opencode.db")
    fill(db)
    yield db
    db.close()


def fill(db: OpenCodeStore) -> None:
    db.project("/home/dev/ferry", "prj_ferry")
    db.project("/home/dev/lamp", "prj_lamp")
    db.session(FERRY, "/home/dev/ferry", "Ferry timetable scraper", project="prj_ferry")
    user = db.message(FERRY, "user")
    db.part(
        FERRY, user, {"type": "text", "text": "Scrape the harbour ferry timetable into a calendar"}
    )
    db.part(
        FERRY, user, {"type": "text", "synthetic": True, "text": "Plan mode reminder: no edits"}
    )
    reply = db.message(FERRY, "assistant", modelID="claude-sonnet-4")
    db.part(FERRY, reply, {"type": "step-start"})
    db.part(FERRY, reply, {"type": "reasoning", "text": "The page lists sailings per weekday."})
    db.part(FERRY, reply, {
        "type": "tool", "callID": "toolu_1", "tool": "read",
        "state": {"status": "completed", "input": {"filePath": "/home/dev/ferry/times.html"},
                  "output": "Kelp Island departs 07:40 and 16:15"},
    })  # fmt: skip
    db.part(FERRY, reply, {"type": "text", "text": "Each sailing becomes a calendar event."})
    db.session(PORTS, "/home/dev/ferry", "Child session - 2026-03-02T09:00:10.000Z", FERRY)
    db.turn(PORTS, "List the ports the schedule mentions", "Ports: Gull Rock, Brinehaven.")
    db.session(LAMP, "", "New session - 2026-03-02T09:01:00.000Z", project="prj_lamp")
    db.turn(LAMP, "Why does the lighthouse lamp rotation timer drift?", "It sleeps a fixed time.")
    broken = db.message(LAMP, "assistant")
    db.part(LAMP, broken, "{not json")


def hits(cli: CLI, query: str, source: str = "opencode") -> list[dict[str, Any]]:
    return cli.json("search", "--mode", "keyword", "--source", source, query)["results"]


def found(cli: CLI, query: str, source: str = "opencode") -> list[str]:
    return [h["session"]["id"].split(":", 1)[1] for h in hits(cli, query, source)]


def index(cli: CLI) -> dict[str, Any]:
    return cli.json("index", "--no-embed")


def digest(*paths: Path) -> list[str]:
    return [hashlib.sha256(p.read_bytes()).hexdigest() if p.exists() else "" for p in paths]


def test_the_store_gives_its_sessions_titles_folders_and_turns(
    cli: CLI, agent: OpenCodeStore
) -> None:
    report = index(cli)
    assert report["files_read"] == 1 and report["errors"] == []
    assert report["sessions_changed"] == 3
    [problem] = report["problems"]  # the part whose JSON does not parse
    assert problem["reason"] == "malformed part JSON" and problem["line"] > 0
    hit = hits(cli, "harbour ferry timetable calendar")[0]
    session = hit["session"]
    assert session["id"].startswith("opencode-") and session["id"].endswith(":" + FERRY)
    assert session["title"] == "Ferry timetable scraper" and session["cwd"] == "/home/dev/ferry"
    assert found(cli, "Kelp Island departs") == [FERRY]  # a tool's output
    assert found(cli, "Plan mode reminder") == []  # OpenCode's own words are no prompt
    messages = cli.json("read", session["id"], "--tools")["turns"][0]["messages"]
    assert [(m["kind"], m["tool"]) for m in messages] == [
        ("prompt", None),
        ("thinking", None),
        ("tool_call", "read"),
        ("tool_output", "read"),
        ("reply", None),
    ]
    raw = cli.json("read", session["id"], "--raw")
    assert raw["turns"] == cli.json("read", session["id"])["turns"]
    lamp = hits(cli, "lighthouse lamp rotation")[0]["session"]
    assert lamp["title"] == "Why does the lighthouse lamp rotation timer drift?"  # no placeholder
    assert lamp["cwd"] == "/home/dev/lamp"  # an empty directory: the project's worktree
    assert hits(cli, "harbour ferry", source="codex") == []
    listed = {s["kind"]: s for s in cli.json("sources")["sources"]}["opencode"]
    assert (listed["files"], listed["sessions"], listed["subagents"]) == (1, 2, 1)


def test_a_subagent_is_linked_and_going_back_resumes_by_session_id(
    cli: CLI, agent: OpenCodeStore
) -> None:
    index(cli)
    parent = hits(cli, "ferry timetable calendar")[0]
    assert parent["resume"]["command"] == ["opencode", "--session", FERRY]
    assert parent["resume"]["cwd"] == "/home/dev/ferry"
    child = hits(cli, "ports schedule mentions")[0]
    assert child["session"]["subagent"] and child["session"]["parent_id"] == parent["session"]["id"]
    assert child["session"]["title"] == "List the ports the schedule mentions"
    assert child["resume"]["command"] == ["opencode", "--session", FERRY]


def test_only_the_session_that_changed_is_read_again_and_the_store_is_never_written(
    cli: CLI, agent: OpenCodeStore
) -> None:
    # The store and its log; `-shm` is the readers' shared index, which any reader marks.
    files = (agent.path, Path(f"{agent.path}-wal"))
    index(cli)
    assert index(cli)["files_read"] == 0  # unchanged: a stat
    agent.turn(FERRY, "Skip sailings cancelled for fog", "Cancelled rows are dropped now.")
    before = digest(*files)
    report = index(cli)
    assert digest(*files) == before  # nothing written, not even a checkpoint
    assert report["files_read"] == 1 and report["sessions_changed"] == 1
    assert report["lines_read"] == 1 + 4 + 8  # the session row, its messages and parts
    assert found(cli, "cancelled fog") == [FERRY]
    assert found(cli, "Kelp Island departs") == [FERRY]  # nothing lost, nothing doubled
    assert found(cli, "lighthouse lamp") == [LAMP]
    # A reply streamed into its part: the part is rewritten in place, nothing added.
    user = agent.message(LAMP, "user")
    part = agent.part(LAMP, user, {"type": "text", "text": "Does the"})
    index(cli)
    agent.update_part(part, {"type": "text", "text": "Does the foghorn share that timer?"})
    assert index(cli)["sessions_changed"] == 1
    assert found(cli, "foghorn share") == [LAMP]
    assert index(cli)["files_read"] == 0


def test_a_locked_store_is_reported_in_one_line_and_read_on_the_next_run(
    cli: CLI, tmp_path: Path
) -> None:
    db = OpenCodeStore(data_home(cli, tmp_path) / "opencode" / "opencode.db", journal="delete")
    fill(db)
    db.conn.execute("BEGIN EXCLUSIVE")
    db.conn.execute("UPDATE session SET title = 'Ferry timetable' WHERE id = ?", (FERRY,))
    report = index(cli)
    [error] = report["errors"]
    assert "locked" in error["error"] and "\n" not in error["error"]
    assert report["files_read"] == 0
    db.conn.execute("COMMIT")
    assert index(cli)["files_read"] == 1
    assert found(cli, "harbour ferry timetable") == [FERRY]
    db.close()


def test_a_forgotten_session_stays_forgotten_and_a_secret_is_never_stored(
    cli: CLI, agent: OpenCodeStore, db_path: Path
) -> None:
    agent.turn(LAMP, f"Use the token {TOKEN} for the lamp log upload", "Uploaded.")
    index(cli)
    assert found(cli, TOKEN) == [] and found(cli, "lamp log upload") == [LAMP]
    lamp = hits(cli, "lighthouse lamp")[0]["session"]["id"]
    cli.run("forget", lamp)
    agent.turn(LAMP, "And the lamp's bulb hours?", "Counted per rotation.")
    agent.turn(FERRY, "Add the winter timetable", "Winter sailings are in.")
    index(cli)
    assert found(cli, "lighthouse lamp") == [] and found(cli, "bulb hours") == []
    assert found(cli, "winter timetable") == [FERRY]
    for path in db_path.parent.rglob("*"):  # the archive too: it keeps no OpenCode store
        assert path.is_dir() or TOKEN.encode() not in path.read_bytes(), path


def test_kilo_code_is_a_source_of_its_own(cli: CLI, tmp_path: Path) -> None:
    db = OpenCodeStore(data_home(cli, tmp_path) / "kilo" / "kilo.db")
    db.project("/home/dev/orchard")
    db.session("ses_4ab1kiloOrchard", "/home/dev/orchard", "Orchard irrigation schedule")
    db.turn("ses_4ab1kiloOrchard", "Water the pear rows before dawn", "The pump starts at 05:10.")
    index(cli)
    hit = hits(cli, "pear rows dawn", source="kilo-code")[0]
    assert hit["session"]["source"] == "kilo-code" and hit["session"]["id"].startswith("kilo-code-")
    assert hit["session"]["title"] == "Orchard irrigation schedule"
    assert hit["resume"]["command"] == ["kilo", "--session", "ses_4ab1kiloOrchard"]
    assert hits(cli, "pear rows dawn", source="opencode") == []
    db.close()


def test_a_machine_without_opencode_or_kilo_hears_nothing_of_them(cli: CLI, tmp_path: Path) -> None:
    share = data_home(cli, tmp_path)
    proc = cli.run("index", "--no-embed")
    said = proc.stdout + proc.stderr
    assert "opencode" not in said and "kilo" not in said
    listed = {s["kind"]: s for s in cli.json("sources")["sources"]}
    for kind, folder in (("opencode", "opencode"), ("kilo-code", "kilo")):
        assert listed[kind]["enabled"] and listed[kind]["sessions"] == 0
        assert listed[kind]["roots"] == [{"path": str(share / folder), "exists": False}]
