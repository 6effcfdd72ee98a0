"""Open Interpreter's conversations (`~/.config/open-interpreter/conversations/*.json`),
through the real CLI: prompts, code blocks and their output counted by a reader of its
own, the failed runs, what the terminal wrote as the person's message (a declined
block) kept out of the prompts, titles, blame through a shell heredoc, the resume
(`interpreter --conversations`, a list to pick from), a conversation written again
whole after a resume, a file caught half written, and `XDG_CONFIG_HOME`.

The three conversations were written by the real Open Interpreter 0.4.3, its terminal
fed from a pipe, against a scripted model on localhost (markdown code blocks): `write my
todo notes` (a shell heredoc writing notes/todo.md, Python counting its lines, a `cat`
of a missing file, a Python traceback; then resumed through `interpreter
--conversations`, its pick answered, and one more prompt with a `sed`), `I add water
the plants` (the `interpreter WORDS` shortcut: a bash heredoc appending a line, then a
Python exception), `start over with a clean notes folder` (a block the person declined,
then one more prompt). Only the home folder in a traceback was renamed to `/home/dev`.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI
from read_counts import indexed
from test_resume import stand_in

FIXTURE = Path(__file__).parent / "fixtures" / "open_interpreter"
CONVERSATIONS = Path(".config") / "open-interpreter" / "conversations"
TODO = "write_my_todo_notes_into__December_06_2026_23-41-09"  # resumed once
PLANTS = "I_add_water_the_plants__December_06_2026_23-41-38"  # the `interpreter WORDS` way
CLEAN = "start_over_with_a_clean__December_06_2026_23-43-00"  # a block declined
ALL = (TODO, PLANTS, CLEAN)
#: How the messages of TODO stood before the resume added its last four.
BEFORE_RESUME = 17


@pytest.fixture
def conversations(cli: CLI, tmp_path: Path) -> Path:
    home = tmp_path / "home"
    shutil.copytree(FIXTURE / "home", home)
    return home / CONVERSATIONS


def counted(path: Path) -> dict[str, Any]:
    """A conversation read without findsession: what the person typed, the replies, the
    code blocks, the outputs that say something and the failed ones (an exception's
    name or a missing file on the last line)."""
    prompts, replies, calls, results, failed = [], 0, 0, 0, 0
    for msg in json.loads(path.read_text()):
        body = msg["content"] if isinstance(msg["content"], str) else ""
        typed = (msg["role"], msg["type"]) == ("user", "message")
        if typed and body != "I have declined to run this code.":
            prompts.append(body)
        replies += (msg["role"], msg["type"]) == ("assistant", "message") and bool(body.strip())
        calls += msg["type"] == "code"
        if msg["type"] == "console" and body.strip():
            results += 1
            last = body.strip().splitlines()[-1]
            failed += bool(re.search(r"Error\b|No such file", last))
    return {"prompts": prompts, "replies": replies, "calls": calls, "results": results,
            "failed": failed}  # fmt: skip


def hits(cli: CLI, query: str, *options: str) -> list[dict[str, Any]]:
    found = cli.json("search", "--mode", "keyword", "--source", "open-interpreter", *options, query)
    return found["results"]


def test_each_file_is_one_conversation_as_an_independent_count_reads_it(
    cli: CLI, conversations: Path
) -> None:
    report = cli.json("index", "--no-embed")
    assert str(conversations) in report["roots"] and report["errors"] == []
    assert (report["files_read"], report["problems"]) == (3, [])
    listed = {s["kind"]: s for s in cli.json("sources")["sources"]}["open-interpreter"]
    assert listed["sessions"] == 3
    totals = dict.fromkeys(("prompts", "replies", "calls", "results", "failed"), 0)
    for sid in ALL:
        mine = counted(conversations / f"{sid}.json")
        assert indexed(cli, sid) == mine, sid
        totals = {k: totals[k] + (len(v) if k == "prompts" else v) for k, v in mine.items()}
    assert totals == {"prompts": 8, "replies": 12, "calls": 8, "results": 5, "failed": 3}
    assert indexed(cli, TODO)["prompts"] == [
        "write my todo notes into notes/todo.md please",
        "how many lines does it have? also show notes/missing.txt",
        "now parse this json for me: {broken",
        "mark the syncthing item done",
    ]
    assert cli.json("index", "--no-embed")["files_read"] == 0


def test_code_blocks_their_output_and_the_failed_runs(cli: CLI, conversations: Path) -> None:
    cli.json("index", "--no-embed")
    turns = cli.json("read", TODO, "--tools")["turns"]
    second = [(m["kind"], m["tool"], m["is_error"]) for m in turns[1]["messages"]]
    assert second == [
        ("prompt", None, False),
        ("reply", None, False),
        ("tool_call", "python", False),
        ("tool_output", "python", False),  # 3
        ("reply", None, False),
        ("tool_call", "shell", False),
        ("tool_output", "shell", True),  # cat: notes/missing.txt: No such file or directory
        ("reply", None, False),
    ]
    third = [(m["kind"], m["is_error"]) for m in turns[2]["messages"]]
    assert third == [
        ("prompt", False),
        ("tool_call", False),
        ("tool_output", True),  # JSONDecodeError's traceback
        ("reply", False),
    ]
    call = next(m for m in turns[0]["messages"] if m["kind"] == "tool_call")
    assert call["text"].startswith("mkdir -p notes && cat > notes/todo.md <<'EOF'")
    # The heredoc printed nothing: no output is read, the call stays unanswered.
    assert [m["kind"] for m in turns[0]["messages"]].count("tool_output") == 0


def test_a_declined_block_is_no_prompt(cli: CLI, conversations: Path) -> None:
    cli.json("index", "--no-embed")
    assert hits(cli, "declined", "--speaker", "user") == []
    turns = cli.json("read", CLEAN, "--tools")["turns"]
    assert [t["messages"][0]["text"] for t in turns] == [
        "start over with a clean notes folder",
        "fine, keep it then",
    ]
    assert hits(cli, "keep it then")[0]["session"]["id"] == CLEAN


def test_titles_times_and_resume(cli: CLI, conversations: Path) -> None:
    cli.json("index", "--no-embed")
    plants = hits(cli, "water the plants")[0]
    assert plants["session"]["id"] == PLANTS
    # The shortcut's words as Open Interpreter sent them, with its `I `.
    assert plants["session"]["title"] == "I add water the plants to my todo list"
    resume = plants["resume"]
    assert resume["command"] == ["interpreter", "--conversations"]
    assert resume["session_id"] == PLANTS and resume["anywhere"] is True
    assert '"I add water the plants... (December 06 2026 23-41-38)"' in resume["note"]
    todo = cli.json("read", TODO)["session"]
    assert todo["title"] == "write my todo notes into notes/todo.md please"
    # Named in local time when the first answer came; the test runs in UTC.
    assert todo["started"].startswith("2026-12-06T23:41:09")


def test_open_prints_the_list_command_and_its_note(
    cli: CLI, conversations: Path, tmp_path: Path
) -> None:
    cli.json("index", "--no-embed")
    printed = cli.run("open", TODO, "--print")
    assert printed.stdout.split() == ["interpreter", "--conversations"]
    assert "write my todo notes into... (December 06 2026 23-41-09)" in printed.stderr
    record = stand_in(cli, tmp_path, "interpreter")
    ran = cli.run("open", TODO, check=False, cwd=tmp_path)
    assert ran.returncode == 7, ran.stderr
    assert json.loads(record.read_text()) == {"argv": ["--conversations"], "cwd": str(tmp_path)}


def test_blame_through_shell_heredocs(cli: CLI, conversations: Path, tmp_path: Path) -> None:
    cli.json("index", "--no-embed")
    todo = tmp_path / "notes" / "todo.md"
    writes = cli.json("blame", str(todo))["writers"]
    by_tool = {w["tool"]: w for w in writes}
    assert {(w["session"]["id"], w["tool"]) for w in writes} == {(PLANTS, "bash"), (TODO, "shell")}
    assert by_tool["bash"]["added"] == ["- water the plants"]
    assert "- rotate the backup keys" in by_tool["shell"]["added"]


def test_a_conversation_written_again_after_a_resume_is_read_again_whole(
    cli: CLI, conversations: Path
) -> None:
    path = conversations / f"{TODO}.json"
    final = path.read_bytes()
    path.write_text(json.dumps(json.loads(final)[:BEFORE_RESUME]))
    cli.json("index", "--no-embed")
    assert hits(cli, "marked") == []
    path.write_bytes(final)
    assert cli.json("index", "--no-embed")["files_read"] == 1
    assert hits(cli, "marked")[0]["session"]["id"] == TODO
    assert len(indexed(cli, TODO)["prompts"]) == 4
    assert {s["kind"]: s for s in cli.json("sources")["sources"]}["open-interpreter"][
        "sessions"
    ] == 3


def test_a_file_caught_half_written_keeps_what_was_read(cli: CLI, conversations: Path) -> None:
    cli.json("index", "--no-embed")
    path = conversations / f"{PLANTS}.json"
    whole = path.read_bytes()
    path.write_bytes(whole[: len(whole) // 2])
    report = cli.json("index", "--no-embed")
    assert [p["reason"] for p in report["problems"]] == ["truncated JSON"]
    assert hits(cli, "water the plants")[0]["session"]["id"] == PLANTS
    path.write_bytes(whole)
    assert cli.json("index", "--no-embed")["problems"] == []


def test_xdg_config_home_moves_the_folder(cli: CLI, conversations: Path, tmp_path: Path) -> None:
    moved = tmp_path / "elsewhere"
    shutil.move(conversations.parent, moved / "open-interpreter")
    cli.env["XDG_CONFIG_HOME"] = str(moved)
    report = cli.json("index", "--no-embed")
    assert str(moved / "open-interpreter" / "conversations") in report["roots"]
    assert report["files_read"] == 3


def test_a_block_in_another_shell_language_is_read_as_the_shell(
    cli: CLI, conversations: Path, tmp_path: Path
) -> None:
    """Open Interpreter runs `sh` and `zsh` blocks in its shell as it runs `bash` ones
    (the real block's language changed, the rest as written)."""
    path = conversations / f"{PLANTS}.json"
    path.write_text(path.read_text().replace('"format": "bash"', '"format": "zsh"'))
    cli.json("index", "--no-embed")
    writes = cli.json("blame", str(tmp_path / "notes" / "todo.md"))["writers"]
    assert {(w["session"]["id"], w["tool"]) for w in writes} == {(PLANTS, "zsh"), (TODO, "shell")}
