"""Qwen Code chats: found in the Qwen home, searched, read back, kept up to date.

The fixture home (`fixtures/qwen/home`, written from the documented format) holds one
chat: a prompt answered with reasoning, a tool call and its result, a title the person
gave, a background notification, a malformed line, two records glued on one line, a
prompt with a hook's context part, and a subagent's records inline.
"""

from __future__ import annotations

import json
import shlex
import shutil
from pathlib import Path

import pytest
from conftest import CLI

from findsession.domain import MessageKind, Root
from findsession.indexing import IndexReport, index_roots
from findsession.search.engine import SearchOptions, search
from findsession.storage.sqlite import Store

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "qwen" / "home"
SID = "6f1c2a9e-3b4d-4e5f-8a7b-9c0d1e2f3a4b"
KW = SearchOptions(mode="keyword")


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "qwen"
    shutil.copytree(FIXTURE, home)
    return home


def chat(home: Path) -> Path:
    return next(home.rglob(f"{SID}.jsonl"))


def index(store: Store, home: Path) -> IndexReport:
    return index_roots(store, [Root(home / "projects", "qwen")])


def prompts(store: Store, sid: str) -> list[str]:
    return [m.text for m in store.session_messages(sid) if m.kind is MessageKind.PROMPT]


def record(uuid: str, parent: str, kind: str, text: str = "", **extra: object) -> str:
    """One chat line, newline included."""
    role = "model" if kind == "assistant" else "user"
    obj: dict[str, object] = {
        "uuid": uuid,
        "parentUuid": parent,
        "sessionId": SID,
        "timestamp": "2026-05-04T10:00:00.000Z",
        "type": kind,
        "cwd": "/home/dev/greenhouse",
        "version": "0.6.0",
    }
    if text:
        obj["message"] = {"role": role, "parts": [{"text": text}]}
    obj.update(extra)
    return json.dumps(obj) + "\n"


def uuid(n: int) -> str:
    return f"a0000000-0000-4000-8000-{n:012d}"


def test_search_finds_a_qwen_prompt_and_read_shows_its_turns(cli: CLI, home: Path) -> None:
    cli.env["QWEN_HOME"] = str(home)  # the standard place, found with no root named
    cli.run("index", "--no-embed")
    hits = cli.json("search", "calibrate the soil moisture sensors")["results"]
    top = hits[0]["session"]
    assert top["id"] == SID and top["source"] == "qwen"
    assert top["title"] == "Soil sensor calibration"
    assert top["cwd"] == "/home/dev/greenhouse" and top["git_branch"] == "sensors"

    read = cli.json("read", SID, "--tools")
    texts = [[m["text"] for m in t["messages"]] for t in read["turns"]]
    assert [t[0] for t in texts] == [
        "How do I calibrate the soil moisture sensors in the greenhouse?",
        "Also log the moisture readings every ten minutes",  # glued to its reply's line
        "Write the calibration steps to the wiki page",  # without the hook's part
    ]
    first = texts[0]
    assert "The ADC reference voltage decides the raw range." in first  # reasoning
    assert any("sensors.toml" in t for t in first)  # the tool call
    assert any("dry_reading = 812" in t for t in first)  # and its result
    assert any("after dipping each probe" in t for t in first)
    assert not any("protected" in t for turn in texts for t in turn)
    raw = cli.run("read", SID, "--raw").stdout
    assert "Readings now go to moisture.csv every ten minutes." in raw


def test_source_filter_and_sources_name_qwen(cli: CLI, home: Path) -> None:
    cli.env["QWEN_HOME"] = str(home)
    cli.run("index", "--no-embed")
    kept = cli.json("search", "soil moisture", "--source", "qwen")["results"]
    assert kept and {h["session"]["source"] for h in kept} == {"qwen"}
    assert cli.json("search", "soil moisture", "--source", "codex")["results"] == []
    listed = {s["kind"]: s for s in cli.json("sources")["sources"]}
    assert listed["qwen"]["sessions"] == 1  # its subagent is not counted apart
    assert {"path": str(home / "projects"), "exists": True} in listed["qwen"]["roots"]


def test_resume_runs_qwen_resume_in_the_project(cli: CLI, home: Path, tmp_path: Path) -> None:
    project = tmp_path / "dev" / "greenhouse"
    project.mkdir(parents=True)
    path = chat(home)
    path.write_text(path.read_text().replace("/home/dev/greenhouse", str(project)))
    cli.run("index", "--no-embed", "--source", "qwen", str(home))
    line = shlex.split(cli.run("open", SID, "--print").stdout)
    assert line == ["cd", str(project), "&&", "qwen", "--resume", SID]


