"""Zed's agent threads (`threads/threads.db`), through the real CLI: read while Zed holds
the store open and never written, the threads counted by a reader of their own, only the
threads Zed saved again read again, attached files kept apart from what was typed, tool
calls with their results, subagents, the first agent panel's threads, and no resume.

The store is built in the test (`zed_store.py`) the way Zed's source saves a thread, not
copied from a real one.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import zstandard
from conftest import CLI
from zed_store import (
    ZedStore,
    agent,
    project_snapshot,
    result,
    text,
    thinking,
    tool_use,
    user,
)

from findsession.sources.zed import file_id

KILN, GLAZE, PROBE = "5f0c2a9e-0001", "5f0c2a9e-0002", "5f0c2a9e-0003"
PROJECT = "/home/dev/kiln controller"


@pytest.fixture
def place(cli: CLI, tmp_path: Path) -> Path:
    """Zed's standard threads folder under the CLI's home (Linux)."""
    for name in ("XDG_DATA_HOME", "FLATPAK_XDG_DATA_HOME"):
        cli.env.pop(name, None)
    return tmp_path / "home" / ".local" / "share" / "zed" / "threads"


@pytest.fixture
def zed(place: Path) -> Iterator[ZedStore]:
    """Three threads; Zed keeps the store open while the test runs."""
    store = ZedStore(place / "threads.db")
    store.save(
        KILN,
        "Kiln ramp controller",
        [
            user("Why does the kiln overshoot its ramp at cone six?",
                 ("/home/dev/kiln controller/pid.toml", "integral_gain = 0.9")),
            agent(
                thinking("The integral term winds up during the long ramp."),
                text("I will read the controller first."),
                tool_use("t1", "read_file", {"path": "kiln controller/src/pid.rs"}),
                results=(result("t1", "read_file", "fn step() { windup += error }"),),
            ),
            agent(
                tool_use("t2", "write_file", {"path": "kiln controller/src/clamp.rs",
                                              "content": "pub fn clamp_windup() {}\n"}),
                tool_use("t3", "terminal", {"command": "cargo test", "cd": "kiln controller"}),
                results=(result("t2", "write_file", "Created clamp.rs"),
                         result("t3", "terminal", "error: the ramp test overshoots", True)),
            ),
            agent(text("The windup is clamped now; the ramp holds at cone six.")),
            "Resume",
            user("Also log the peak temperature of each firing"),
            agent(text("Each firing now logs its peak temperature.")),
        ],
        folders=(PROJECT, "/home/dev/aa-notes"),  # opened first, sorted second
    )  # fmt: skip
    store.save(GLAZE, "Glaze recipe units", [
        user("Convert the glaze recipe from grams to percentages"),
        agent(text("Each ingredient is now a share of the dry batch.")),
    ], updated_at="2026-04-01T08:00:00Z", folders=("/home/dev/glaze",))  # fmt: skip
    store.save(PROBE, "Thermocouple probe", [
        user("Check which thermocouple type the probe reports"),
        agent(text("The probe reports a type K thermocouple.")),
    ], folders=(PROJECT,), parent=KILN)  # fmt: skip
    yield store
    store.close()


def sid(store: ZedStore, key: str) -> str:
    return f"{file_id(store.path)}:{key}"


def hits(cli: CLI, query: str) -> list[dict[str, Any]]:
    return cli.json("search", "--mode", "keyword", "--source", "zed", query)["results"]


def found(cli: CLI, query: str) -> list[str]:
    return [h["session"]["id"] for h in hits(cli, query)]


def index(cli: CLI) -> dict[str, Any]:
    return cli.json("index", "--no-embed")


def on_disk(store: ZedStore) -> tuple[bytes, list[str]]:
    """The store's bytes and the names beside it."""
    folder = store.path.parent
    return hashlib.sha256(store.path.read_bytes()).digest(), sorted(
        p.name for p in folder.iterdir()
    )


