"""Hermes Agent's `state.db`, through the real CLI: each conversation one session with
exactly its typed prompts, calls and results (counted by `hermes_counts`, which reads the
rows by rules of its own), what Hermes wrote itself kept out of the prompts, compaction's
copies and a branch's read once, what `/undo` took back not read, a subagent under its
parent, the gateway's chats, profiles, `hermes --resume`, only the conversations that
changed read again, a locked or broken store, and the oldest schema.

The stores were written by the real Hermes Agent against a scripted model on localhost
(then the kernel's version cut from the `Host:` line of each session's system prompt):

- `home/.hermes/state.db`, Hermes 0.19.0 (schema 22), in `/home/dev/projects/*`:
  `greeter`: `hermes chat -q` wrote and ran greet.py; `hermes --resume` went on with a
  patch and a command that failed, `/title Greeter work`, a test file (reasoning, two
  calls at once, pytest missing), a V4A patch, `/compress` (in place), one more prompt.
  `kitchen`: a question, `/undo` and the same question again, another, and the
  `/plant-care` skill with an instruction. `notes`: a `delegate_task` (a subagent, its
  report coming back as `[ASYNC DELEGATION …]`), then `/branch` and a prompt on the
  branch. `garden`, with `compression.in_place: false`: five prompts, `/compress here 1`
  (the session ended and went on in a new one), one more. The messaging gateway with a
  stand-in Telegram Bot API: a direct chat of two messages and a group chat of one. A
  `greeter` run whose `/steer` Hermes delivered to the model but did not store. A job
  made with `hermes cron create` and run by `hermes cron tick` (the folder the
  scheduler ran in, `/tmp`, renamed `/home/dev` in its system prompt).
- `home/.hermes/profiles/work/state.db`: `hermes profile create work`, `hermes -p work
  chat -q`.
- `0.13/state.db`: Hermes 0.13.0 (schema 11: no `cwd`, no tool names on results) with
  `HERMES_HOME` set: the greet.py run, then `--resume` with the patch.
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
from hermes_counts import counted
from test_resume import stand_in

from findsession.sources.hermes import file_id

FIXTURES = Path(__file__).parent / "fixtures" / "hermes"
GREETER = "20261206_221852_982717"
KITCHEN = "20261206_221947_4e4009"
NOTES = "20261206_222048_35e3f8"
HELPER = "20261206_222059_b3c587"  # the subagent NOTES delegated to
BRANCH = "20261206_222108_5ceb32"
GARDEN = "20261206_222211_e5f761"  # compressed into GARDEN_2
GARDEN_2 = "20261206_222252_9e17ad"
DIRECT = "20261206_222314_410c7ac6"  # Telegram, a direct chat
GROUP = "20261206_222314_1e2f9212"  # Telegram, a group chat
CRON = "cron_decfa4c7e57b_20261206_224057"  # `hermes cron tick`
WORK = "20261206_222525_7e0a2e"  # the `work` profile's
OLD = "20261206_222534_70e885"  # 0.13.0


@pytest.fixture
def home(cli: CLI, tmp_path: Path) -> Path:
    """Hermes' home in its standard place under the CLI's home."""
    folder = tmp_path / "home" / ".hermes"
    shutil.copytree(FIXTURES / "home" / ".hermes", folder)
    return folder


def sid(db: Path, key: str) -> str:
    return f"{file_id(db)}:{key}"


def index(cli: CLI, *more: str) -> dict[str, Any]:
    return cli.json("index", "--no-embed", *more)


def hits(cli: CLI, query: str, *more: str) -> list[dict[str, Any]]:
    return cli.json("search", "--mode", "keyword", "--source", "hermes", *more, query)["results"]


def messages(cli: CLI, session: str) -> list[dict[str, Any]]:
    turns = cli.json("read", session, "--tools")["turns"]
    return [m for t in turns for m in t["messages"]]


def prompts(cli: CLI, session: str) -> list[str]:
    return [m["text"] for m in messages(cli, session) if m["kind"] == "prompt"]


def on_disk(folder: Path) -> bytes:
    files = sorted(p for p in folder.rglob("*") if p.is_file() and not p.name.endswith("-shm"))
    return hashlib.sha256(b"".join(p.read_bytes() for p in files)).digest()


def test_each_conversation_is_one_session_with_exactly_its_prompts_calls_and_results(
    cli: CLI, home: Path
) -> None:
    before = on_disk(home)
    report = index(cli)
    assert str(home) in report["roots"] and report["errors"] == report["problems"] == []
    assert on_disk(home) == before  # Hermes' store, byte for byte
    listed = {s["kind"]: s for s in cli.json("sources")["sources"]}["hermes"]
    stores = [home / "state.db", home / "profiles" / "work" / "state.db"]
    expected = {sid(db, key): c for db in stores for key, c in counted(db).items()}
    assert (listed["files"], listed["sessions"] + listed["subagents"]) == (2, len(expected))
    assert len(expected) == 11
    assert sum(len(c.prompts) for c in expected.values()) == 23
    assert sum(len(c.calls) for c in expected.values()) == 12
    for session, c in expected.items():
        said = messages(cli, session)
        assert [m["text"] for m in said if m["kind"] == "prompt"] == c.prompts, session
        assert len([m for m in said if m["kind"] == "tool_call"]) == len(c.calls), session
        assert len([m for m in said if m["kind"] == "tool_output"]) == len(c.results), session
    assert index(cli)["files_read"] == 0


def test_calls_pair_with_their_results_and_failures_are_marked(cli: CLI, home: Path) -> None:
    index(cli)
    said = messages(cli, sid(home / "state.db", GREETER))
    tools = [(m["kind"], m["tool"], m["is_error"]) for m in said if m["tool"]]
    assert tools == [
        ("tool_call", "write_file", False),
        ("tool_output", "write_file", False),
        ("tool_call", "terminal", False),
        ("tool_output", "terminal", False),
        ("tool_call", "patch", False),
        ("tool_output", "patch", False),
        ("tool_call", "terminal", False),
        ("tool_output", "terminal", True),  # missing_script.py: exit code 2
        ("tool_call", "write_file", False),
        ("tool_call", "read_file", False),  # two calls at once, then their results
        ("tool_output", "write_file", False),
        ("tool_output", "read_file", False),
        ("tool_call", "terminal", False),
        ("tool_output", "terminal", True),  # no pytest: exit code 1
        ("tool_call", "patch", False),
        ("tool_output", "patch", False),
    ]
    outputs = [m["text"] for m in said if m["kind"] == "tool_output"]
    assert outputs[1] == "Hello world"  # the command's output, not Hermes' JSON around it
    assert outputs[5].startswith("1|def greet(name):")  # read_file's text
    thinking = [m["text"] for m in said if m["kind"] == "thinking"]
    assert thinking == ["The person wants a test file; write it then run pytest."]
    assert hits(cli, "pytest", "--speaker", "user") == []


def test_a_compaction_keeps_each_message_once_in_place_or_in_a_new_session(
    cli: CLI, home: Path
) -> None:
    """0.19 compacts in place: the summarised rows stay, and the summary comes with copies
    of the messages it kept. Before, the session ended and a new one began with them."""
    index(cli)
    db = home / "state.db"
    assert prompts(cli, sid(db, GREETER)) == [
        "Write greet.py that greets a name, and run it.",
        "Make the greeting end with an exclamation mark, then run it and also run"
        " missing_script.py",
        "Now add tests for greet and run them",
        "Use a V4A patch to rename the argument of the greeting function to person",
        "What do you remember about our work so far?",
    ]
    garden = cli.json("read", sid(db, GARDEN))
    assert garden["session"]["title"] == "Watering tomatoes"  # not the continuation's "#2"
    assert [m["text"] for t in garden["turns"] for m in t["messages"] if m["kind"] == "prompt"][
        -3:
    ] == [
        "What does WAL mode change for readers?",
        "Write greet.py that greets a name, and run it.",
        "Thanks, and what did you say about the kettle?",  # asked in the continuation
    ]
    assert cli.run("read", sid(db, GARDEN_2), check=False).returncode != 0
    assert hits(cli, "COMPACTION REFERENCE", "--speaker", "user") == []


def test_what_hermes_wrote_is_not_a_prompt(cli: CLI, home: Path) -> None:
    index(cli)
    db = home / "state.db"
    assert prompts(cli, sid(db, KITCHEN)) == [
        "How do I descale a kettle?",  # asked, taken back with /undo, asked again: once
        "How often should I water tomatoes?",
        "/plant-care how much water does basil need?",  # the skill's text is Hermes'
    ]
    assert hits(cli, "common mistake", "--speaker", "user") == []  # in SKILL.md only
    notes = messages(cli, sid(db, NOTES))
    assert [m["text"] for m in notes if m["kind"] == "prompt"] == [
        "Please delegate a research question to a subagent."
    ]
    assert hits(cli, "fan-out", "--speaker", "user") == []  # the subagent's report


def test_a_branch_keeps_only_its_own_messages_and_a_subagent_its_parent(
    cli: CLI, home: Path
) -> None:
    index(cli)
    db = home / "state.db"
    branch = cli.json("read", sid(db, BRANCH))
    assert [m["text"] for t in branch["turns"] for m in t["messages"] if m["kind"] == "prompt"] == [
        "On this branch try tabs"
    ]
    assert branch["session"]["subagent"] is False  # resumed by its own id
    assert branch["session"]["cwd"] == "/home/dev/projects/notes"  # from its system prompt
    helper = cli.json("read", sid(db, HELPER))["session"]
    assert (helper["subagent"], helper["parent_id"]) == (True, sid(db, NOTES))
    assert hits(cli, "delegate research question")[0]["session"]["id"] == sid(db, NOTES)


def test_the_gateways_chats_are_read_and_say_where_they_came_from(cli: CLI, home: Path) -> None:
    index(cli)
    db = home / "state.db"
    direct = cli.json("read", sid(db, DIRECT))
    assert direct["session"]["title"] == "Watering tomatoes #3 (telegram)"
    assert [m["text"] for t in direct["turns"] for m in t["messages"] if m["kind"] == "prompt"] == [
        "How often should I water tomatoes?",
        "And how do I descale a kettle?",
    ]
    group = hits(cli, "basil July")[0]
    assert group["session"]["id"] == sid(db, GROUP)
    assert group["session"]["title"] == "A short chat #3 (telegram)"
    assert group["resume"]["command"] == ["hermes", "--resume", GROUP]
    job = cli.json("read", sid(db, CRON))
    assert job["session"]["title"] == "Tomato reminder · Dec 06 22:40 (cron)"
    # The job's prompt, after the scheduler's instructions to the agent.
    assert [m["text"] for t in job["turns"] for m in t["messages"] if m["kind"] == "prompt"] == [
        "Remind me when to water the tomatoes this week"
    ]
    assert hits(cli, "SILENT suppress delivery", "--speaker", "user") == []


def test_resume_is_hermes_resume_with_the_profile_that_holds_it(
    cli: CLI, home: Path, tmp_path: Path
) -> None:
    index(cli)
    db = home / "state.db"
    greeter = cli.json("open", sid(db, GREETER))["resume"]
    assert greeter["command"] == ["hermes", "--resume", GREETER]
    # Run in the folder it was recorded in; where that is gone (on most machines), where
    # the person is: Hermes finds it by its id from anywhere.
    recorded = "/home/dev/projects/greeter"
    there = recorded if Path(recorded).is_dir() else None
    assert (greeter["cwd"], greeter["anywhere"]) == (there, True)
    work = hits(cli, "unpaid invoice")[0]
    assert work["resume"]["command"] == ["hermes", "-p", "work", "--resume", WORK]
    (home / "active_profile").write_text("work\n")  # `hermes profile use work`
    assert cli.json("open", sid(db, GREETER))["resume"]["command"] == [
        "hermes", "-p", "default", "--resume", GREETER
    ]  # fmt: skip
    assert cli.json("open", sid(home / "profiles" / "work" / "state.db", WORK))["resume"][
        "command"
    ] == ["hermes", "--resume", WORK]
    elsewhere = tmp_path / "copy"
    shutil.copytree(FIXTURES / "0.13", elsewhere)
    index(cli, "--source", "hermes", str(elsewhere))
    old = cli.json("open", sid(elsewhere / "state.db", OLD))["resume"]
    assert old["command"] == ["env", f"HERMES_HOME={elsewhere}", "hermes", "--resume", OLD]


def test_open_runs_hermes_from_any_folder(cli: CLI, home: Path, tmp_path: Path) -> None:
    index(cli)
    found = sid(home / "state.db", DIRECT)
    printed = cli.run("open", found, "--print")
    assert printed.stdout.split()[-3:] == ["hermes", "--resume", DIRECT]
    assert "warning" not in printed.stderr  # wherever the gateway ran, or no such folder
    # The folder it was recorded in (a developer's /home/dev/...) is gone on most machines:
    # then it is said once, and the line runs where the person is, with no `cd` to fail.
    recorded = cli.json("read", found)["session"]["cwd"]
    gone = not Path(recorded).is_dir()
    assert ("is gone: it resumes here" in printed.stderr) == gone
    assert printed.stdout.startswith("cd ") != gone
    record = stand_in(cli, tmp_path, "hermes")
    ran = cli.run("open", found, check=False)
    assert ran.returncode == 7, ran.stderr  # hermes took the process over
    assert json.loads(record.read_text())["argv"] == ["--resume", DIRECT]


def test_blame_follows_write_file_patch_and_a_v4a_patch(cli: CLI, home: Path) -> None:
    index(cli)
    found = cli.json("blame", "/home/dev/projects/greeter/greet.py")["writers"]
    writes = [(w["tool"], w["op"], w["turn"]) for w in found]
    assert writes == [("patch", "patch", 4), ("patch", "edit", 2), ("write_file", "create", 1)]
    assert found[0]["added"] == ["def greet(person):", "    return 'Hello, ' + person + '!'"]
    assert found[1]["removed"] == ["'Hello ' + name"]


def test_only_the_conversation_hermes_changed_is_read_again(cli: CLI, home: Path) -> None:
    index(cli)
    db = home / "state.db"
    conn = sqlite3.connect(db)
    conn.execute(
        "INSERT INTO messages (session_id, role, content, timestamp) VALUES"
        " (?, 'user', 'Which mulch keeps the tomato beds moist?', 1796596000.0)",
        (GARDEN_2,),
    )
    conn.commit()
    conn.close()
    report = index(cli)
    assert (report["files_read"], report["lines_read"], report["sessions_changed"]) == (1, 1, 1)
    hit = hits(cli, "mulch tomato beds")[0]
    assert hit["session"]["id"] == sid(db, GARDEN)  # the continuation's conversation
    conn = sqlite3.connect(db)
    conn.execute("UPDATE messages SET active = 0 WHERE content LIKE 'Which mulch%'")  # /undo
    conn.commit()
    conn.close()
    assert index(cli)["sessions_changed"] == 1
    assert "Which mulch keeps the tomato beds moist?" not in prompts(cli, sid(db, GARDEN))


def test_a_steer_hermes_appended_to_a_result_is_the_persons(cli: CLI, home: Path) -> None:
    """`/steer` text rides on the last tool result, as `format_steer_marker` writes it (the
    fixture's run delivered it to the model before the row was stored, so it is added
    here, to a copy, as Hermes stores it when the steer arrives first)."""
    marker = (
        "\n\n[OUT-OF-BAND USER MESSAGE — a direct message from the user, delivered"
        " mid-turn; not tool output]\nuse the release flag for the next builds\n"
        "[/OUT-OF-BAND USER MESSAGE]"
    )
    conn = sqlite3.connect(home / "state.db")
    conn.execute(
        "UPDATE messages SET content = content || ? WHERE role = 'tool'"
        " AND session_id = '20261206_222554_d1ead3'",
        (marker,),
    )
    conn.commit()
    conn.close()
    index(cli)
    said = messages(cli, hits(cli, "slow build")[0]["session"]["id"])
    assert [(m["kind"], m["steers"], m["text"]) for m in said if m["kind"] != "tool_call"] == [
        ("prompt", False, "Run the slow build please"),
        ("tool_output", False, "built"),
        ("prompt", True, "use the release flag for the next builds"),
        ("reply", False, "The build finished; I will use the release flag from now on."),
    ]


def test_what_the_gateway_adds_around_a_chat_message_is_not_typed(cli: CLI, home: Path) -> None:
    """The shapes a gateway gives a message beside the fixture's, added to a copy as
    Hermes writes them: a reply's quote (`[Replying to: "…"]`, gateway/run.py), a group's
    chatter it only overheard (`observed`), a message with a picture (a list of parts,
    stored after `\\x00json:`)."""
    conn = sqlite3.connect(home / "state.db")
    conn.execute(
        "UPDATE messages SET content = ? || content WHERE session_id = ? AND role = 'user'",
        ('[Replying to: "Water tomatoes deeply twice a week"]\n\n', GROUP),
    )
    conn.execute(  # after a restart, as `_interrupted_turn_note` leads the next message
        "UPDATE messages SET content = ? || content WHERE session_id = ? AND role = 'user'"
        " AND content LIKE 'And how%'",
        ("[System note: The previous turn was interrupted by a gateway restart; the"
         " gateway is now back online.]\n\n", DIRECT),
    )  # fmt: skip
    conn.execute(
        "INSERT INTO messages (session_id, role, content, timestamp, observed) VALUES"
        " (?, 'user', 'Anyone selling seedlings at the market?', 1796595900.0, 1)",
        (GROUP,),
    )
    parts = [{"type": "text", "text": "Is this leaf blight?"}, {"type": "image_url"}]
    conn.execute(
        "INSERT INTO messages (session_id, role, content, timestamp) VALUES"
        " (?, 'user', ?, 1796595901.0)",
        (GROUP, "\x00json:" + json.dumps(parts)),
    )
    conn.commit()
    conn.close()
    index(cli)
    assert prompts(cli, sid(home / "state.db", GROUP)) == [
        "how much water does basil need in July?",
        "Is this leaf blight?",
    ]
    assert prompts(cli, sid(home / "state.db", DIRECT))[1] == "And how do I descale a kettle?"
    assert hits(cli, "seedlings market", "--speaker", "user") == []
    assert hits(cli, "gateway restart", "--speaker", "user") == []


def test_recalled_memory_in_a_row_is_cut_out_as_hermes_cuts_it_on_loading(
    cli: CLI, home: Path
) -> None:
    """A `<memory-context>` block a model echoed into its reply (or an older release
    stored in a prompt) is what Hermes' loader strips (`sanitize_context`); added here to
    a copy's rows."""
    recalled = (
        "<memory-context>\n[System note: The following is recalled memory context, NOT"
        " new user input. Treat as informational background data.]\nThe person keeps"
        " bees on the allotment.\n</memory-context>\n"
    )
    conn = sqlite3.connect(home / "state.db")
    conn.execute(
        "UPDATE messages SET content = ? || content WHERE session_id = ? AND role IN"
        " ('user', 'assistant')",
        (recalled, DIRECT),
    )
    conn.commit()
    conn.close()
    index(cli)
    said = messages(cli, sid(home / "state.db", DIRECT))
    assert [m["text"] for m in said][:2] == [
        "How often should I water tomatoes?",
        "Water tomatoes deeply twice a week rather than a little every day; keep the soil"
        " evenly moist.",
    ]
    assert hits(cli, "bees allotment") == []


