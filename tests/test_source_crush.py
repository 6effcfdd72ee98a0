"""Crush: each project's `.crush/crush.db`, found from Crush's `projects.json`, from the
projects the index knows and from a folder named, read session by session through the
real CLI while the "agent" holds the database open.

The database is built by `crush_store` in Crush's documented schema (written from the
documented format, not copied from a real store): a session with thinking, tool calls
and results, a sub-agent started by one of them, a part of a kind not known here and a
row whose parts are not JSON; a second session still titled with Crush's placeholder;
an older sub-agent named by its tool call alone; and the title maker's own session.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI
from crush_store import FINISH, CrushStore, call, result, text
from transcripts import Transcript, project_dir

RIVET = "6f1c2e0a-1111-4aaa-8bbb-000000000001"
SPROCKET = "6f1c2e0a-2222-4aaa-8bbb-000000000002"
SECRET = "ghp_" + "Q7wErTy8UiOp3AsDfGh9JkLzXcVbNm4Pq2Rs"


def build(store: CrushStore) -> None:
    s = store
    s.session(RIVET, "Rivet torque table")
    s.message(RIVET, "user", [text("Why does the rivet torque table round to whole newton metres")])
    s.message(RIVET, "assistant", [
        {"type": "reasoning", "data": {"thinking": "The loader probably casts with int."}},
        text("Let me look at the loader."),
        call("call_view_1", "view", {"file_path": "/home/dev/rivet/torque.py"}),
        FINISH,
    ])  # fmt: skip
    s.message(RIVET, "tool", [result("call_view_1", "view", "return int(value)  # flange gasket")])
    started = s.message(RIVET, "assistant", [
        call("call_agent_1", "agent", {"prompt": "Find every caller of load()"}),
        {"type": "hologram", "data": {}},
    ])  # fmt: skip
    s.message(RIVET, "tool", [result("call_agent_1", "agent", "Two callers: report and export")])
    s.message(RIVET, "assistant", [text("Done: torque values keep their decimals now."), FINISH])
    s.message(RIVET, "user", "[{not json")
    child = s.session(f"{started}$$call_agent_1", "Find callers", parent=RIVET)
    s.message(child, "user", [text("Find every caller of load()")])
    s.message(child, "assistant", [text("The barometric report and the export call load().")])
    s.session(f"title-{RIVET}", "Generate a title", parent=RIVET)
    s.message(f"title-{RIVET}", "user", [text("Title this zeppelin conversation")])

    s.session(SPROCKET, "New Session")
    s.message(SPROCKET, "user", [text("How do I pin the sprocket chain tension in the config?")])
    s.message(SPROCKET, "assistant", [
        text("Set chain_tension in sprocket.toml."),
        call("call_legacy_9", "agent", {"prompt": "Check the chain tension defaults"}),
    ])  # fmt: skip
    s.session("call_legacy_9", "Chain defaults")  # older Crush: no parent column set
    s.message("call_legacy_9", "user", [text("Check the chain tension defaults")])
    s.message("call_legacy_9", "assistant", [text("Default chain tension is forty millimetres.")])


@pytest.fixture
def home(cli: CLI, tmp_path: Path) -> Path:
    for name in ("XDG_DATA_HOME", "CRUSH_GLOBAL_DATA"):
        cli.env.pop(name, None)
    return tmp_path / "home"


@pytest.fixture
def project(home: Path) -> Path:
    return home / "code" / "rivet"


@pytest.fixture
def store(home: Path, project: Path) -> Iterator[CrushStore]:
    """The project's database, listed in Crush's `projects.json`, held open."""
    db = CrushStore(project / ".crush" / "crush.db")
    build(db)
    listing = home / ".local" / "share" / "crush" / "projects.json"
    listing.parent.mkdir(parents=True)
    entry = {"path": str(project), "data_dir": str(project / ".crush"), "last_accessed": "x"}
    listing.write_text(json.dumps({"projects": [entry]}))
    yield db
    db.close()


def index(cli: CLI, *args: str) -> dict[str, Any]:
    return cli.json("index", "--no-embed", *args)


def hits(cli: CLI, query: str) -> list[dict[str, Any]]:
    return cli.json("search", "--mode", "keyword", "--source", "crush", query)["results"]


def found(cli: CLI, query: str) -> list[str]:
    return [h["session"]["id"].split(":", 1)[1] for h in hits(cli, query)]


def file_id(cli: CLI) -> str:
    return hits(cli, "rivet torque")[0]["session"]["id"].split(":")[0]


def digest(db: Path) -> str:
    return "".join(
        hashlib.sha256(p.read_bytes()).hexdigest() for p in (db, Path(f"{db}-wal")) if p.exists()
    )


def test_listed_projects_are_indexed_session_by_session(
    cli: CLI, store: CrushStore, home: Path, project: Path
) -> None:
    before = digest(store.path)
    report = index(cli)
    assert str(home / ".local" / "share" / "crush") in report["roots"]
    assert report["files_read"] == 1 and report["errors"] == []
    reasons = sorted(p["reason"] for p in report["problems"])
    assert reasons == ["malformed JSON", "unknown part kind"]
    listed = {s["kind"]: s for s in cli.json("sources")["sources"]}["crush"]
    assert (listed["files"], listed["sessions"], listed["subagents"]) == (1, 2, 2)
    assert digest(store.path) == before  # read, never written

    session = hits(cli, "rivet torque newton metres")[0]["session"]
    assert session["id"].endswith(":" + RIVET)
    assert session["title"] == "Rivet torque table" and session["cwd"] == str(project)
    assert found(cli, "flange gasket") == [RIVET]  # a tool's output
    assert found(cli, "zeppelin") == []  # the title maker's session is never indexed
    other = hits(cli, "sprocket chain tension config")[0]["session"]
    assert other["title"].startswith("How do I pin the sprocket")  # placeholder skipped
    assert index(cli)["files_read"] == 0  # unchanged: a stat


def test_read_shows_the_turns_and_raw_reads_them_back(cli: CLI, store: CrushStore) -> None:
    index(cli)
    sid = hits(cli, "rivet torque")[0]["session"]["id"]
    turns = cli.json("read", sid, "--tools")["turns"]
    assert [(m["kind"], m["tool"]) for m in turns[0]["messages"]] == [
        ("prompt", None),
        ("thinking", None),
        ("reply", None),
        ("tool_call", "view"),
        ("tool_output", "view"),
        ("tool_call", "agent"),
        ("tool_output", "agent"),
        ("reply", None),
    ]
    assert turns[0]["messages"][3]["text"] == "file_path: /home/dev/rivet/torque.py"
    assert cli.json("read", sid, "--raw")["turns"] == cli.json("read", sid)["turns"]


def test_sub_agents_are_linked_to_the_session_that_started_them(
    cli: CLI, store: CrushStore
) -> None:
    index(cli)
    fid = file_id(cli)
    child = hits(cli, "barometric report export")[0]["session"]
    assert child["subagent"] and child["parent_id"] == f"{fid}:{RIVET}"
    assert child["title"] == "Find callers"  # the parent link took the title's line
    legacy = hits(cli, "forty millimetres")[0]["session"]
    assert legacy["subagent"] and legacy["parent_id"] == f"{fid}:{SPROCKET}"
    resume = hits(cli, "barometric report")[0]["resume"]
    assert resume["command"] == ["crush", "--session", RIVET]  # through its parent


def test_crush_session_resumes_in_the_project(cli: CLI, store: CrushStore, project: Path) -> None:
    index(cli)
    resume = hits(cli, "rivet torque")[0]["resume"]
    assert resume["command"] == ["crush", "--session", RIVET]
    assert resume["cwd"] == str(project)


def test_only_the_changed_session_is_read_again(cli: CLI, store: CrushStore) -> None:
    index(cli)
    store.message(SPROCKET, "user", [text("Also log the idler pulley wear")])
    assert Path(f"{store.path}-wal").stat().st_size > 0  # the commit waits in the WAL
    before = digest(store.path)
    report = index(cli)
    assert report["files_read"] == 1 and report["lines_read"] == 3  # SPROCKET's rows
    assert report["sessions_changed"] == 1
    assert found(cli, "idler pulley") == [SPROCKET]
    assert digest(store.path) == before
    # A reply streamed into its row in place is read again when it is finished.
    mid = store.message(SPROCKET, "assistant", [text("Logging")])
    index(cli)
    store.stream(mid, [text("Logging the idler pulley wear in wear.csv"), FINISH])
    assert index(cli)["sessions_changed"] == 1
    assert found(cli, "wear.csv") == [SPROCKET]
    assert found(cli, "flange gasket") == [RIVET]  # the other session untouched
    assert index(cli)["files_read"] == 0


def test_forgotten_session_stays_forgotten_and_secrets_are_redacted(
    cli: CLI, store: CrushStore, db_path: Path
) -> None:
    store.message(SPROCKET, "user", [text(f"the deploy token is {SECRET} keep it")])
    index(cli)
    assert found(cli, SECRET) == [] and SECRET.encode() not in db_path.read_bytes()
    sid = hits(cli, "sprocket chain")[0]["session"]["id"]
    cli.run("forget", sid)
    store.message(RIVET, "user", [text("One more: round the gasket column too")])
    store.message(SPROCKET, "user", [text("and the sprocket spacer")])
    index(cli)
    assert found(cli, "gasket column") == [RIVET]
    assert found(cli, "sprocket") == []


def test_a_locked_database_is_reported_and_read_next_run(
    cli: CLI, home: Path, project: Path
) -> None:
    other = home / "code" / "lathe"
    agent = CrushStore(other / ".crush" / "crush.db", journal="delete")
    agent.session(RIVET, "Lathe")
    agent.message(RIVET, "user", [text("Why does the lathe chuck chatter at low speed?")])
    agent.conn.execute("BEGIN EXCLUSIVE")
    report = index(cli, "--source", "crush", str(other))
    [error] = report["errors"]
    assert "locked by its agent" in error["error"]
    agent.conn.execute("ROLLBACK")
    assert index(cli, "--source", "crush", str(other))["files_read"] == 1
    assert found(cli, "lathe chuck chatter") == [RIVET]
    agent.close()


def test_a_project_the_index_knows_is_looked_in(cli: CLI, home: Path, tmp_path: Path) -> None:
    """Crush never listed this project, but a Claude Code session ran in it."""
    project = tmp_path / "work" / "kiln"
    agent = CrushStore(project / ".crush" / "crush.db")
    agent.session(RIVET, "Kiln")
    agent.message(RIVET, "user", [text("Plot the kiln firing curve for cone six")])
    t = Transcript(session_id="kiln-1", cwd=str(project))
    t.prompt("add a kiln log").reply("Added.")
    t.write(project_dir(Path(cli.env["CLAUDE_CONFIG_DIR"]) / "projects", str(project)))
    index(cli)  # the Claude Code session names the project
    report = index(cli)
    assert str(project / ".crush") in report["roots"]
    assert found(cli, "kiln firing curve") == [RIVET]
    agent.close()


def test_a_named_folder_is_walked_and_another_apps_db_is_one_problem(
    cli: CLI, store: CrushStore, tmp_path: Path
) -> None:
    stray = tmp_path / "elsewhere" / "app" / ".crush" / "crush.db"
    stray.parent.mkdir(parents=True)
    sqlite3.connect(stray).executescript("CREATE TABLE notes (body TEXT);").close()
    (tmp_path / "elsewhere" / "node_modules" / ".crush").mkdir(parents=True)
    report = index(cli, "--source", "crush", str(tmp_path / "elsewhere"))
    assert report["files_read"] == 1 and report["errors"] == []
    [problem] = report["problems"]
    assert problem["reason"] == "unknown database" and "not a Crush database" in problem["detail"]


def test_sources_stays_quiet_about_crush_where_there_is_none(cli: CLI, home: Path) -> None:
    listed = {s["kind"]: s for s in cli.json("sources")["sources"]}["crush"]
    assert listed["roots"] == [{"path": str(home / ".local/share/crush"), "exists": False}]
    assert listed["files"] == 0
    roots = cli.json("index", "--no-embed")["roots"]
    assert not any(root.endswith(("/crush", "/.crush")) for root in roots)


def test_a_forgotten_sessions_sub_agent_does_not_come_back(cli: CLI, store: CrushStore) -> None:
    """Forgetting a session forgets its sub-agents; one that changes later (a sub-agent
    still finishing) is not indexed again under its forgotten parent."""
    index(cli)
    cli.run("forget", hits(cli, "rivet torque")[0]["session"]["id"])
    assert found(cli, "barometric report") == []
    child = next(
        r[0] for r in store.conn.execute("SELECT id FROM sessions WHERE parent_session_id = ?",
                                         (RIVET,)) if not r[0].startswith("title-")
    )  # fmt: skip
    store.message(child, "assistant", [text("Also the barometric archive calls load().")])
    assert index(cli)["files_read"] == 1
    assert found(cli, "barometric") == []


def test_secrets_redacted_are_counted_once_however_often_a_session_is_read_again(
    cli: CLI, store: CrushStore
) -> None:
    """`status` counts the secrets the index holds redacted: a session read again
    whole after each new message (a store's changed session) counts its secret once,
    and a forgotten session's secrets leave the count."""
    store.message(SPROCKET, "user", [text(f"the deploy token is {SECRET} keep it")])
    index(cli)
    assert cli.json("status")["redacted"] == {"github-token": 1}
    for n in range(3):
        store.message(SPROCKET, "user", [text(f"and check sprocket number {n}")])
        assert index(cli)["sessions_changed"] == 1
    assert cli.json("status")["redacted"] == {"github-token": 1}
    cli.run("forget", hits(cli, "sprocket chain")[0]["session"]["id"])
    assert cli.json("status")["redacted"] == {}
