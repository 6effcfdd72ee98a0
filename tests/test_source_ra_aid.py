"""RA.Aid's per-project store (`<project>/.ra-aid/pk.db`), through the real CLI: each run
one session with exactly the person's inputs as prompts and the trajectory's tool calls
and failures (counted by `ra_aid_counts`, which reads the rows by rules of its own),
`--chat`'s doubled first request read once, the CIAYN agent's restated failure not a
second call, an expert's answer as its question's result, blame, no resume, `read
--raw`, only the run that changed read again, the store never written, a run read while
RA.Aid writes it, a task whose input RA.Aid pruned, a `--project-state-dir` folder, a
project the index knows, and a folder's walk.

The store was written by the real RA.Aid 0.30.2 against a scripted model on localhost,
in one project (the `command_line` of each run cut to `ra-aid ...`, its journal mode set
to `delete` so the fixture is one file):

1. `ra-aid --provider openai -m "Write down the lamp rotation schedule..."` (the ReAct
   agent): research notes, `cat README.md`, `ls lamp-schedules` (which failed: RA.Aid
   keeps no command's output or exit code), then planning and implementation:
   `put_complete_file_contents` rotation.py, a `file_str_replace` (RA.Aid 0.30.2 fails
   to record a replace that worked), a command, `task_completed`.
2. `-m "Make the seconds per turn a command line argument..."`: `read_file_tool`, a
   `file_str_replace` whose old string was not there (recorded as an error), a command.
3. `--provider openai-compatible --research-only` (the CIAYN agent): notes, a command,
   `read_file_tool` of a missing file (the tool's own error row, then CIAYN's
   `{code}` row for the same failure), `mark_research_complete_no_implementation_required`.
4. `--chat`, whose agent called a tool it did not have and RA.Aid stopped.
5. `--chat`: the request, an `ask_human` answer, `request_research_and_implementation`
   (a command, a plan, foghorn.md written), a last `ask_human` answer.
6. `--hil -m "Survey the beacon flash patterns"`: an `ask_human` answer, the expert
   asked (`emit_expert_context`, `ask_expert`: the question's row, then its answer's),
   a command, notes, `mark_research_complete_no_implementation_required`.

The project's files are not kept: the store names them relative to the project, whose
path it does not record.
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
from ra_aid_counts import counted
from read_counts import indexed
from transcripts import Transcript, project_dir

from findsession.sources.ra_aid import file_id

FIXTURE = Path(__file__).parent / "fixtures" / "ra_aid" / "lighthouse"
RUNS = (1, 2, 3, 4, 5, 6)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "lighthouse"
    shutil.copytree(FIXTURE, folder)
    return folder


def sid(project: Path, run: int) -> str:
    return f"{file_id(project / '.ra-aid' / 'pk.db')}:{run}"


def index(cli: CLI, project: Path) -> dict[str, Any]:
    return cli.json("index", "--no-embed", "--source", "ra-aid", str(project))


def test_each_run_is_one_session_as_an_independent_count_reads_it(cli: CLI, project: Path) -> None:
    report = index(cli, project)
    assert (report["files_read"], report["problems"], report["errors"]) == (1, [], [])
    listed = {s["kind"]: s for s in cli.json("sources")["sources"]}["ra-aid"]
    assert listed["sessions"] == 6
    expected = counted(project / ".ra-aid" / "pk.db")
    assert sorted(expected) == list(RUNS)
    totals = {"prompts": 0, "calls": 0, "results": 0, "failed": 0}
    for run, mine in expected.items():
        assert indexed(cli, sid(project, run)) == mine.shape(), run
        totals = {
            k: totals[k] + (len(v) if k == "prompts" else v)
            for k, v in mine.shape().items()
            if k in totals
        }
    assert totals == {"prompts": 9, "calls": 31, "results": 3, "failed": 2}
    assert indexed(cli, sid(project, 5))["prompts"] == [
        "Write a note on the fog signal schedule",
        "The north tower, two blasts every thirty seconds",
        "No, that is all",
    ]
    assert index(cli, project)["files_read"] == 0


def test_a_run_reads_in_order_its_failures_answer_their_calls(cli: CLI, project: Path) -> None:
    index(cli, project)
    turns = cli.json("read", sid(project, 1), "--tools")["turns"]
    assert [m["tool"] or m["kind"] for m in turns[0]["messages"]] == [
        "prompt", "emit_research_notes", "run_shell_command", "run_shell_command",
        "request_task_implementation", "put_complete_file_contents", "emit_related_files",
        "run_shell_command", "task_completed", "plan_implementation_completed",
    ]  # fmt: skip
    assert turns[0]["messages"][2]["text"] == "command: cat README.md\ntimeout: 10"
    research = cli.json("read", sid(project, 3), "--tools")["turns"][0]["messages"]
    failed = [(m["kind"], m["tool"], m["is_error"]) for m in research if m["is_error"]]
    assert failed == [("tool_output", "read_file_tool", True)]
    assert research[-1]["tool"] == "mark_research_complete_no_implementation_required"
    survey = [
        m for t in cli.json("read", sid(project, 6), "--tools")["turns"] for m in t["messages"]
    ]
    assert [m["tool"] or m["kind"] for m in survey] == [
        "prompt", "prompt", "emit_expert_context", "ask_expert", "ask_expert",
        "run_shell_command", "emit_research_notes",
        "mark_research_complete_no_implementation_required",
    ]  # fmt: skip
    answer = survey[4]  # the expert's answer, the result of the question before it
    assert (answer["kind"], answer["is_error"]) == ("tool_output", False)
    assert answer["text"].startswith("The beacon at the north tower should use a white flash")
    session = cli.json("read", sid(project, 1))["session"]
    assert session["cwd"] == str(project)
    assert session["title"] == "Write down the lamp rotation schedule for the night shift"


def test_blame_no_resume_and_the_speaker(cli: CLI, project: Path) -> None:
    index(cli, project)
    writers = cli.json("blame", str(project / "rotation.py"))["writers"]
    # The replace that failed in run 2 wrote nothing.
    assert [(w["tool"], w["op"], w["session"]["id"]) for w in writers] == [
        ("put_complete_file_contents", "create", sid(project, 1))
    ]
    found = cli.json("search", "--mode", "keyword", "--source", "ra-aid", "north tower blasts")
    hit = found["results"][0]
    assert hit["session"]["id"] == sid(project, 5)
    assert hit["resume"]["command"] is None and "no way back" in hit["resume"]["reason"]
    user = cli.json("search", "--mode", "keyword", "--speaker", "user", "keeper-log-2024")
    assert user["results"] == []  # a tool's argument, not the person's


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_only_the_run_that_changed_is_read_again_and_the_store_is_never_written(
    cli: CLI, project: Path
) -> None:
    db = project / ".ra-aid" / "pk.db"
    index(cli, project)
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA journal_mode=wal")
    # An `ask_human` answer, recorded as RA.Aid records one: with no run.
    conn.execute(
        "INSERT INTO human_input (created_at, updated_at, content, source, session_id)"
        " SELECT created_at, created_at, 'Also note the foghorn test on Sundays', 'chat', NULL"
        " FROM human_input WHERE content = 'No, that is all'"
    )
    conn.commit()
    before = digest(db)
    report = index(cli, project)
    assert (report["files_read"], report["sessions_changed"]) == (1, 1)
    assert indexed(cli, sid(project, 5))["prompts"][-1] == "Also note the foghorn test on Sundays"
    assert digest(db) == before
    conn.close()


def test_a_walked_folder_finds_stores_and_another_apps_db_is_one_problem(
    cli: CLI, project: Path, tmp_path: Path
) -> None:
    stray = tmp_path / "work" / "app" / ".ra-aid" / "pk.db"
    stray.parent.mkdir(parents=True)
    sqlite3.connect(stray).executescript("CREATE TABLE notes (body TEXT);").close()
    shutil.move(project, tmp_path / "work" / "lighthouse")
    report = index(cli, tmp_path / "work")
    assert (report["files_read"], report["errors"]) == (2, [])
    [problem] = report["problems"]
    assert problem["reason"] == "not an RA.Aid store"


def test_read_raw_gives_the_same_turns(cli: CLI, project: Path) -> None:
    index(cli, project)
    for run in (1, 5, 6):
        raw = cli.json("read", sid(project, run), "--raw", "--tools")["turns"]
        assert raw == cli.json("read", sid(project, run), "--tools")["turns"], run


def test_a_run_is_read_while_ra_aid_writes_it(cli: CLI, project: Path) -> None:
    """RA.Aid holds its store in WAL mode: a write it has not committed is not read, and
    does not stop the read; once committed, it is."""
    db = project / ".ra-aid" / "pk.db"
    agent = sqlite3.connect(db, isolation_level=None)
    agent.execute("PRAGMA journal_mode=wal")
    agent.execute("BEGIN IMMEDIATE")
    agent.execute(
        "INSERT INTO trajectory (created_at, updated_at, tool_name, tool_parameters,"
        " record_type, is_error, session_id) SELECT created_at, created_at,"
        " 'run_shell_command', '{\"command\": \"ls lantern-spares\"}', 'tool_execution', 0, 6"
        " FROM trajectory WHERE session_id = 6 ORDER BY id DESC LIMIT 1"
    )
    report = index(cli, project)
    assert (report["errors"], report["sessions_total"]) == ([], 6)
    assert "ls lantern-spares" not in json.dumps(cli.json("read", sid(project, 6), "--tools"))
    agent.execute("COMMIT")
    assert index(cli, project)["sessions_changed"] == 1
    assert "ls lantern-spares" in json.dumps(cli.json("read", sid(project, 6), "--tools"))
    agent.close()


def test_a_task_whose_input_ra_aid_pruned_is_read_from_its_trajectory(
    cli: CLI, project: Path
) -> None:
    """RA.Aid keeps the last hundred inputs; a run's task stays in its `user_query`."""
    db = project / ".ra-aid" / "pk.db"
    conn = sqlite3.connect(db)  # foreign keys off, as a pruned store is
    conn.execute("DELETE FROM human_input WHERE session_id = 1")
    conn.commit()
    conn.close()
    index(cli, project)
    assert indexed(cli, sid(project, 1))["prompts"] == [
        "Write down the lamp rotation schedule for the night shift"
    ]
    assert indexed(cli, sid(project, 1)) == counted(db)[1].shape()


def test_a_state_folder_and_a_known_project_are_read(
    cli: CLI, project: Path, tmp_path: Path
) -> None:
    """`--project-state-dir` puts the store anywhere (its folder named as a root says
    nothing of the project); a project the index knows from another agent is looked in."""
    state = tmp_path / "state"
    shutil.copytree(project / ".ra-aid", state)
    report = cli.json("index", "--no-embed", "--source", "ra-aid", str(state))
    assert (report["files_read"], report["errors"]) == (1, [])
    assert cli.json("read", f"{file_id(state / 'pk.db')}:1")["session"]["cwd"] is None

    t = Transcript(session_id="lighthouse-1", cwd=str(project))
    t.prompt("tidy the lighthouse notes").reply("Tidied.")
    t.write(project_dir(Path(cli.env["CLAUDE_CONFIG_DIR"]) / "projects", str(project)))
    cli.json("index", "--no-embed")  # the Claude Code session names the project
    report = cli.json("index", "--no-embed")
    assert str(project / ".ra-aid") in report["roots"]
    found = cli.json("search", "--mode", "keyword", "--source", "ra-aid", "beacon flash")
    assert {h["session"]["id"] for h in found["results"]} >= {sid(project, 6)}