def counted(path: Path) -> dict[str, tuple[int, bool]]:
    """Each thread's typed prompts and whether it is a subagent, read without findsession:
    a plain read of the rows, each document decompressed and its `User` texts counted."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        rows = conn.execute("SELECT id, parent_id, data_type, data FROM threads").fetchall()
    finally:
        conn.close()
    out = {}
    for key, parent, kind, data in rows:
        raw = (
            zstandard.ZstdDecompressor().decompressobj().decompress(data)
            if kind == "zstd"
            else data
        )
        doc = json.loads(raw)
        prompts = sum(
            1
            for m in doc["messages"]
            if isinstance(m, dict)
            and any("Text" in c for c in m.get("User", {}).get("content", []))
        )
        out[key] = (prompts, parent is not None)
    return out


def test_every_thread_is_counted_and_the_store_is_left_as_it_was(
    cli: CLI, zed: ZedStore, place: Path
) -> None:
    before = on_disk(zed)
    report = index(cli)
    assert str(place) in report["roots"] and report["errors"] == []
    assert report["files_read"] == 1 and report["problems"] == []
    assert on_disk(zed) == before  # Zed's file byte for byte, nothing made beside it
    expected = counted(zed.path)
    listed = {s["kind"]: s for s in cli.json("sources")["sources"]}["zed"]
    mains = sum(1 for _, sub in expected.values() if not sub)
    assert (listed["files"], listed["sessions"], listed["subagents"]) == (1, mains, 1)
    for key, (prompts, _) in expected.items():
        assert cli.json("read", sid(zed, key))["total_turns"] == prompts, key
    assert index(cli)["files_read"] == 0


def test_a_thread_gives_its_title_folder_prompts_replies_and_tools(cli: CLI, zed: ZedStore) -> None:
    index(cli)
    session = hits(cli, "kiln overshoot ramp")[0]["session"]
    assert session["id"] == sid(zed, KILN) and session["title"] == "Kiln ramp controller"
    assert session["cwd"] == PROJECT  # the folder opened first, not the first sorted
    assert session["started"] == session["ended"] == "2026-05-04T09:00:00.123Z"
    assert found(cli, "windup error") == [sid(zed, KILN)]  # a tool's output
    assert found(cli, "integral_gain") == []  # an attached file is context, not a prompt
    messages = cli.json("read", sid(zed, KILN), "--tools")["turns"][0]["messages"]
    assert [(m["kind"], m["tool"]) for m in messages] == [
        ("prompt", None),
        ("thinking", None),
        ("reply", None),
        ("tool_call", "read_file"),
        ("tool_output", "read_file"),
        ("tool_call", "write_file"),
        ("tool_output", "write_file"),
        ("tool_call", "terminal"),
        ("tool_output", "terminal"),
        ("reply", None),
    ]
    raw = cli.json("read", sid(zed, KILN), "--raw")
    assert raw["turns"] == cli.json("read", sid(zed, KILN))["turns"]
    resume = hits(cli, "glaze recipe grams")[0]["resume"]
    assert resume["command"] is None and "agent panel" in resume["reason"]


def test_a_thread_without_folder_columns_takes_its_folder_from_the_project_snapshot(
    cli: CLI, zed: ZedStore
) -> None:
    """A thread whose row has no `folder_paths` (saved before Zed kept them) still names
    its project in the snapshot Zed took when the thread started."""
    zed.save("5f0c2a9e-0004", "Slip casting molds", [
        user("Which plaster ratio suits the slip casting molds?"),
        agent(tool_use("t9", "edit_file", {"path": "molds/ratios.md",
                                           "edits": [{"old_text": "1:0.6", "new_text": "1:0.7"}]}),
              results=(result("t9", "edit_file", "Edited ratios.md"),)),
    ], snapshot=project_snapshot(("/home/dev/studio/molds", "casting"),
                                 ("/home/dev/glaze", None)))  # fmt: skip
    index(cli)
    [hit] = hits(cli, "plaster ratio slip casting")
    assert hit["session"]["cwd"] == "/home/dev/studio/molds"
    assert hit["session"]["git_branch"] == "casting"
    # the call's path starts from the folder's own name, so blame finds the file
    writes = cli.json("blame", "/home/dev/studio/molds/ratios.md")["writers"]
    assert [w["session"]["id"] for w in writes] == [sid(zed, "5f0c2a9e-0004")]


def test_a_subagent_thread_is_linked_to_the_thread_that_started_it(cli: CLI, zed: ZedStore) -> None:
    index(cli)
    [hit] = hits(cli, "thermocouple probe")
    assert hit["session"]["subagent"] and hit["session"]["parent_id"] == sid(zed, KILN)
    assert hit["session"]["title"] == "Thermocouple probe"  # the parent link took its line


def test_only_the_thread_zed_saved_again_is_read_again(cli: CLI, zed: ZedStore) -> None:
    index(cli)
    zed.save(GLAZE, "Glaze recipe units", [
        user("Convert the glaze recipe from grams to percentages"),
        agent(text("Each ingredient is now a share of the dry batch.")),
        user("Add the crawling defect notes"),
        agent(text("Crawling comes from dust under the glaze.")),
    ], updated_at="2026-04-02T08:00:00Z", folders=("/home/dev/glaze",))  # fmt: skip
    report = index(cli)
    assert report["files_read"] == 1 and report["lines_read"] == 1  # one thread
    assert found(cli, "crawling dust") == [sid(zed, GLAZE)]
    assert cli.json("read", sid(zed, GLAZE))["total_turns"] == 2
    zed.delete(GLAZE)  # deleted in Zed: the index keeps what it read
    index(cli)
    assert found(cli, "crawling dust") == [sid(zed, GLAZE)]


def test_a_first_panel_thread_and_a_broken_row(cli: CLI, zed: ZedStore) -> None:
    asked = {"type": "text", "text": "Why does the pug mill motor stall?"}
    answered = [
        {"type": "thinking", "text": "Torque at low speed."},
        {"type": "text", "text": "The auger jams when the clay is too stiff."},
    ]
    used = {"id": "u1", "name": "grep", "input": {"regex": "auger"}}
    got = {"tool_use_id": "u1", "is_error": False, "content": "auger.rs: stall", "output": None}
    legacy = {
        "version": "0.2.0",
        "summary": "Pug mill motor",
        "updated_at": "2025-06-01T10:00:00Z",
        "messages": [
            {"id": 0, "role": "user", "segments": [asked], "tool_uses": [], "tool_results": [],
             "context": "", "creases": [], "is_hidden": False},
            {"id": 1, "role": "assistant", "segments": answered, "tool_uses": [used],
             "tool_results": [got], "context": "", "creases": [], "is_hidden": False},
        ],
    }  # fmt: skip
    zed.save_raw("legacy-1", "Pug mill motor", "json", json.dumps(legacy))
    zed.save_raw("broken-1", "Broken", "zstd", b"\x28\xb5\x2f\xfd not a frame")
    report = index(cli)
    assert report["errors"] == []
    [problem] = report["problems"]
    assert problem["reason"] == "unreadable thread data" and "broken-1" in problem["detail"]
    assert found(cli, "pug mill auger clay") == [sid(zed, "legacy-1")]
    messages = cli.json("read", sid(zed, "legacy-1"), "--tools")["turns"][0]["messages"]
    assert [m["kind"] for m in messages] == [
        "prompt",
        "thinking",
        "reply",
        "tool_call",
        "tool_output",
    ]
    assert found(cli, "kiln overshoot") == [sid(zed, KILN)]  # the others are read as ever


def test_blame_finds_the_file_a_thread_wrote(cli: CLI, zed: ZedStore) -> None:
    zed.save("edit-1", "Clamp edit", [
        user("Rename the clamp"),
        agent(tool_use("e1", "edit_file", {"path": "kiln controller/src/clamp.rs",
                                           "edits": [{"old_text": "clamp_windup",
                                                      "new_text": "limit_windup"}]}),
              results=(result("e1", "edit_file", "Edited clamp.rs"),)),
    ], folders=(PROJECT,))  # fmt: skip
    index(cli)
    writes = cli.json("blame", f"{PROJECT}/src/clamp.rs")["writers"]
    assert {(w["session"]["id"], w["op"]) for w in writes} == {
        (sid(zed, KILN), "create"),
        (sid(zed, "edit-1"), "edit"),
    }


def test_a_thread_that_expands_far_past_its_size_is_named_not_read(cli: CLI, zed: ZedStore) -> None:
    """A few KB of zstd that expand to 40 MB (a thread padded with spaces) is a bomb, not
    a thread: no real thread compresses a hundredth as far. It is named in one line, as a
    compressed Codex rollout is, and the store's other threads are read as ever."""
    doc = {"version": "0.2.0", "summary": "Padded", "messages": [], "pad": " " * (40 << 20)}
    blob = zstandard.ZstdCompressor(level=3).compress(json.dumps(doc).encode())
    assert len(blob) * 250 < 40 << 20
    zed.save_raw("padded-1", "Padded", "zstd", blob)
    report = index(cli)
    assert report["errors"] == []
    [problem] = report["problems"]
    assert problem["reason"] == "unreadable thread data" and "padded-1" in problem["detail"]
    assert "MB decompressed from" in problem["detail"]
    assert found(cli, "kiln overshoot") == [sid(zed, KILN)]
