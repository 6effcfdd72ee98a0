"""Code Puppy's sessions (`~/.code_puppy/autosaves/<name>.json` and `subagent_sessions/`),
through the real CLI: prompts, replies, calls, results and failed results counted by a
reader of its own, the system prompt kept out of the prompts, calls paired with their
returns by `tool_call_id`, a person's session name as its title, the folder from the
`_meta.json` sidecar, `code-puppy --resume`, blame, a subagent under the session whose
`invoke_agent` named it, a session rewritten whole after a resume, a document caught
half written, an older `.pkl` session reported and never unpickled, and XDG folders.

The sessions were written by the real Code Puppy 0.0.946 against a scripted model on
localhost: tides (`-p`, a `create_file`, a command that failed; then `-r NAME -p` twice:
a `replace_in_file`, a question); lighthouse-hours (`-r lighthouse-hours -p`, four
times: a `create_file`, a `replace_in_file` that found nothing, a command, an edit, a
`delete_snippet`, an `invoke_agent` of the planning agent, whose session is in
`subagent_sessions/`); harbour (its interactive mode, driven through a pseudo-terminal:
a question, a `create_file` refused over an existing file; then `-r NAME -p`: a call of
a tool that does not exist, answered by a `retry-prompt`, and a command that failed).
`before-resume/` holds harbour as its interactive run left it. The home folder was
renamed to `/home/dev`, and each request's system prompt (`instructions`, 5 KB sent
again with every request) cut to its first two lines.
"""

from __future__ import annotations

import json
import pickle
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI
from read_counts import indexed

FIXTURE = Path(__file__).parent / "fixtures" / "code-puppy"
TIDES = "auto_session_20261207_053010_851215_12155"
HARBOUR = "auto_session_20261207_053127_618584_13433"
HOURS = "lighthouse-hours"
PLANNER = "planning-agent-session-3a14b6"
MAIN = (TIDES, HARBOUR, HOURS)


@pytest.fixture
def home(cli: CLI, tmp_path: Path) -> Path:
    place = tmp_path / "home"
    shutil.copytree(FIXTURE / "home", place)
    return place / ".code_puppy"


def counted(path: Path) -> dict[str, Any]:
    """A session read without findsession: the typed prompts (user-prompt parts, a
    `/steer` among them, that are not Code Puppy's `[system note]`), the text parts, the
    tool-call parts, the tool-return and retry-prompt parts, and the failed ones among
    those (a retry, an outcome other than success, `success: false`, an `error`, a
    non-zero `exit_code`)."""
    return counted_messages(json.loads(path.read_text())["messages"])


