"""Nanocoder's sessions (`~/.local/share/nanocoder/sessions/<id>.json`), through the real
CLI: prompts, calls and results counted by a reader of its own, what Nanocoder wrote into
user messages (a `!` command's output, an `@file` mention's inlined file, `/compact`'s
summary) kept out of the prompts, failed calls, titles, blame, `nanocoder --resume`, a
session rewritten whole as it goes on, a document caught half written, and the places
the sessions folder moves to.

The five sessions were written by the real Nanocoder against a scripted model on
localhost, in its terminal app driven through a pseudo-terminal (1.30.0 and 1.28.1) and
over ACP (1.30.0): tides (write_file, a command that failed, string_replace, `!ls`, an
`@README.md` mention, then `nanocoder --resume ID` with a diff_edit refused until the
file was read, read_file, diff_edit and a command); lighthouse (two prompts, `/compact`,
a third prompt); lantern (ACP, renamed over ACP's `renameSession`); harbour (1.28.1);
foghorn (a custom command, then a reply left empty after a command, which Nanocoder
answered with its nudge, the message its own title was then cut from); table (two
`@file` mentions with words typed after them: a 321-line CSV, inlined as its head, and a
short note).
`before-resume/` holds the tides session as it was before the resume. Only the home
folder was renamed to `/home/dev`.
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

FIXTURE = Path(__file__).parent / "fixtures" / "nanocoder"
SESSIONS = Path(".local") / "share" / "nanocoder" / "sessions"
TIDES = "0ab7146e-2723-4071-9898-466731f5eead"  # resumed once
LIGHTHOUSE = "6d0cecaa-8113-47c7-887d-94225df91439"  # compacted
LANTERN = "738eb4cc-b3be-4777-9ff8-b05d412e72f2"  # ACP, renamed
HARBOUR = "abd6db8e-7200-40eb-af05-58bf60ddb50c"  # Nanocoder 1.28.1
FOGHORN = "ef99115d-b021-49ca-a6fb-e7f7c052314e"  # a custom command, a nudge
TABLE = "fc502436-e9ac-438e-9de0-37b58b5bf749"  # a long and a short file mentioned
ALL = (TIDES, LIGHTHOUSE, LANTERN, HARBOUR, FOGHORN, TABLE)
#: How Nanocoder inlines a mentioned file: whole with a rule of `=` under it, or (over 250
#: lines) its head and a line naming the rest.
_INLINED = re.compile(
    r"=== File: \S+ (?:\(\d+ lines, showing first \d+\) )?===\nPath: (\S+)\n.*?\n"
    r"(?:=== \d+ more lines, use read_file\('[^']*'\) for the full file ===|=+)",
    re.DOTALL,
)
#: What Nanocoder writes as a user message itself (its nudges, a `!` command's output).
_NANOCODER_OWN = ("Bash command output:", "Please continue", "Please provide a summary",
                  "You produced reasoning", "Context has been compacted",
                  "Your previous response contained", "Automatic diagnostics")  # fmt: skip


@pytest.fixture
def sessions(cli: CLI, tmp_path: Path) -> Path:
    home = tmp_path / "home"
    shutil.copytree(FIXTURE / "home", home)
    return home / SESSIONS


def counted(path: Path) -> dict[str, Any]:
    """A session read without findsession: its typed prompts (each inlined file put back
    as the `@path` it was typed as), its replies, its calls, its results and the failed
    ones."""
    return counted_messages(json.loads(path.read_text())["messages"])


def counted_messages(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """`counted` of a session's messages."""
    prompts, replies, calls, results, failed = [], 0, 0, 0, 0
    for msg in messages:
        body = msg.get("content") or ""
        if msg["role"] == "user" and not body.startswith(("<conversation-summary>",
                                                          *_NANOCODER_OWN)):  # fmt: skip
            prompts.append(_INLINED.sub(r"@\1", body).strip())
        calls += len(msg.get("tool_calls") or [])
        replies += msg["role"] == "assistant" and bool(body.strip())
        if msg["role"] == "tool":
            results += 1
            code = re.match(r"EXIT_CODE: (\d+)", body)
            failed += body.startswith(("Error: ", "⚒ Validation failed")) or bool(
                code and code.group(1) != "0"
            )
    return {
        "prompts": prompts,
        "replies": replies,
        "calls": calls,
        "results": results,
        "failed": failed,
    }


def hits(cli: CLI, query: str, *options: str) -> list[dict[str, Any]]:
    found = cli.json("search", "--mode", "keyword", "--source", "nanocoder", *options, query)
    return found["results"]