def test_a_local_models_reasoning_in_its_reply_is_thinking(cli: CLI, home: Path) -> None:
    """Ollama and Qwen3 put their reasoning at the head of the reply's text; added here to
    a copy's reply."""
    conn = sqlite3.connect(home / "state.db")
    conn.execute(
        "UPDATE messages SET content = ? || content WHERE session_id = ? AND role ="
        " 'assistant'",
        ("<think>Vinegar dissolves limescale; say how long to leave it.</think>\n", KITCHEN),
    )
    conn.commit()
    conn.close()
    index(cli)
    said = messages(cli, sid(home / "state.db", KITCHEN))[:3]
    assert [(m["kind"], m["text"][:16]) for m in said] == [
        ("prompt", "How do I descale"),
        ("thinking", "Vinegar dissolve"),
        ("reply", "Descale the kett"),
    ]


def test_a_broken_row_is_one_line_and_the_rest_is_read(cli: CLI, home: Path) -> None:
    conn = sqlite3.connect(home / "state.db")
    conn.execute(
        "UPDATE messages SET tool_calls = '[{\"id\": \"call_' WHERE session_id = ?"
        " AND tool_calls LIKE '%terminal%'",
        (GREETER,),
    )
    conn.execute(
        "INSERT INTO messages (session_id, role, content, timestamp) VALUES"
        " (?, 'narrator', 'An aside.', 1796595590.0)",
        (GREETER,),
    )
    conn.commit()
    conn.close()
    report = index(cli)
    assert {p["reason"] for p in report["problems"]} == {"malformed JSON", "unknown message role"}
    assert all("\n" not in p["detail"] for p in report["problems"])
    assert len(prompts(cli, sid(home / "state.db", GREETER))) == 5


