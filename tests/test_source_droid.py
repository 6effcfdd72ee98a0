"""Factory Droid sessions: found in `~/.factory/sessions`, searched, read back, kept up to
date.

Two fixtures. `fixtures/droid/sessions`, written from the documented format, holds one
session: `session_start` with its title and directory, a prompt behind a system
reminder, a tool call and its result, a malformed line, an unknown record kind, and a
prompt whose reminder is a block of its own; beside it the `.settings.json` Droid keeps.

`fixtures/droid/written` holds what the real Droid 0.225.2 wrote (`droid exec --auto high`
with `--input-format stream-json`, and its terminal app in a pseudo-terminal, then
`droid --resume`), run offline (`FACTORY_AIRGAP_ENABLED=1`) against a scripted
OpenAI-compatible model on localhost (a custom model in `~/.factory/settings.json`):
`greenhouse` (14f9…), three prompts with a `Create`, two `Edit`s, an `Execute` that
failed and one that did not, reasoning, and a `Task` run in the background whose
completion Droid announces to the model in a `visibility: "llm_only"` user message; the
worker's own session (81297cd0, its `session_start` naming `callingSessionId`); and a
terminal-app session (e89b…) carried on by `droid --resume` in the same file, whose first
prompt is the `-m custom:Scripted-0` its command line held (the terminal app takes its
arguments as the first prompt). Each session begins with a `context-<id>` user message
of system reminders alone (the tool and skill catalog).
"""

from __future__ import annotations

import json
import shlex
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI
from read_counts import indexed, kinds_read

from findsession.domain import MessageKind, Root
from findsession.indexing import IndexReport, index_roots
from findsession.search.engine import SearchOptions, search
from findsession.storage.sqlite import Store

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "droid" / "sessions"
WRITTEN = Path(__file__).resolve().parent / "fixtures" / "droid" / "written"
MAIN, WORKER, RESUMED = (
    "14f9063e-294c-4714-b9d8-9581d056de2f",
    "81297cd0-cb74-40ce-8ce4-17414c743d25",
    "e89b8f9c-d224-4f97-b97f-9da75192f6e3",
)
SID = "3c9d8e7f-6a5b-4c4d-9e3f-2a1b0c9d8e7f"
KW = SearchOptions(mode="keyword")


@pytest.fixture
def sessions(cli: CLI) -> Path:
    """The fixture in the standard place of the CLI's home folder."""
    target = Path(cli.env["HOME"]) / ".factory" / "sessions"
    shutil.copytree(FIXTURE, target)
    return target


def session_file(sessions: Path) -> Path:
    return next(sessions.rglob(f"{SID}.jsonl"))


def index(store: Store, sessions: Path) -> IndexReport:
    return index_roots(store, [Root(sessions, "droid")])


def prompts(store: Store, sid: str) -> list[str]:
    return [m.text for m in store.session_messages(sid) if m.kind is MessageKind.PROMPT]


def test_search_finds_a_droid_prompt_and_read_shows_its_turns(cli: CLI, sessions: Path) -> None:
    cli.run("index", "--no-embed")
    hits = cli.json("search", "hive scales report zero grams at night")["results"]
    top = hits[0]["session"]
    assert top["id"] == SID and top["source"] == "droid"
    assert top["title"] == "Hive scales read zero at night"
    assert top["cwd"] == "/home/dev/apiary"

    read = cli.json("read", SID, "--tools")
    texts = [[m["text"] for m in t["messages"]] for t in read["turns"]]
    # What the person typed, without the reminders Droid puts in front of it.
    assert [t[0] for t in texts] == [
        "Why do the hive scales report zero grams at night?",
        "Keep the last reading instead of zero",
    ]
    assert any("scale.py" in t for t in texts[0]) and any("adc()" in t for t in texts[0])
    assert not any("todo list" in t or "Be brief" in t for turn in texts for t in turn)
    raw = cli.run("read", SID, "--raw").stdout
    assert "keeps the last good reading" in raw


def test_a_malformed_line_is_reported_and_an_unknown_kind_skipped(
    store: Store, sessions: Path
) -> None:
    report = index(store, sessions)
    found = [(Path(p).name, pr.line, pr.reason) for p, pr in report.problems]
    assert found == [(f"{SID}.jsonl", 6, "malformed JSON")]
    assert report.files_seen == 1  # the settings file is not a transcript
    assert store.get_session(SID).n_turns == 2


def test_a_grown_session_is_read_on_and_keeps_its_directory(store: Store, sessions: Path) -> None:
    index(store, sessions)
    line = {
        "type": "message",
        "id": "m8",
        "parentId": "m7",
        "timestamp": "2026-05-04T09:10:00.000Z",
        "message": {
            "role": "user",
            "content": [{"type": "text", "text": "Alert when a hive loses a kilo"}],
        },
    }
    added = (json.dumps(line) + "\n").encode()
    with open(session_file(sessions), "ab") as fh:
        fh.write(added)
    report = index(store, sessions)
    assert report.files_read == 1 and report.bytes_read == len(added)
    assert prompts(store, SID)[-1] == "Alert when a hive loses a kilo"
    new = [m for m in store.session_messages(SID) if m.text.startswith("Alert when")]
    assert new[0].cwd == "/home/dev/apiary"
    assert search(store, "hive loses a kilo", KW).hits[0].turn == 3


