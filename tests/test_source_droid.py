"""Factory Droid sessions: found in `~/.factory/sessions`, searched, read back, kept up to
date.

The fixture (`fixtures/droid/sessions`, written from the documented format) holds one
session: `session_start` with its title and directory, a prompt behind a system
reminder, a tool call and its result, a malformed line, an unknown record kind, and a
prompt whose reminder is a block of its own; beside it the `.settings.json` Droid keeps.
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

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "droid" / "sessions"
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
