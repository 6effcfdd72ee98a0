"""Amazon Q Developer CLI: its `data.sqlite3` read conversation by conversation, through
the real CLI.

The store is built by `amazon_q_store` with the sqlite3 module, from the schema the CLI's
own migrations (000 to 007) create, and written as the CLI writes it (`INSERT OR
REPLACE` of the whole conversation under its directory). Its conversations are in both
value shapes the CLI wrote (1.13 to 1.19: `{user, assistant, request_metadata}`; 1.10 to
1.12: `[user, assistant]` pairs), with tool calls and their results, a failed command, a
file written, a compacted conversation and a cleared one. The text is made up; none of
it is a real person's. Every count is made by `count`, over the raw rows, not by the
reader.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from amazon_q_store import AmazonQStore, conversation, prompt, reply, results, tool_use
from conftest import CLI
from read_counts import indexed

RIVER = "5f0c2a9e-1b7d-4c3e-9a8f-2d6b4e1c7a30"
LOOM = "0e7d3b21-8c4a-4f6e-b5d9-3a1c2e4f6b80"
SLATE = "9a4e6c12-3d5b-4e7f-8a1c-6b2d4f8e0c51"
SECRET = "ghp_" + "Q7wErT6yUi5oP4aS3dF2gH1jK0lZ9xC8vB7n"


def river() -> dict[str, Any]:
    """1.19's shape: a compacted conversation, a failed command and a file written."""
    cwd = "/home/dev/river"
    history = [
        {
            "user": prompt("Why does the river gauge log drift at night?", cwd,
                           "2025-10-02T21:14:05.120455Z"),
            "assistant": tool_use("m-1", "Reading the gauge log.",
                                  ("tu-1", "execute_bash", {"command": "cat /var/log/gauge.log"})),
            "request_metadata": {"request_start_timestamp_ms": 1759439645120,
                                 "stream_end_timestamp_ms": 1759439647004},
        },
        {
            "user": results(cwd, ("tu-1", "cat: /var/log/gauge.log: No such file or directory",
                                  "Error"), when="2025-10-02T21:14:09.002115Z"),
            "assistant": tool_use("m-2", "", ("tu-2", "fs_read",
                                              {"mode": "Line", "path": f"{cwd}/gauge.py"})),
            "request_metadata": {"stream_end_timestamp_ms": 1759439650771},
        },
        {
            "user": results(cwd, ("tu-2", "SAMPLE_TEMP_COMP = False", "Success")),
            "assistant": reply("m-3", "Temperature compensation is off, so the gauge drifts."),
            "request_metadata": {"stream_end_timestamp_ms": 1759439655310},
        },
        {
            "user": prompt("Turn the compensation on in a config file", cwd,
                           "2025-10-02T21:16:40.551002Z"),
            "assistant": tool_use("m-4", "Writing the config.", ("tu-3", "fs_write", {
                "command": "create", "path": "/home/dev/river/gauge.toml",
                "file_text": "temp_comp = true\n"})),
        },
        {
            "user": results(cwd, ("tu-3", "", "Success")),
            "assistant": reply("m-5", "Created gauge.toml with temp_comp on."),
        },
    ]  # fmt: skip
    transcript = [
        "> Where is the weir sluice schedule kept?",
        "It is in sluice.yaml beside the gauge code.\n[Tool uses: fs_read]",
        "> /compact",
        "> Why does the river gauge log drift at night?",
        "Reading the gauge log.\n[Tool uses: execute_bash]",
        "\n[Tool uses: fs_read]",
        "Temperature compensation is off, so the gauge drifts.\n[Tool uses: none]",
        "> Turn the compensation on in a config file",
        "Writing the config.\n[Tool uses: fs_write]",
        "> t",
        "Created gauge.toml with temp_comp on.\n[Tool uses: none]",
    ]
    summary = ["The weir sluice schedule lives in sluice.yaml.", {"request_id": "r-0"}]
    return conversation(RIVER, history, transcript, summary)