def test_each_session_file_is_one_session_as_an_independent_count_reads_it(
    cli: CLI, sessions: Path
) -> None:
    report = cli.json("index", "--no-embed")
    assert str(sessions) in report["roots"] and report["errors"] == []
    assert (report["files_read"], report["problems"]) == (6, [])  # sessions.json is none
    listed = {s["kind"]: s for s in cli.json("sources")["sources"]}["nanocoder"]
    assert (listed["sessions"], listed["subagents"]) == (6, 0)
    totals = dict.fromkeys(("prompts", "replies", "calls", "results", "failed"), 0)
    for sid in ALL:
        mine = counted(sessions / f"{sid}.json")
        assert indexed(cli, sid) == mine, sid
        totals = {k: totals[k] + (len(v) if k == "prompts" else v) for k, v in mine.items()}
    assert totals == {"prompts": 11, "replies": 21, "calls": 11, "results": 11, "failed": 4}
    assert indexed(cli, TIDES)["prompts"] == [
        "Write a Python script tides.py that parses the harbour tide table CSV",
        "Now skip the header row please",
        "What does the readme say? @README.md",
        "Add a changelog entry for the tide parser",
    ]
    assert indexed(cli, TABLE)["prompts"] == [
        "Which day has the highest tide in @tides.csv and when?",
        "Do my @NOTES.md say the same?",
    ]
    assert cli.json("index", "--no-embed")["files_read"] == 0


def test_what_nanocoder_wrote_into_user_messages_is_not_a_prompt(cli: CLI, sessions: Path) -> None:
    cli.json("index", "--no-embed")
    assert hits(cli, "readme say")[0]["session"]["id"] == TIDES
    # The files mentions inlined, the `!ls` output, /compact's summary.
    for words in ("master export", "Bash output", "failed on purpose", "Tue", "Thursday"):
        assert hits(cli, words, "--speaker", "user") == [], words
    turns = cli.json("read", LIGHTHOUSE)["turns"]
    assert [m["kind"] for m in turns[0]["messages"]][0] == "reply"  # the summary opens none
    assert len(turns) == 2 and turns[1]["messages"][0]["text"] == (
        "Which lighthouse days are closed?"
    )
    # A custom command is the prompt it was sent as; a nudge opens no turn.
    foghorn = cli.json("read", FOGHORN)
    assert foghorn["session"]["title"] == "Check the fog horn schedule"
    turns = foghorn["turns"]
    assert turns[0]["messages"][0]["text"].startswith("[Executing custom command: /tide-report]")
    assert [m["kind"] for m in turns[1]["messages"]] == ["prompt", "reply", "reply"]
    assert hits(cli, "summary or response based on the tool results", "--speaker", "user") == []
    # Nanocoder's own title for it was cut from a message holding an inlined file.
    assert cli.json("read", TABLE)["session"]["title"] == "Do my @NOTES.md say the same?"


def test_calls_results_and_the_failed_ones(cli: CLI, sessions: Path) -> None:
    cli.json("index", "--no-embed")
    turns = cli.json("read", TIDES, "--tools")["turns"]
    first = [(m["kind"], m["tool"], m["is_error"]) for m in turns[0]["messages"]]
    assert first == [
        ("prompt", None, False),
        ("thinking", None, False),
        ("reply", None, False),
        ("tool_call", "write_file", False),
        ("tool_output", "write_file", False),
        ("reply", None, False),
        ("tool_call", "execute_bash", False),
        ("tool_output", "execute_bash", True),  # EXIT_CODE: 1
        ("reply", None, False),
    ]
    last = [(m["tool"], m["is_error"]) for m in turns[3]["messages"] if m["kind"] == "tool_output"]
    assert last == [
        ("diff_edit", True),  # ⚒ Validation failed: read it first
        ("read_file", False),
        ("diff_edit", False),
        ("execute_bash", False),  # EXIT_CODE: 0
    ]
    call = next(m for m in turns[0]["messages"] if m["kind"] == "tool_call")
    assert call["text"].startswith("path: tides.py\ncontent: import csv")


def test_titles_folder_and_resume(cli: CLI, sessions: Path) -> None:
    cli.json("index", "--no-embed")
    lantern = hits(cli, "lantern maintenance steps")
    titles = {h["session"]["id"]: h["session"]["title"] for h in lantern}
    # A rename over ACP is the person's title; else the prompt Nanocoder's title is cut
    # from (the CLI's last prompt).
    assert titles == {LANTERN: "Lantern upkeep", HARBOUR: "What are the lantern maintenance steps?"}
    tides = hits(cli, "tide parser")[0]
    assert tides["session"]["title"] == "Add a changelog entry for the tide parser"
    assert tides["session"]["cwd"] == "/home/dev/tides"
    resume = tides["resume"]
    assert resume["command"] == ["nanocoder", "--resume", TIDES]
    # Run in the session's folder; where the person is when (as on most machines) the
    # fixture's /home/dev/tides is not there (the `open` test below has both).
    gone = not Path("/home/dev/tides").is_dir()
    assert (resume["cwd"], resume["anywhere"]) == (None if gone else "/home/dev/tides", True)
    assert "/resume" in resume["note"]