def test_source_filter_sources_and_resume(cli: CLI, sessions: Path, tmp_path: Path) -> None:
    project = tmp_path / "dev" / "apiary"
    project.mkdir(parents=True)
    path = session_file(sessions)
    path.write_text(path.read_text().replace("/home/dev/apiary", str(project)))
    cli.run("index", "--no-embed")
    kept = cli.json("search", "hive scales", "--source", "droid")["results"]
    assert [h["session"]["id"] for h in kept] == [SID]
    assert cli.json("search", "hive scales", "--source", "qwen")["results"] == []
    listed = {s["kind"]: s for s in cli.json("sources")["sources"]}
    assert listed["droid"]["sessions"] == 1
    assert {"path": str(sessions), "exists": True} in listed["droid"]["roots"]
    line = shlex.split(cli.run("open", SID, "--print").stdout)
    assert line == ["cd", str(project), "&&", "droid", "--resume", SID]


def counted(path: Path) -> dict[str, Any]:
    """One session file counted from its raw lines, not by the reader: a user message's
    text with its leading `<system-reminder>` blocks cut is a typed prompt unless Droid
    marked it as its own (`visibility` other than `both`, `hiddenFromUserViews`, a
    `hookEventName`); each assistant text block a reply, each thinking block, call and
    result; a result with `is_error` a failure."""
    prompts: list[str] = []
    replies = thinking = calls = results = failed = 0
    for line in path.read_text(encoding="utf-8").splitlines():
        obj = json.loads(line)
        message = obj.get("message") if obj.get("type") == "message" else None
        if not isinstance(message, dict):
            continue
        blocks = message["content"]
        if message["role"] == "assistant":
            replies += sum(b["type"] == "text" and bool(b["text"].strip()) for b in blocks)
            thinking += sum(b["type"] == "thinking" for b in blocks)
            calls += sum(b["type"] == "tool_use" for b in blocks)
            continue
        outputs = [b for b in blocks if b["type"] == "tool_result"]
        results += len(outputs)
        failed += sum(b.get("is_error") is True for b in outputs)
        own = message.get("visibility", "both") != "both" or message.get("hiddenFromUserViews")
        if own or "hookEventName" in message:
            continue
        text = "\n".join(b["text"] for b in blocks if b["type"] == "text")
        while text.lstrip().startswith("<system-reminder>"):
            text = text.split("</system-reminder>", 1)[1]
        if text.strip():
            prompts.append(text.strip())
    return {
        "prompts": prompts,
        "counts": (replies, thinking, calls, results, failed),
    }


@pytest.fixture
def written(cli: CLI) -> Path:
    """What the real Droid wrote, in the standard place of the CLI's home folder."""
    target = Path(cli.env["HOME"]) / ".factory" / "sessions"
    shutil.copytree(WRITTEN, target)
    return target


def test_what_the_real_droid_wrote_is_read_as_its_lines_say(cli: CLI, written: Path) -> None:
    report = cli.json("index", "--no-embed")
    assert report["errors"] == report["problems"] == []
    files = sorted(written.rglob("*.jsonl"))
    assert report["files_seen"] == len(files) == 3
    for path in files:
        expected = counted(path)
        prompts, kinds, _ = kinds_read(cli, path.stem)
        assert prompts == expected["prompts"]
        failed = indexed(cli, path.stem)["failed"]
        got = (kinds["reply"], kinds["thinking"], kinds["tool_call"], kinds["tool_output"], failed)
        assert got == expected["counts"], path.name
    # Counted by hand once: prompts, then replies, thinking, calls, results, failures.
    assert [
        len(counted(WRITTEN / "-home-dev-greenhouse" / f"{sid}.jsonl")["prompts"])
        for sid in (MAIN, WORKER, RESUMED)
    ] == [3, 1, 3]
    assert counted(next(written.rglob(f"{MAIN}.jsonl")))["counts"] == (8, 1, 6, 6, 1)


def test_droid_s_own_notice_to_its_model_is_no_prompt(cli: CLI, written: Path) -> None:
    """The background task's completion, which Droid writes as a user message only its
    model sees (`visibility: "llm_only"`), was indexed as a fourth typed prompt."""
    cli.run("index", "--no-embed")
    read = cli.json("read", MAIN, "--tools")
    firsts = [t["messages"][0]["text"] for t in read["turns"]]
    assert firsts == [
        "Write a small script that logs the greenhouse temperature every minute",
        "Also log the relative humidity on the same line",
        "Are there other scripts here that read a sensor?",
    ]
    said = [m["text"] for t in read["turns"] for m in t["messages"]]
    assert not [t for t in said if t.startswith("Background task completed.")]  # harness


def test_a_task_s_worker_session_is_linked_to_the_session_that_ran_it(
    cli: CLI, written: Path
) -> None:
    cli.run("index", "--no-embed")
    worker = cli.json("read", WORKER)["session"]
    assert worker["parent_id"] == MAIN and worker["subagent"] is True
    assert cli.json("read", MAIN)["session"]["subagent"] is False


def test_factory_home_override_moves_where_sessions_are_looked_for(
    cli: CLI, tmp_path: Path
) -> None:
    """Droid keeps `.factory` under `$FACTORY_HOME_OVERRIDE` when it is set."""
    home = tmp_path / "elsewhere"
    shutil.copytree(WRITTEN, home / ".factory" / "sessions")
    cli.env["FACTORY_HOME_OVERRIDE"] = str(home)
    report = cli.json("index", "--no-embed")
    assert report["files_seen"] == 3
    listed = {s["kind"]: s for s in cli.json("sources")["sources"]}
    assert {"path": str(home / ".factory" / "sessions"), "exists": True} in listed["droid"]["roots"]