def loom() -> dict[str, Any]:
    """1.10's shape: `[user, assistant]` pairs, no times, a bare summary of None."""
    cwd = "/home/dev/loom"
    history = [
        [prompt("Count the warp threads in pattern.txt", cwd),
         tool_use("m-6", "Counting.", ("tu-4", "execute_bash", {"command": "wc -l pattern.txt"}))],
        [results(cwd, ("tu-4", "212 pattern.txt", "Success")),
         reply("m-7", "The pattern has 212 warp threads.")],
    ]  # fmt: skip
    transcript = [
        "> Count the warp threads in pattern.txt",
        "Counting.\n[Tool uses: execute_bash]",
        "The pattern has 212 warp threads.\n[Tool uses: none]",
    ]
    return conversation(LOOM, history, transcript)


def slate() -> dict[str, Any]:
    """Cleared with `/clear`: the history is empty, the transcript keeps what was said."""
    transcript = [
        "> How thick should the slate roof battens be?",
        "Use 25 by 50 millimetre battens for slate.\n[Tool uses: none]",
        "> /clear",
    ]
    return conversation(SLATE, [], transcript)


def count(db: Path) -> dict[str, dict[str, Any]]:
    """Each conversation's prompts, replies, calls, results and failed results, counted
    over the raw rows (the history only; one row per directory, none in a store from
    before the table)."""
    uri = f"{db.as_uri()}?mode=ro&immutable=1"
    out: dict[str, dict[str, Any]] = {}
    with closing(sqlite3.connect(uri, uri=True)) as conn:
        names = {n for (n,) in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        rows = conn.execute("SELECT value FROM conversations") if "conversations" in names else []
        for (text,) in rows:
            try:
                doc = json.loads(text)
            except ValueError:
                continue
            tally: dict[str, Any] = {"prompts": [], "replies": 0, "calls": 0, "results": 0,
                                     "failed": 0}  # fmt: skip
            for entry in doc["history"]:
                user, said = (entry if isinstance(entry, list)
                              else (entry["user"], entry["assistant"]))  # fmt: skip
                content = user["content"]
                if "Prompt" in content:
                    tally["prompts"].append(content["Prompt"]["prompt"])
                for result in content.get("ToolUseResults", {}).get("tool_use_results", []):
                    if any(b.get("Text") for b in result["content"]):
                        tally["results"] += 1
                        tally["failed"] += result["status"] == "Error"
                body = next(iter(said.values()))
                tally["replies"] += bool(body["content"].strip())
                tally["calls"] += len(body.get("tool_uses", []))
            out[doc["conversation_id"]] = tally
    return out


@pytest.fixture
def home(cli: CLI, tmp_path: Path) -> Path:
    cli.env.pop("XDG_DATA_HOME", None)
    return tmp_path / "home"


@pytest.fixture
def store(home: Path) -> Iterator[AmazonQStore]:
    db = AmazonQStore(home / ".local" / "share" / "amazon-q" / "data.sqlite3")
    first = conversation(RIVER, [], ["> Where is the weir sluice schedule kept?"])
    db.put("/home/dev/river", first)  # replaced by the next write, as after every turn
    db.put("/home/dev/river", river())
    db.put("/home/dev/loom", loom())
    db.put("/home/dev/slate", slate())
    db.put("/home/dev/broken", "{not json")
    yield db
    db.close()


def index(cli: CLI, *args: str) -> dict[str, Any]:
    return cli.json("index", "--no-embed", *args)


def hits(cli: CLI, query: str) -> list[dict[str, Any]]:
    return cli.json("search", "--mode", "keyword", "--source", "amazon-q", query)["results"]


def sid_of(cli: CLI, query: str) -> str:
    return hits(cli, query)[0]["session"]["id"]


def test_every_conversation_is_read_as_counted(cli: CLI, store: AmazonQStore, home: Path) -> None:
    report = index(cli)
    assert str(home / ".local/share/amazon-q") in report["roots"]
    assert report["errors"] == []
    assert [p["reason"] for p in report["problems"]] == ["malformed JSON"]
    expected = count(store.path)
    river_id, loom_id = sid_of(cli, "river gauge drift"), sid_of(cli, "warp threads")
    assert river_id.endswith(":" + RIVER) and loom_id.endswith(":" + LOOM)
    # The history's counts; before it, the compacted conversation's transcript keeps
    # one more prompt and reply (and the summary, which `read` leaves out).
    early = {"prompts": ["Where is the weir sluice schedule kept?"], "replies": 1}
    got = indexed(cli, river_id)
    assert got["prompts"] == early["prompts"] + expected[RIVER]["prompts"]
    assert got["replies"] == early["replies"] + expected[RIVER]["replies"]
    assert {k: got[k] for k in ("calls", "results", "failed")} == {
        k: expected[RIVER][k] for k in ("calls", "results", "failed")
    }
    assert (expected[RIVER]["calls"], expected[RIVER]["failed"]) == (3, 1)
    assert indexed(cli, loom_id) == expected[LOOM]
    assert indexed(cli, sid_of(cli, "slate roof battens"))["prompts"] == [
        "How thick should the slate roof battens be?"
    ]
    session = hits(cli, "river gauge drift")[0]["session"]
    assert session["cwd"] == "/home/dev/river"
    assert session["started"].startswith("2025-10-02T21:14")
    assert index(cli)["files_read"] == 0


def test_summary_results_and_raw(cli: CLI, store: AmazonQStore, db_path: Path) -> None:
    index(cli)
    river_id = sid_of(cli, "river gauge drift")
    with closing(sqlite3.connect(f"{db_path.as_uri()}?mode=ro", uri=True)) as conn:
        kinds = [k for (k,) in conn.execute("SELECT kind FROM messages ORDER BY line")]
    # The summary, and the slash commands of the compacted and the cleared conversation.
    assert kinds.count("compact_summary") == 1 and kinds.count("harness") == 2
    messages = [m for t in cli.json("read", river_id, "--tools")["turns"] for m in t["messages"]]
    outputs = [(m["tool"], m["is_error"]) for m in messages if m["kind"] == "tool_output"]
    assert outputs == [("execute_bash", True), ("fs_read", False)]
    assert hits(cli, "temp_comp")[0]["session"]["id"] == river_id  # the file written
    for sid in (river_id, sid_of(cli, "warp threads")):
        assert cli.json("read", sid, "--raw")["turns"] == cli.json("read", sid)["turns"]


def test_q_chat_resume_in_the_conversations_directory_and_blame(
    cli: CLI, store: AmazonQStore
) -> None:
    index(cli)
    writers = cli.json("blame", "/home/dev/river/gauge.toml")["writers"]
    assert [w["session"]["id"].split(":")[-1] for w in writers] == [RIVER]
    resume = hits(cli, "river gauge drift")[0]["resume"]
    assert resume["command"] == ["q", "chat", "--resume"]
    assert resume["cwd"] == "/home/dev/river"


def test_only_a_rewritten_conversation_is_read_again_and_secrets_stay_out(
    cli: CLI, store: AmazonQStore, db_path: Path
) -> None:
    index(cli)
    value = loom()
    value["history"].append([
        prompt(f"Store {SECRET} for the loom controller", "/home/dev/loom"),
        reply("m-8", "Stored the heddle frame token."),
    ])  # fmt: skip
    store.put("/home/dev/loom", value)
    report = index(cli)
    assert (report["files_read"], report["lines_read"], report["sessions_changed"]) == (1, 1, 1)
    assert hits(cli, "heddle frame token")[0]["session"]["id"].endswith(LOOM)
    assert SECRET.encode() not in db_path.read_bytes()


def test_a_store_from_before_conversations_were_kept(cli: CLI, home: Path) -> None:
    """Amazon Q before 1.10 (and AWS CloudShell's) made the store without a conversations
    table: it holds none, and is no problem."""
    AmazonQStore(home / ".local/share/amazon-q/data.sqlite3", conversations=False).close()
    report = index(cli)
    assert report["problems"] == [] and report["errors"] == []
    listed = {s["kind"]: s for s in cli.json("sources")["sources"]}["amazon-q"]
    assert (listed["files"], listed["sessions"]) == (1, 0)