def test_open_runs_nanocoder_in_the_session_folder_or_where_one_is_once_it_is_gone(
    cli: CLI, sessions: Path, tmp_path: Path
) -> None:
    """Nanocoder loads a session by its id from any folder: `open` runs it in the
    session's folder while that exists, and where the person is once it is gone."""
    project = tmp_path / "tides"
    project.mkdir()
    path = sessions / f"{TIDES}.json"
    path.write_text(path.read_text().replace('"/home/dev/tides"', json.dumps(str(project))))
    cli.json("index", "--no-embed")
    record = stand_in(cli, tmp_path, "nanocoder")
    ran = cli.run("open", TIDES, check=False)
    assert ran.returncode == 7, ran.stderr  # the stand-in took the process over
    assert json.loads(record.read_text()) == {
        "argv": ["--resume", TIDES],
        "cwd": str(project),
    }
    project.rmdir()
    printed = cli.run("open", TIDES, "--print")
    assert printed.stdout.split() == ["nanocoder", "--resume", TIDES]  # no `cd` to it
    assert "warning" not in printed.stderr and "is gone: it resumes here" in printed.stderr
    ran = cli.run("open", TIDES, check=False, cwd=tmp_path)
    assert ran.returncode == 7, ran.stderr
    assert json.loads(record.read_text())["cwd"] == str(tmp_path)


def test_blame_through_its_writing_tools(cli: CLI, sessions: Path) -> None:
    cli.json("index", "--no-embed")
    writes = cli.json("blame", "/home/dev/tides/tides.py")["writers"]
    assert [(w["session"]["id"], w["op"], w["tool"]) for w in writes] == [
        (TIDES, "edit", "string_replace"),
        (TIDES, "create", "write_file"),
    ]
    assert "next(rows, None)" in "\n".join(writes[0]["added"])
    changelog = cli.json("blame", "/home/dev/tides/CHANGELOG.md")["writers"]
    # The diff_edit Nanocoder refused wrote nothing.
    assert [(w["op"], w["tool"]) for w in changelog] == [("edit", "diff_edit")]
    assert "- Tide parser: skip the CSV header row" in changelog[0]["added"]


def test_a_session_saved_again_after_a_resume_is_read_again_whole(cli: CLI, sessions: Path) -> None:
    final = (sessions / f"{TIDES}.json").read_bytes()
    shutil.copy(FIXTURE / "before-resume" / f"{TIDES}.json", sessions / f"{TIDES}.json")
    cli.json("index", "--no-embed")
    before = hits(cli, "readme say")[0]["session"]
    # Its title then was cut from a message holding the inlined README: not a prompt's.
    assert before["title"] == "What does the readme say? @README.md"
    assert hits(cli, "changelog entry") == []
    (sessions / f"{TIDES}.json").write_bytes(final)
    assert cli.json("index", "--no-embed")["files_read"] == 1
    assert len(indexed(cli, TIDES)["prompts"]) == 4
    listed = {s["kind"]: s for s in cli.json("sources")["sources"]}["nanocoder"]
    assert listed["sessions"] == 6


def test_a_document_caught_half_written_keeps_what_was_read(cli: CLI, sessions: Path) -> None:
    cli.json("index", "--no-embed")
    path = sessions / f"{LIGHTHOUSE}.json"
    whole = path.read_bytes()
    path.write_bytes(whole[: len(whole) // 2])
    report = cli.json("index", "--no-embed")
    assert [p["reason"] for p in report["problems"]] == ["truncated JSON"]
    assert hits(cli, "lighthouse days closed")[0]["session"]["id"] == LIGHTHOUSE
    path.write_bytes(whole)
    assert cli.json("index", "--no-embed")["problems"] == []


def test_the_data_folder_and_a_configured_sessions_folder_are_read(
    cli: CLI, sessions: Path, tmp_path: Path
) -> None:
    moved = tmp_path / "elsewhere"
    shutil.move(sessions.parent, moved)
    cli.env["NANOCODER_DATA_DIR"] = str(moved)
    kept = tmp_path / "home" / "kept-sessions"
    kept.mkdir()
    shutil.move(moved / "sessions" / f"{LANTERN}.json", kept / f"{LANTERN}.json")
    config = tmp_path / "home" / ".config" / "nanocoder"
    config.mkdir(parents=True)
    preferences = {"nanocoder": {"sessions": {"directory": "~/kept-sessions"}}}
    (config / "nanocoder-preferences.json").write_text(json.dumps(preferences))
    report = cli.json("index", "--no-embed")
    assert str(moved / "sessions") in report["roots"] and str(kept) in report["roots"]
    assert report["files_read"] == 6
    assert cli.json("read", LANTERN)["session"]["path"] == str(kept / f"{LANTERN}.json")