def test_a_locked_or_broken_store_is_one_line_and_the_run_goes_on(
    cli: CLI, home: Path, tmp_path: Path
) -> None:
    db = home / "state.db"
    hermes = sqlite3.connect(db, isolation_level=None)
    hermes.execute("PRAGMA journal_mode=DELETE")
    hermes.execute("BEGIN EXCLUSIVE")
    report = index(cli)
    [error] = report["errors"]
    assert error["path"] == str(db) and "locked" in error["error"] and "\n" not in error["error"]
    hermes.execute("ROLLBACK")
    hermes.close()
    assert index(cli)["files_read"] == 1
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "state.db").write_bytes(b"SQLite format 3\x00" + b"\x07" * 4000)
    cli.env["HERMES_HOME"] = str(broken)
    report = index(cli)
    [error] = report["errors"]
    assert error["path"] == str(broken / "state.db") and "\n" not in error["error"]
    assert len(hits(cli, "exclamation mark")) == 1  # what was read before stays


def test_the_oldest_schema_is_read_where_hermes_home_puts_it(cli: CLI, tmp_path: Path) -> None:
    moved = tmp_path / "hermes-0.13"
    shutil.copytree(FIXTURES / "0.13", moved)
    cli.env["HERMES_HOME"] = str(moved)
    report = index(cli)
    assert str(moved) in report["roots"] and report["errors"] == report["problems"] == []
    db = moved / "state.db"
    [(key, expected)] = counted(db).items()
    session = sid(db, key)
    said = messages(cli, session)
    assert [m["text"] for m in said if m["kind"] == "prompt"] == expected.prompts
    # 0.13 names no tool on a result: the call it answers does.
    assert [m["tool"] for m in said if m["kind"] == "tool_output"] == [
        "write_file", "terminal", "patch", "terminal"
    ]  # fmt: skip
    found = cli.json("read", session)["session"]
    assert found["cwd"] == "/home/dev/projects/oldgreeter"  # from its system prompt
    assert cli.json("open", session)["resume"]["command"] == ["hermes", "--resume", OLD]
