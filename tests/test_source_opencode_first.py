"""The first OpenCode (the Go program Crush grew from): each project's
`.opencode/opencode.db`, read as Crush's store is read and indexed as OpenCode's, found
in the folders of indexed projects and in folders named for the source, through the
real CLI while the "agent" holds the database open.

The database is built by `crush_store` in the first OpenCode's schema (its own
migrations: no `is_summary_message`, the summary named by the session's
`summary_message_id`), written from that schema, not copied from a real store: a session
with a tool call and a task agent started by it (its id the call's, its title the
placeholder "New Agent Session"), a summary, and a second session still "New Session".
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI
from crush_store import FINISH, FIRST_OPENCODE_SCHEMA, CrushStore, call, result, text
from transcripts import Transcript, project_dir

LEDGER = "2b9e4c1a-7d3f-4e2b-9a61-000000000001"
TASK = "toolu_01LedgerTaskAgent"
AUDIT = "2b9e4c1a-7d3f-4e2b-9a61-000000000002"


def build(store: CrushStore) -> None:
    s = store
    s.session(LEDGER, "Ledger rounding fix")
    s.message(LEDGER, "user", [text("Why do the ledger totals drift by a cent each month?")])
    s.message(LEDGER, "assistant", [
        {"type": "reasoning", "data": {"thinking": "Float sums accumulate error."}},
        text("Let me read the totals module."),
        call("toolu_view_1", "view", {"file_path": "/home/dev/ledger/totals.go"}),
        call(TASK, "agent", {"prompt": "Find every caller of SumCents"}),
        FINISH,
    ])  # fmt: skip
    s.message(LEDGER, "tool", [
        result("toolu_view_1", "view", "total += float64(line.Cents) / 100  // mulberry"),
        result(TASK, "agent", "Two callers: the monthly report and the export"),
    ])  # fmt: skip
    s.message(LEDGER, "assistant", [text("Summing integer cents removes the drift."), FINISH])
    s.message(LEDGER, "assistant", [text("We fixed the cent drift in the ledger totals.")],
              summary=True)  # fmt: skip
    s.session(TASK, "New Agent Session", parent=LEDGER)
    s.message(TASK, "user", [text("Find every caller of SumCents")])
    s.message(TASK, "assistant", [text("The quarterly abacus report calls SumCents.")])
    s.session(AUDIT, "New Session")
    s.message(AUDIT, "user", [text("List the audit log retention settings")])
    s.message(AUDIT, "assistant", [text("Retention is ninety days in audit.toml.")])


@pytest.fixture
def project(cli: CLI, tmp_path: Path) -> Path:
    cli.env.pop("XDG_DATA_HOME", None)
    return tmp_path / "home" / "code" / "ledger"


@pytest.fixture
def store(project: Path) -> Iterator[CrushStore]:
    db = CrushStore(project / ".opencode" / "opencode.db", schema=FIRST_OPENCODE_SCHEMA)
    build(db)
    yield db
    db.close()


def index(cli: CLI, *args: str) -> dict[str, Any]:
    return cli.json("index", "--no-embed", *args)


def hits(cli: CLI, query: str) -> list[dict[str, Any]]:
    return cli.json("search", "--mode", "keyword", "--source", "opencode", query)["results"]


def found(cli: CLI, query: str) -> list[str]:
    return [h["session"]["id"].split(":", 1)[1] for h in hits(cli, query)]


def digest(db: Path) -> str:
    return "".join(
        hashlib.sha256(p.read_bytes()).hexdigest() for p in (db, Path(f"{db}-wal")) if p.exists()
    )


def name_the_project(cli: CLI, project: Path) -> None:
    """A Claude Code session that ran in the project: the index then knows the folder."""
    t = Transcript(session_id="ledger-cc", cwd=str(project))
    t.prompt("add a ledger test").reply("Added.")
    t.write(project_dir(Path(cli.env["CLAUDE_CONFIG_DIR"]) / "projects", str(project)))


def test_a_project_the_index_knows_is_looked_in(cli: CLI, store: CrushStore, project: Path) -> None:
    name_the_project(cli, project)
    index(cli)  # the Claude Code session names the project
    before = digest(store.path)
    report = index(cli)
    assert str(project / ".opencode") in report["roots"]
    assert report["errors"] == [] and report["problems"] == []
    listed = {s["kind"]: s for s in cli.json("sources")["sources"]}["opencode"]
    assert (listed["files"], listed["sessions"], listed["subagents"]) == (1, 2, 1)
    assert digest(store.path) == before  # read, never written

    session = hits(cli, "ledger totals drift cent")[0]["session"]
    assert session["id"].startswith("opencode-") and session["id"].endswith(":" + LEDGER)
    assert session["title"] == "Ledger rounding fix" and session["cwd"] == str(project)
    assert found(cli, "mulberry") == [LEDGER]  # a tool's output
    audit = hits(cli, "audit log retention")[0]["session"]
    assert audit["title"].startswith("List the audit log")  # placeholder skipped
    task = hits(cli, "quarterly abacus")[0]["session"]
    assert task["subagent"] and task["parent_id"] == session["id"]
    assert task["title"] == "Find every caller of SumCents"  # not "New Agent Session"
    assert index(cli)["files_read"] == 0


def test_the_summary_is_a_summary_and_the_turns_read_back(
    cli: CLI, store: CrushStore, project: Path
) -> None:
    index(cli, "--source", "opencode", str(project.parent))  # a folder of projects, walked
    sid = hits(cli, "ledger totals")[0]["session"]["id"]
    turns = cli.json("read", sid, "--tools")["turns"]
    kinds = [(m["kind"], m["tool"]) for m in turns[0]["messages"]]
    assert kinds == [
        ("prompt", None),
        ("thinking", None),
        ("reply", None),
        ("tool_call", "view"),
        ("tool_call", "agent"),
        ("tool_output", "view"),
        ("tool_output", "agent"),
        ("reply", None),
    ]
    # The summary the session names is no reply of its own.
    replies = [m["text"] for t in turns for m in t["messages"] if m["kind"] == "reply"]
    assert "We fixed the cent drift in the ledger totals." not in replies
    assert cli.json("read", sid, "--raw")["turns"] == cli.json("read", sid)["turns"]


def test_a_first_opencode_session_resumes_through_its_session_list(
    cli: CLI, store: CrushStore, project: Path
) -> None:
    index(cli, "--source", "opencode", str(project))
    resume = hits(cli, "ledger totals drift")[0]["resume"]
    # That opencode takes no session id: it opens the project's store, and its session
    # list (Ctrl+S) leads to the session.
    assert resume["command"] == ["opencode"] and resume["cwd"] == str(project)
    assert "Ctrl+S" in resume["note"] and "Ledger rounding fix" in resume["note"]
    task = hits(cli, "quarterly abacus")[0]["resume"]
    assert task["command"] == ["opencode"] and "Ledger rounding fix" in task["note"]


def test_only_the_changed_session_is_read_again(cli: CLI, store: CrushStore, project: Path) -> None:
    index(cli, "--source", "opencode", str(project))
    store.message(AUDIT, "user", [text("Also purge the webhook delivery log")])
    report = index(cli, "--source", "opencode", str(project))
    assert report["files_read"] == 1 and report["sessions_changed"] == 1
    assert found(cli, "webhook delivery") == [AUDIT]
    assert found(cli, "mulberry") == [LEDGER]


def test_a_database_of_another_shape_is_one_problem(cli: CLI, tmp_path: Path) -> None:
    """A `.opencode/opencode.db` in neither OpenCode's schema is reported once."""
    stray = tmp_path / "work" / "app" / ".opencode" / "opencode.db"
    stray.parent.mkdir(parents=True)
    sqlite3.connect(stray).executescript("CREATE TABLE notes (body TEXT);").close()
    report = index(cli, "--source", "opencode", str(tmp_path / "work"))
    assert report["files_read"] == 1 and report["errors"] == []
    [problem] = report["problems"]
    assert problem["reason"] == "not a opencode store this reader knows"