def test_a_subagent_written_inline_is_its_own_session_linked_to_the_chat(
    store: Store, home: Path
) -> None:
    index(store, home)
    child = store.get_session(f"{SID}:explore-7f3c")
    assert child is not None and child.is_subagent and child.parent_id == SID
    assert prompts(store, child.id) == ["List every sensor driver in the firmware tree"]
    assert "List every sensor driver" not in " ".join(prompts(store, SID))


def test_malformed_line_is_reported_and_a_notification_is_not_a_prompt(
    store: Store, home: Path
) -> None:
    report = index(store, home)
    assert [(pr.line, pr.reason) for _, pr in report.problems] == [(7, "malformed JSON")]
    kinds = {m.text: m.kind for m in store.session_messages(SID)}
    assert kinds["Background task irrigation-sync completed."] is MessageKind.HARNESS
    assert store.get_session(SID).n_turns == 3


def test_a_grown_chat_is_read_on_from_where_it_stopped(store: Store, home: Path) -> None:
    index(store, home)
    added = (
        record(uuid(20), uuid(10), "user", "Add a frost alarm below four degrees")
        + record(uuid(21), uuid(20), "assistant", "The frost alarm fires under four degrees.")
    ).encode()
    with open(chat(home), "ab") as fh:
        fh.write(added)
    report = index(store, home)
    assert report.files_read == 1 and report.bytes_read == len(added)
    assert prompts(store, SID)[-1] == "Add a frost alarm below four degrees"
    assert store.get_session(SID).n_turns == 4
    hits = search(store, "frost alarm", KW).hits
    assert hits[0].session.id == SID and hits[0].turn == 4


def test_a_rewind_takes_the_later_turns_out_of_the_index(store: Store, home: Path) -> None:
    index(store, home)
    assert search(store, "moisture.csv", KW).hits
    # `/rewind` to the first turn: the chain goes on from its last record.
    added = (
        record(uuid(30), uuid(4), "system", subtype="rewind", systemPayload={"truncatedCount": 4})
        + record(uuid(31), uuid(30), "user", "Instead, graph the readings per bed")
        + record(uuid(32), uuid(31), "assistant", "Each bed now has its own moisture graph.")
    )
    with open(chat(home), "a") as fh:
        fh.write(added)
    index(store, home)
    assert prompts(store, SID) == [
        "How do I calibrate the soil moisture sensors in the greenhouse?",
        "Instead, graph the readings per bed",
    ]
    assert not search(store, "moisture.csv", KW).hits
    assert store.get_session(SID).title == "Soil sensor calibration"  # off-tree, kept
    assert store.get_session(f"{SID}:explore-7f3c") is not None  # its own chain


def test_no_qwen_home_leaves_the_index_without_qwen_sessions(cli: CLI) -> None:
    listed = {s["kind"]: s for s in cli.json("sources")["sources"]}
    assert listed["qwen"]["sessions"] == 0
    assert all(not r["exists"] for r in listed["qwen"]["roots"])


def test_a_prompt_with_file_references_is_what_was_typed(store: Store, home: Path) -> None:
    """Qwen Code records what was typed with `@file` references in an `at_command`
    record, then sends it with the files' content appended: the prompt is what was
    typed, not the files."""
    index(store, home)
    typed = "@beds.md what grows in bed three?"
    sent = {
        "role": "user",
        "parts": [
            {"text": typed},
            {"text": "\n--- Content from referenced files ---"},
            {"text": "\nContent from @beds.md:\nbed three: chard and leeks\n"},
            {"text": "\n--- End of content ---"},
        ],
    }
    payload = {"filesRead": ["beds.md"], "status": "success", "userText": typed}
    added = (
        record(uuid(44), uuid(10), "system", subtype="at_command", systemPayload=payload)
        + record(uuid(45), uuid(44), "user", message=sent)
        + record(uuid(46), uuid(45), "assistant", "Bed three grows chard and leeks.")
    )
    with open(chat(home), "a") as fh:
        fh.write(added)
    index(store, home)
    assert prompts(store, SID)[-1] == typed
    assert store.get_session(SID).n_turns == 4
