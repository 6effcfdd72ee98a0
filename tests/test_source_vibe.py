"""Mistral Vibe's sessions (`~/.vibe/logs/session/`), through the real CLI: a 1.x
document, a 2.x folder and Vibe 3's stores, each session's prompts counted by a reader
of its own, what was not typed (the system prompt, an injected message, a compaction's
summary, plan mode's warning) kept out of the prompts, a failed call, titles, blame,
`vibe --resume`, a subagent under its parent, a session still running, and what Vibe
writes later (a title, a journal's new entry).

The 1.x and 2.x fixtures are shaped as Vibe's own reader of its sessions reads them
(`vibe/core/session/session_loader.py`, `vibe/core/types.py`), checked against seven
real 1.x documents; their text is synthetic. The three stores under `unified/` were
written by the real Vibe 3.0.2 (`vibe -p`, then `vibe --resume ID -p`) against a
scripted model on localhost: a finished session of two turns, and one copied while its
turn was still running (its entries only in the journal). Then the model's context was
dropped (the checkpoint, Vibe's system prompt and tool catalogue), the journal kept to
its projection records, the folders renamed to `/home/dev/…`, a title given in
`meta.json` as `/rename` gives it, and the running session copied once more as a
subagent of the finished one (`identity.kind: subagent`).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI

FIXTURE = Path(__file__).parent / "fixtures" / "vibe" / "home" / ".vibe"
KILN = "0a1b2c3d-1111-4e5f-8a9b-000000000001"  # 1.x: one JSON document
LOOM = "5e6f7a8b-2222-4c3d-9e0f-000000000002"  # 2.x: meta.json + messages.jsonl
LOOM_DIR = "logs/session/session_20260402_091200_5e6f7a8b"
RAMP = "f043197e-9a3d-a9d4-a2e0-584f9c61adcf"  # 3.x: a finished session's store
LATHE = "29dcdb92-04e2-a3e0-9fec-b3fd1efa81ac"  # 3.x: a turn still running
CHILD = "child-0123456789abcdef01234567"  # 3.x: a subagent of RAMP


@pytest.fixture
def home(cli: CLI, tmp_path: Path) -> Path:
    place = tmp_path / "home" / ".vibe"
    shutil.copytree(FIXTURE, place)
    return place


def hits(cli: CLI, query: str) -> list[dict[str, Any]]:
    return cli.json("search", "--mode", "keyword", "--source", "vibe", query)["results"]


def typed(messages: list[dict[str, Any]]) -> int:
    """Prompts counted without findsession: user messages with text that Vibe did not
    add itself (injected, or a compaction's summary)."""
    n = 0
    for msg in messages:
        if msg["role"] != "user" or msg.get("injected") or msg.get("context_boundary"):
            continue
        content = msg["content"]
        if isinstance(content, list):
            content = "".join(p.get("text", "") for p in content)
        n += bool(content.strip())
    return n


def test_both_layouts_are_read_and_each_sessions_prompts_counted(cli: CLI, home: Path) -> None:
    report = cli.json("index", "--no-embed")
    assert str(home / "logs" / "session") in report["roots"] and report["errors"] == []
    assert report["files_read"] == 5 and report["problems"] == []
    listed = {s["kind"]: s for s in cli.json("sources")["sources"]}["vibe"]
    assert (listed["sessions"], listed["subagents"]) == (4, 1)
    document = json.loads(next(home.glob("logs/session/session_*.json")).read_text())
    lines = (home / LOOM_DIR / "messages.jsonl").read_text().splitlines()
    counts = {KILN: typed(document["messages"]), LOOM: typed([json.loads(x) for x in lines])}
    for session, prompts in counts.items():
        assert cli.json("read", session)["total_turns"] == prompts, session
    # The system prompt and Vibe 3's store are not read.
    assert hits(cli, "albatross") == []
    assert cli.json("index", "--no-embed")["files_read"] == 0


def test_what_was_typed_is_the_prompt_and_a_failed_call_is_marked(cli: CLI, home: Path) -> None:
    cli.json("index", "--no-embed")
    kiln = cli.json("read", KILN, "--tools")["turns"]
    first = kiln[0]["messages"]
    assert first[0]["text"] == (
        "The kiln timer skips the cooldown ramp after a power cut, find out why"
    )
    assert [(m["kind"], m["tool"]) for m in first] == [
        ("prompt", None),
        ("reply", None),
        ("tool_call", "read_file"),
        ("tool_output", "read_file"),
    ]
    assert first[3]["is_error"] and "Plan mode" not in first[3]["text"]
    loom = cli.json("read", LOOM, "--tools")["turns"]
    assert [t["messages"][0]["text"] for t in loom] == [
        "Plan the warp thread tension for a 48-shaft loom",
        "now add the heddle spacing beside it",
    ]
    assert "thinking" in [m["kind"] for m in loom[0]["messages"]]
    # What Vibe's middleware added is not searched as the person's words.
    assert hits(cli, "metric units") == []


def test_title_blame_and_resume(cli: CLI, home: Path) -> None:
    cli.json("index", "--no-embed")
    loom = hits(cli, "warp thread tension")[0]["session"]
    assert (loom["id"], loom["title"]) == (LOOM, "Warp thread tension planner")
    assert loom["cwd"] == "/home/dev/loom-planner"
    writes = cli.json("blame", "/home/dev/kiln-timer/firmware/ramp.c")["writers"]
    assert [(w["session"]["id"], w["op"]) for w in writes] == [(KILN, "edit")]
    notes = cli.json("blame", "/home/dev/kiln-timer/firmware/RAMP_NOTES.md")["writers"]
    assert [(w["session"]["id"], w["op"]) for w in notes] == [(KILN, "create")]
    edited = cli.json("blame", "/home/dev/loom-planner/tension.py")["writers"]
    assert [w["session"]["id"] for w in edited] == [LOOM]
    resume = next(h for h in hits(cli, "cooldown ramp brownout") if h["session"]["id"] == KILN)
    resume = resume["resume"]
    assert resume["command"] == ["vibe", "--resume", KILN]
    assert resume["cwd"] == "/home/dev/kiln-timer"


def test_a_title_vibe_writes_later_is_read(cli: CLI, home: Path) -> None:
    cli.json("index", "--no-embed")
    meta_path = home / LOOM_DIR / "meta.json"
    meta = json.loads(meta_path.read_text())
    meta["title"] = "Loom tension and heddles"
    meta_path.write_text(json.dumps(meta))
    assert cli.json("index", "--no-embed")["files_read"] == 1
    assert hits(cli, "heddle spacing")[0]["session"]["title"] == "Loom tension and heddles"


def test_a_vibe_3_store_its_calls_blame_title_and_resume(cli: CLI, home: Path) -> None:
    cli.json("index", "--no-embed")
    turns = cli.json("read", RAMP, "--tools")["turns"]
    assert [t["messages"][0]["text"] for t in turns] == [
        "The kiln timer skips the cooldown ramp after a power cut; write the ramp notes",
        "now add the heddle spacing to the notes",
    ]
    assert [(m["kind"], m["tool"]) for m in turns[1]["messages"]] == [
        ("prompt", None),
        ("reply", None),
        ("tool_call", "search_replace"),
        ("tool_output", "search_replace"),
        ("tool_call", "bash"),
        ("tool_output", "bash"),
        ("reply", None),
    ]
    assert "No such file or directory" in turns[1]["messages"][5]["text"]
    assert "thinking" in [m["kind"] for m in turns[0]["messages"]]
    session = hits(cli, "kiln cooldown ramp")[0]
    assert (session["session"]["id"], session["session"]["title"]) == (
        RAMP,
        "Kiln cooldown ramp notes",
    )
    assert session["session"]["cwd"] == "/home/dev/kiln-timer"
    assert session["resume"]["command"] == ["vibe", "--resume", RAMP]
    blamed = cli.json("blame", "/home/dev/kiln-timer/RAMP_NOTES.md")["writers"]
    assert [(w["session"]["id"], w["op"]) for w in blamed] == [(RAMP, "edit"), (RAMP, "create")]


def test_a_running_vibe_3_session_its_subagent_and_what_the_journal_adds(
    cli: CLI, home: Path
) -> None:
    cli.json("index", "--no-embed")
    lathe = cli.json("read", LATHE)["turns"]
    assert [t["messages"][0]["text"] for t in lathe] == ["build the lathe spindle speed table"]
    child = [h for h in hits(cli, "lathe spindle speed") if h["session"]["id"] == CHILD]
    assert child and child[0]["session"]["subagent"]
    assert child[0]["session"]["parent_id"] == RAMP
    # Vibe appends the reply to the running session's journal: read on the next run.
    journal = next((home / "logs" / "session" / "unified" / LATHE / "journal").glob("*.jsonl"))
    turn = json.loads(journal.read_text().splitlines()[0])["payload"]["delta"][0]["entry"]
    reply = {
        **turn,
        "id": "assistant-0001",
        "role": "assistant",
        "source": "harness",
        "outcome": {"type": "committed"},
        "content": [{"type": "text", "text": "The spindle speed table is ready."}],
    }
    record = {"payload": {"delta": [{"entry": reply, "op": "append_entry"}]},
              "type": "projection_delta"}  # fmt: skip
    with journal.open("a") as fh:
        fh.write(json.dumps(record) + "\n")
    assert cli.json("index", "--no-embed")["files_read"] == 1
    said = [m["text"] for m in cli.json("read", LATHE)["turns"][0]["messages"]]
    assert said[-1] == "The spindle speed table is ready."


def test_a_1x_document_vibe_2_migrated_into_a_folder_stays_one_session(
    cli: CLI, home: Path
) -> None:
    cli.json("index", "--no-embed")
    before = cli.json("read", KILN)
    # What Vibe 2's `session_migration` does: the document's metadata and messages into
    # a folder of the same name, and the document removed.
    folder = home / "logs" / "session"
    document = folder / "session_20260301_101500_0a1b2c3d.json"
    doc = json.loads(document.read_text())
    (folder / document.stem).mkdir()
    (folder / document.stem / "meta.json").write_text(json.dumps(doc["metadata"]))
    lines = "".join(json.dumps(m) + "\n" for m in doc["messages"])
    (folder / document.stem / "messages.jsonl").write_text(lines)
    document.unlink()
    cli.json("index", "--no-embed")
    after = cli.json("read", KILN)
    assert after["turns"] == before["turns"]
    assert [h["session"]["id"] for h in hits(cli, "kiln timer cooldown power cut")].count(KILN) == 1
    listed = {s["kind"]: s for s in cli.json("sources")["sources"]}["vibe"]
    assert (listed["sessions"], listed["gone"]) == (4, 0)