def counted_messages(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """`counted` of a list of messages."""
    prompts, replies, calls, results, failed = [], 0, 0, 0, 0
    for msg in messages:
        for part in msg["parts"]:
            kind, body = part["part_kind"], part.get("content")
            if kind == "user-prompt" and not body.startswith("[system note]"):
                prompts.append(body)
            replies += kind == "text" and bool(body.strip())
            calls += kind == "tool-call"
            if kind in ("tool-return", "retry-prompt"):
                results += 1
                said = body if isinstance(body, dict) else {}
                code = said.get("exit_code")
                failed += (
                    kind == "retry-prompt"
                    or part.get("outcome", "success") != "success"
                    or said.get("success") is False
                    or bool(said.get("error"))
                    or (isinstance(code, int) and code != 0)
                )
    return {"prompts": prompts, "replies": replies, "calls": calls, "results": results,
            "failed": failed}  # fmt: skip


def hits(cli: CLI, query: str, *options: str) -> list[dict[str, Any]]:
    found = cli.json("search", "--mode", "keyword", "--source", "code-puppy", *options, query)
    return found["results"]


def test_each_session_is_one_session_as_an_independent_count_reads_it(
    cli: CLI, home: Path
) -> None:
    report = cli.json("index", "--no-embed")
    assert str(home / "autosaves") in report["roots"] and report["errors"] == []
    assert (report["files_read"], report["problems"], report["skipped"]) == (4, [], [])
    listed = {s["kind"]: s for s in cli.json("sources")["sources"]}["code-puppy"]
    assert (listed["sessions"], listed["subagents"]) == (3, 1)
    totals = dict.fromkeys(("prompts", "replies", "calls", "results", "failed"), 0)
    files = [home / "autosaves" / f"{sid}.json" for sid in MAIN]
    for path in [*files, home / "subagent_sessions" / f"{PLANNER}.json"]:
        mine = counted(path)
        assert indexed(cli, path.stem) == mine, path.stem
        totals = {k: totals[k] + (len(v) if k == "prompts" else v) for k, v in mine.items()}
    assert totals == {"prompts": 11, "replies": 22, "calls": 14, "results": 14, "failed": 6}
    assert indexed(cli, TIDES)["prompts"] == [
        "Write a small script tides.py that parses the harbour tide table CSV given on the "
        "command line",
        "Now skip the header row of the CSV",
        "Which day has the highest tide in the table?",
    ]
    assert cli.json("index", "--no-embed")["files_read"] == 0


def test_the_system_prompt_is_no_prompt(cli: CLI, home: Path) -> None:
    cli.json("index", "--no-embed")
    assert hits(cli, "highest tide")[0]["session"]["id"] in (TIDES, HARBOUR)
    for words in ("loyal digital puppy", "Biscuit", "Replacements applied"):
        assert hits(cli, words, "--speaker", "user") == [], words


def test_calls_pair_with_their_returns_and_the_failed_ones(cli: CLI, home: Path) -> None:
    cli.json("index", "--no-embed")
    first = cli.json("read", TIDES, "--tools")["turns"][0]["messages"]
    assert [(m["kind"], m["tool"], m["is_error"]) for m in first] == [
        ("prompt", None, False),
        ("thinking", None, False),
        ("reply", None, False),
        ("tool_call", "create_file", False),
        ("tool_output", "create_file", False),
        ("reply", None, False),
        ("tool_call", "shell", False),
        ("tool_output", "shell", True),  # exit_code 1
        ("reply", None, False),
    ]
    assert first[3]["text"].startswith("file_path: tides.py\ncontent: import csv")
    harbour = cli.json("read", HARBOUR, "--tools")["turns"]
    outputs = [(m["tool"], m["is_error"]) for t in harbour for m in t["messages"]
               if m["kind"] == "tool_output"]  # fmt: skip
    assert outputs == [
        ("create_file", True),  # success false: it would not overwrite hours.md
        ("replace_in_file", True),  # an error: the text was not in the file
        ("shell", False),
        ("agent_run_shell_command", True),  # a retry-prompt: no such tool
        ("shell", True),
    ]


def test_title_folder_and_resume(cli: CLI, home: Path) -> None:
    cli.json("index", "--no-embed")
    hours = hits(cli, "winter closing dates")[0]
    assert (hours["session"]["id"], hours["session"]["title"]) == (HOURS, HOURS)
    assert hours["session"]["cwd"] == "/home/dev/lighthouse"
    assert hours["resume"]["command"] == ["code-puppy", "--resume", HOURS]
    assert hours["resume"]["anywhere"] is True
    tides = cli.json("read", TIDES)["session"]
    assert tides["title"].startswith("Write a small script tides.py")  # no name given
    assert cli.json("read", TIDES)["session"]["cwd"] == "/home/dev/lighthouse"


def test_blame_through_its_writing_tools(cli: CLI, home: Path) -> None:
    cli.json("index", "--no-embed")
    writes = cli.json("blame", "/home/dev/lighthouse/hours.md")["writers"]
    # The create_file refused in harbour and the replace_in_file that found nothing
    # wrote nothing.
    assert [(w["session"]["id"], w["op"], w["tool"]) for w in writes] == [
        (HOURS, "edit", "delete_snippet"),
        (HOURS, "edit", "replace_in_file"),
        (HOURS, "create", "create_file"),
    ]
    assert "Closed from 1 December to 28 February." in writes[0]["removed"]
    assert "Closed from 1 December to 28 February." in writes[1]["added"]
    assert writes[2]["added"][-1] == "Tuesday to Sunday, 10:00-17:00."  # not `overwrite`
    tides = cli.json("blame", "/home/dev/lighthouse/tides.py")["writers"]
    assert [(w["op"], w["tool"]) for w in tides] == [
        ("edit", "replace_in_file"),
        ("create", "create_file"),
    ]
    assert "        next(rows, None)" in tides[0]["added"]


def test_a_subagent_is_a_session_under_the_one_that_invoked_it(cli: CLI, home: Path) -> None:
    cli.json("index", "--no-embed")
    planner = cli.json("read", PLANNER)["session"]
    assert (planner["subagent"], planner["parent_id"]) == (True, HOURS)
    assert planner["agent_type"] == "planning-agent"
    assert planner["title"].startswith("planning-agent: Plan the steps to publish")
    # Its prompt is the one the parent wrote for it, not the person's.
    assert hits(cli, "publish the lighthouse hours page", "--speaker", "user")


def test_a_subagent_indexed_before_the_session_that_invoked_it_was_saved_is_linked_later(
    cli: CLI, home: Path, tmp_path: Path
) -> None:
    """Code Puppy saves a subagent's history while the turn that invoked it runs, and
    that session only when the turn ends: an index run in between (the resident
    service's, on the subagent's change) finds no session naming it. When the parent is
    saved and read, the subagent is linked to it without its own file changing."""
    parent = [p for p in (home / "autosaves").glob(f"{HOURS}*.json")]
    aside = tmp_path / "aside"
    aside.mkdir()
    for path in parent:
        shutil.move(path, aside / path.name)
    cli.json("index", "--no-embed")
    assert cli.json("read", PLANNER)["session"]["parent_id"] is None
    for path in parent:
        shutil.move(aside / path.name, path)
    report = cli.json("index", "--no-embed")
    assert report["files_read"] == len(parent) - 1  # the session, not its sidecar
    planner = cli.json("read", PLANNER)["session"]
    assert (planner["subagent"], planner["parent_id"]) == (True, HOURS)


def test_a_session_saved_again_after_a_resume_is_read_again_whole(cli: CLI, home: Path) -> None:
    path = home / "autosaves" / f"{HARBOUR}.json"
    final = path.read_bytes()
    shutil.copy(FIXTURE / "before-resume" / f"{HARBOUR}.json", path)
    cli.json("index", "--no-embed")
    assert len(indexed(cli, HARBOUR)["prompts"]) == 2
    path.write_bytes(final)
    assert cli.json("index", "--no-embed")["files_read"] == 1
    assert indexed(cli, HARBOUR) == counted(path)
    assert indexed(cli, HARBOUR)["prompts"][-1] == "Check the lantern log for errors"


def test_a_document_caught_half_written_keeps_what_was_read(cli: CLI, home: Path) -> None:
    cli.json("index", "--no-embed")
    path = home / "autosaves" / f"{HOURS}.json"
    whole = path.read_bytes()
    path.write_bytes(whole[: len(whole) // 2])
    report = cli.json("index", "--no-embed")
    assert [p["reason"] for p in report["problems"]] == ["truncated JSON"]
    assert hits(cli, "winter closing dates")[0]["session"]["id"] == HOURS
    path.write_bytes(whole)
    assert cli.json("index", "--no-embed")["problems"] == []


class _Runs:
    """What unpickling this would do: create a file (the test checks it never appears)."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, ...]:
        return (Path.touch, (self.marker,))


def test_an_older_pickled_session_is_reported_and_never_unpickled(
    cli: CLI, home: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "unpickled"
    autosaves = home / "autosaves"
    (autosaves / "old-work.pkl").write_bytes(pickle.dumps([_Runs(marker)]))
    meta = {"session_name": "old-work", "message_count": 4, "auto_saved": False}
    (autosaves / "old-work_meta.json").write_text(json.dumps(meta))
    # A pickle beside its envelope is what Code Puppy no longer loads: not reported.
    (autosaves / f"{HOURS}.pkl").write_bytes(pickle.dumps([_Runs(marker)]))
    backup = autosaves / "pre_v2_backup"
    backup.mkdir()
    (backup / "older.pkl").write_bytes(pickle.dumps([_Runs(marker)]))
    report = cli.json("index", "--no-embed")
    skipped = report["skipped"]
    assert len(skipped) == 1 and skipped[0]["path"].endswith("old-work.pkl"), skipped
    assert "unpickling runs code" in skipped[0]["reason"]
    assert not marker.exists()
    assert report["files_read"] == 4


def test_xdg_folders_move_the_autosaves_and_the_subagents(
    cli: CLI, home: Path, tmp_path: Path
) -> None:
    cache, data = tmp_path / "cache" / "code_puppy", tmp_path / "data" / "code_puppy"
    cache.mkdir(parents=True)
    data.mkdir(parents=True)
    shutil.move(home / "autosaves", cache / "autosaves")
    shutil.move(home / "subagent_sessions", data / "subagent_sessions")
    cli.env["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    cli.env["XDG_DATA_HOME"] = str(tmp_path / "data")
    report = cli.json("index", "--no-embed")
    assert str(cache / "autosaves") in report["roots"]
    assert str(data / "subagent_sessions") in report["roots"]
    assert report["files_read"] == 4
    assert cli.json("read", PLANNER)["session"]["parent_id"] == HOURS


def test_a_steer_and_code_puppys_own_note_are_no_prompts(cli: CLI, home: Path) -> None:
    """The requests Code Puppy adds itself, in the shape its steer processor and its
    interrupted-subagent note build them (none of the fixtures' runs made one)."""
    path = home / "autosaves" / f"{TIDES}.json"
    doc = json.loads(path.read_text())
    when = "2026-12-07T05:30:32.000000Z"
    steer = "also print the height in feet"
    note = ("[system note] The sub-agent 'planning-agent' you invoked was interrupted by the "
            "user before it finished; no completed messages had been produced yet.")  # fmt: skip
    for text, metadata in ((steer, {"code_puppy_steer": True}), (note, None)):
        part = {"content": text, "timestamp": when, "part_kind": "user-prompt"}
        doc["messages"].append({"parts": [part], "timestamp": when, "instructions": "x",
                                "kind": "request", "metadata": metadata})  # fmt: skip
    path.write_text(json.dumps(doc, indent=2))
    cli.json("index", "--no-embed")
    messages = [m for t in cli.json("read", TIDES)["turns"] for m in t["messages"]]
    said = {m["text"]: (m["kind"], m["steers"]) for m in messages}
    assert said[steer] == ("prompt", True)  # typed into the last turn: it opens none
    assert len(cli.json("read", TIDES)["turns"]) == 3
    assert hits(cli, "interrupted by the user", "--speaker", "user") == []
    assert indexed(cli, TIDES)["prompts"] == counted(path)["prompts"]
    assert counted(path)["prompts"][-1] == steer
