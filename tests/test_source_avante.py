"""avante.nvim's chats (`~/.local/state/nvim/avante/projects/<root>/history/<n>.json`),
through the real CLI: prompts, replies, calls and results counted by a reader of its own,
avante's own reminders kept out of the prompts, failed calls, titles, project folders,
local times, thinking, an error avante displayed, blame, a broken document, and the
places the storage folder moves to.

The three chats of `projects/__home__dev__projects__demo/` (and its `metadata.json`)
were written by the real avante.nvim (its main branch of August 2026, in Neovim 0.11.4,
run headless against a scripted OpenAI-compatible model on localhost, with a stand-in for
its compiled prompt-template library that renders every system prompt as one short line,
which avante does not save): chat 1, two prompts (write_to_file, then a pytest command
that failed); chat 2, a `view` answered with text alone, so avante added its hidden
`<system-reminder>`, then a second prompt with `str_replace`; chat 3 (from a second run
of the same script, whose first two chats are not kept), a prompt and another sent a
moment after it, answered with the model's reasoning, then a prompt the server failed,
whose error avante showed in the chat. Only the home folder was renamed to `/home/dev`.
The older layouts were written by hand to the shapes avante's
code wrote then, not by avante itself: `__home__dev__tide_tables/history/0.json`, a chat
of `entries` with `tool_histories` (March to April 2025) beside a `metadata.json` that
names no project yet, and `__home__dev__lighthouse.json`, a project's single chat as a
list of entries (late 2024).
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI
from read_counts import indexed

FIXTURE = Path(__file__).parent / "fixtures" / "avante" / "home"
STORAGE = Path(".local") / "state" / "nvim" / "avante"
DEMO_DIR = "__home__dev__projects__demo"
TIDES_DIR = "__home__dev__tide_tables"
LIGHTHOUSE_FILE = "__home__dev__lighthouse"


def chat_id(project: str, number: str | None = None) -> str:
    digest = hashlib.blake2b(project.encode(), digest_size=4).hexdigest()
    return f"avante-{digest}" + (f"-{number}" if number else "")


FIRST, SECOND, THIRD = (chat_id(DEMO_DIR, n) for n in ("1", "2", "3"))
TIDES, LIGHTHOUSE = chat_id(TIDES_DIR, "0"), chat_id(LIGHTHOUSE_FILE)


@pytest.fixture
def storage(cli: CLI, tmp_path: Path) -> Path:
    home = tmp_path / "home"
    shutil.copytree(FIXTURE, home)
    return home / STORAGE


def chat_file(storage: Path, project: str, number: str) -> Path:
    return storage / "projects" / project / "history" / f"{number}.json"


def counted(path: Path) -> dict[str, Any]:
    """A chat read without findsession: the typed prompts (a user text avante marked as
    submitted, or one it shows that is not its reminder), the non-empty replies, the
    calls, the results and the failed or declined ones; an `entries` chat's requests,
    answers and tool histories."""
    doc = json.loads(path.read_text())
    prompts, replies, calls, results, failed = [], 0, 0, 0, 0
    messages = doc.get("messages") if isinstance(doc, dict) else None
    if messages:
        for item in messages:
            role, content = item["message"]["role"], item["message"]["content"]
            if isinstance(content, str):
                typed = item.get("is_user_submission") or (
                    item.get("visible") is not False and "<system-reminder>" not in content
                )
                if role == "user" and typed:
                    prompts.append(content.strip())
                shown = item.get("just_for_display") is True  # an error avante displayed
                replies += role == "assistant" and bool(content.strip()) and not shown
                continue
            for part in content:
                calls += part["type"] == "tool_use"
                results += part["type"] == "tool_result"
                failed += part["type"] == "tool_result" and (
                    part.get("is_error") is True or part.get("is_user_declined") is True
                )
        return {"prompts": prompts, "replies": replies, "calls": calls, "results": results,
                "failed": failed}  # fmt: skip
    for entry in doc if isinstance(doc, list) else doc["entries"]:
        prompts.append(entry["request"])
        replies += bool(entry.get("response"))
        for history in entry.get("tool_histories") or []:
            calls += "tool_use" in history
            results += "tool_result" in history
            failed += history.get("tool_result", {}).get("is_error") is True
    return {"prompts": prompts, "replies": replies, "calls": calls, "results": results,
            "failed": failed}  # fmt: skip


def hits(cli: CLI, query: str, *options: str) -> list[dict[str, Any]]:
    found = cli.json("search", "--mode", "keyword", "--source", "avante", *options, query)
    return found["results"]


def test_each_chat_is_a_session_as_an_independent_count_reads_it(cli: CLI, storage: Path) -> None:
    report = cli.json("index", "--no-embed")
    assert str(storage) in report["roots"] and report["errors"] == []
    assert (report["files_read"], report["problems"]) == (5, [])  # metadata.json is none
    listed = {s["kind"]: s for s in cli.json("sources")["sources"]}["avante"]
    assert (listed["sessions"], listed["subagents"]) == (5, 0)
    files = {
        FIRST: chat_file(storage, DEMO_DIR, "1"),
        SECOND: chat_file(storage, DEMO_DIR, "2"),
        THIRD: chat_file(storage, DEMO_DIR, "3"),
        TIDES: chat_file(storage, TIDES_DIR, "0"),
        LIGHTHOUSE: storage / f"{LIGHTHOUSE_FILE}.json",
    }
    totals = dict.fromkeys(("prompts", "replies", "calls", "results", "failed"), 0)
    for sid, path in files.items():
        mine = counted(path)
        assert indexed(cli, sid) == mine, sid
        totals = {k: totals[k] + (len(v) if k == "prompts" else v) for k, v in mine.items()}
    assert totals == {"prompts": 11, "replies": 12, "calls": 11, "results": 11, "failed": 2}
    assert indexed(cli, FIRST)["prompts"] == [
        "Create hello.py that prints a greeting",
        "Run the tests with pytest please",
    ]
    assert cli.json("index", "--no-embed")["files_read"] == 0


def test_a_prompt_is_found_and_avantes_reminder_is_not_a_prompt(cli: CLI, storage: Path) -> None:
    cli.json("index", "--no-embed")
    assert [h["session"]["id"] for h in hits(cli, "pytest please")][:1] == [FIRST]
    assert hits(cli, "greeting say hi")[0]["session"]["id"] == SECOND
    assert hits(cli, "attempt_completion if the job is done", "--speaker", "user") == []
    turns = cli.json("read", SECOND)["turns"]
    assert [t["messages"][0]["text"] for t in turns] == [
        "What does hello.py do?",
        "Change the greeting so it will say hi",
    ]


def test_thinking_a_second_prompt_sent_at_once_and_an_error_avante_showed(
    cli: CLI, storage: Path
) -> None:
    cli.json("index", "--no-embed")
    turns = cli.json("read", THIRD, "--tools")["turns"]
    kinds = [[(m["kind"], m["text"][:24]) for m in t["messages"]] for t in turns]
    assert kinds == [
        [("prompt", "Tell me about the tide t")],
        [
            ("prompt", "and mention the harbour "),
            ("thinking", "The tide tables need a p"),
            ("reply", "The tide tables are in t"),
            ("tool_call", "result: Described the ti"),
            ("tool_output", "true"),
            ("reply", "I am not sure what you m"),
        ],
        # The error avante displayed when the model's server failed is not a reply.
        [("prompt", "Now cause a server failu")],
    ]


def test_calls_results_and_the_failed_ones(cli: CLI, storage: Path) -> None:
    cli.json("index", "--no-embed")
    turns = cli.json("read", FIRST, "--tools")["turns"]
    second = [(m["kind"], m["tool"], m["is_error"]) for m in turns[1]["messages"]]
    assert second == [
        ("prompt", None, False),
        ("reply", None, False),
        ("tool_call", "bash", False),
        ("tool_output", "bash", True),  # pytest's exit code 4
        ("reply", None, False),
        ("tool_call", "attempt_completion", False),
        ("tool_output", "attempt_completion", False),
    ]
    call = next(m for m in turns[0]["messages"] if m["kind"] == "tool_call")
    assert call["tool"] == "write_to_file" and "the_content: print('hello, world')" in call["text"]
    failed = [m for m in turns[1]["messages"] if m["is_error"]][0]
    assert "file or directory not found: tests_missing" in failed["text"]
    # An `entries` chat's tool histories: a view, then a command that failed.
    tides = cli.json("read", TIDES, "--tools")["turns"][0]["messages"]
    assert [(m["kind"], m["tool"], m["is_error"]) for m in tides] == [
        ("prompt", None, False),
        ("tool_call", "view", False),
        ("tool_output", "view", False),
        ("tool_call", "bash", False),
        ("tool_output", "bash", True),
        ("reply", None, False),
    ]


def test_titles_folders_and_local_times(cli: CLI, storage: Path) -> None:
    cli.env["TZ"] = "Asia/Tokyo"  # avante writes local time without a zone
    cli.json("index", "--no-embed")
    sessions = {sid: cli.json("read", sid)["session"] for sid in (FIRST, SECOND, TIDES, LIGHTHOUSE)}
    assert {sid: s["title"] for sid, s in sessions.items()} == {
        FIRST: "Create hello.py that prints a greeting",
        SECOND: "What does hello.py do?",
        TIDES: "Parse the tide table CSV into a list of rows",
        LIGHTHOUSE: "Which lighthouse keeps the oldest lamp log?",
    }
    # metadata.json's project_root; else the folder's name spelled back.
    assert {sid: s["cwd"] for sid, s in sessions.items()} == {
        FIRST: "/home/dev/projects/demo",
        SECOND: "/home/dev/projects/demo",
        TIDES: "/home/dev/tide_tables",
        LIGHTHOUSE: "/home/dev/lighthouse",
    }
    first = json.loads(chat_file(storage, DEMO_DIR, "1").read_text())["messages"][0]
    local = first["timestamp"]  # e.g. 2026-12-07 16:21:46, Tokyo time here
    hour = (int(local[11:13]) - 9) % 24
    assert sessions[FIRST]["started"].endswith(f"T{hour:02d}{local[13:]}.000Z")
    assert sessions[LIGHTHOUSE]["started"] == "2025-01-15T09:03:22.000Z"
    resume = hits(cli, "lamp log")[0]["resume"]
    assert (resume["command"], resume["cwd"]) == (["nvim"], "/home/dev/lighthouse")
    assert ":AvanteHistory" in resume["note"]


def test_blame_through_its_writing_tools(cli: CLI, storage: Path) -> None:
    cli.json("index", "--no-embed")
    writes = cli.json("blame", "/home/dev/projects/demo/hello.py")["writers"]
    assert [(w["session"]["id"], w["op"], w["tool"]) for w in writes] == [
        (SECOND, "edit", "str_replace"),
        (FIRST, "create", "write_to_file"),
    ]
    assert writes[0]["added"] == ["print('hi')"]
    assert writes[1]["added"] == ["print('hello, world')"]


def test_a_broken_chat_is_one_problem_and_the_others_are_read(cli: CLI, storage: Path) -> None:
    path = chat_file(storage, DEMO_DIR, "2")
    whole = path.read_bytes()
    path.write_bytes(whole[: len(whole) // 2])
    report = cli.json("index", "--no-embed")
    assert [p["reason"] for p in report["problems"]] == ["truncated JSON"]
    assert report["files_read"] == 5 and report["errors"] == []
    assert hits(cli, "pytest please")[0]["session"]["id"] == FIRST
    assert SECOND not in [h["session"]["id"] for h in hits(cli, "greeting say hi")]
    path.write_bytes(whole)
    report = cli.json("index", "--no-embed")
    assert report["problems"] == [] and hits(cli, "greeting say hi")[0]["session"]["id"] == SECOND


def test_the_state_folder_moves_with_xdg_state_home_and_nvim_appname(
    cli: CLI, storage: Path, tmp_path: Path
) -> None:
    moved = tmp_path / "state" / "nvim-work" / "avante"
    moved.parent.mkdir(parents=True)
    shutil.move(storage, moved)
    cli.env["XDG_STATE_HOME"] = str(tmp_path / "state")
    cli.env["NVIM_APPNAME"] = "nvim-work"
    report = cli.json("index", "--no-embed")
    assert str(moved) in report["roots"] and report["files_read"] == 5
    assert cli.json("read", FIRST)["session"]["path"] == str(
        moved / "projects" / DEMO_DIR / "history" / "1.json"
    )
