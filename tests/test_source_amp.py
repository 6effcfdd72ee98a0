"""Amp threads: one JSON document per thread, read whole when it changes and never half
written, its title and folder, and `amp threads continue`, through the real CLI.

The fixture (`fixtures/amp/threads`) is written from the documented format: a thread with
a title, a workspace tree, thinking, a tool call answered by a tool result in the next
user message and a part of a kind not known here; and an older, shorter thread with no
title and no tree.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI

FIXTURE = Path(__file__).parent / "fixtures" / "amp" / "threads"
FERRY = "T-5f0c2a9e-1111-4aaa-8bbb-000000000001"
LEAP = "T-5f0c2a9e-2222-4aaa-8bbb-000000000002"


@pytest.fixture
def threads(cli: CLI, tmp_path: Path) -> Path:
    """The fixture threads in Amp's standard place under the CLI's home."""
    place = tmp_path / "home" / ".local" / "share" / "amp" / "threads"
    shutil.copytree(FIXTURE, place)
    return place


def hits(cli: CLI, query: str) -> list[dict[str, Any]]:
    return cli.json("search", "--mode", "keyword", "--source", "amp", query)["results"]


def found(cli: CLI, query: str) -> list[str]:
    return [h["session"]["id"] for h in hits(cli, query)]


def index(cli: CLI) -> dict[str, Any]:
    return cli.json("index", "--no-embed")


def test_the_standard_place_is_indexed_and_unchanged_threads_cost_a_stat(
    cli: CLI, threads: Path
) -> None:
    report = index(cli)
    assert str(threads) in report["roots"]
    assert report["files_read"] == 2 and report["errors"] == []
    [problem] = report["problems"]  # the part of a kind not known here
    assert (problem["line"], problem["reason"]) == (4, "unknown part kind")
    listed = {s["kind"]: s for s in cli.json("sources")["sources"]}["amp"]
    assert (listed["files"], listed["sessions"]) == (2, 2)
    assert index(cli)["files_read"] == 0


def test_a_thread_gives_its_title_folder_prompts_replies_and_tools(cli: CLI, threads: Path) -> None:
    index(cli)
    hit = hits(cli, "harbour ferry timetable calendar")[0]
    session = hit["session"]
    assert session["id"] == FERRY and session["turns"] == 1
    assert session["title"] == "Ferry timetable scraper"
    assert session["cwd"] == "/home/dev/ferry times"  # the tree's file URI, unquoted
    assert found(cli, "Kelp Island departs") == [FERRY]  # a tool's result
    messages = cli.json("read", FERRY, "--tools")["turns"][0]["messages"]
    assert [(m["kind"], m["tool"]) for m in messages] == [
        ("prompt", None),
        ("thinking", None),
        ("reply", None),
        ("tool_call", "Read"),
        ("tool_output", "Read"),
        ("reply", None),
    ]
    old = hits(cli, "lighthouse keeper leap days")[0]["session"]
    assert old["id"] == LEAP and old["cwd"] is None
    assert old["title"].startswith("Why does the lighthouse keeper")  # no title: the prompt


def test_amp_threads_continue_resumes_a_thread_in_its_folder(cli: CLI, threads: Path) -> None:
    index(cli)
    resume = hits(cli, "ferry timetable")[0]["resume"]
    assert resume["command"] == ["amp", "threads", "continue", FERRY]
    assert resume["cwd"] == "/home/dev/ferry times"


def test_a_thread_rewritten_in_place_and_one_caught_half_written(cli: CLI, threads: Path) -> None:
    index(cli)
    path = threads / f"{FERRY}.json"
    doc = json.loads(path.read_text())
    doc["messages"] += [
        {"role": "user", "content": [{"type": "text", "text": "Skip sailings cancelled for fog"}]},
        {"role": "assistant", "content": [
            {"type": "text", "text": "Cancelled rows carry a strike class; they are dropped now."}
        ]},
    ]  # fmt: skip
    whole = json.dumps(doc, indent=2)
    path.write_text(whole[: whole.index("strike class")])  # Amp is still writing it
    report = index(cli)
    [problem] = [p for p in report["problems"] if p["path"] == str(path)]
    assert problem["reason"] == "truncated JSON" and report["errors"] == []
    assert found(cli, "cancelled fog") == []  # nothing from the broken bytes
    assert found(cli, "Kelp Island") == [FERRY]  # what was indexed stays
    path.write_text(whole)
    assert index(cli)["files_read"] == 1
    assert found(cli, "cancelled fog") == [FERRY]
    assert found(cli, "Kelp Island").count(FERRY) == 1
    assert cli.json("read", FERRY)["total_turns"] == 2
    raw = cli.json("read", FERRY, "--raw")
    assert raw["turns"] == cli.json("read", FERRY)["turns"]


def test_forget_and_a_binary_file(cli: CLI, threads: Path) -> None:
    (threads / "T-ffff.json").write_bytes(b"\x00\x01\x02" * 100)
    report = index(cli)
    assert report["errors"] == []
    assert any(s["reason"].startswith("binary") for s in report["skipped"])
    cli.run("forget", LEAP)
    (threads / f"{LEAP}.json").touch()
    index(cli)
    assert found(cli, "leap days") == []


def test_each_turn_has_the_time_its_prompt_was_sent(cli: CLI, threads: Path) -> None:
    """A thread goes on for days; each user message carries `meta.sentAt` (ms), the time
    of the turn it opens, which `--after` and `--before` filter by."""
    doc = {
        "v": 7, "id": "T-5f0c2a9e-3333-4aaa-8bbb-000000000003", "created": 1751000000000,
        "title": "Tide gauge", "messages": [
            {"role": "user", "meta": {"sentAt": 1751000005000},
             "content": [{"type": "text", "text": "calibrate the tide gauge offsets"}]},
            {"role": "assistant", "content": [{"type": "text", "text": "Offsets calibrated."}]},
            {"role": "user", "meta": {"sentAt": 1752000000000},
             "content": [{"type": "text", "text": "now export the salinity readings"}]},
            {"role": "assistant", "content": [{"type": "text", "text": "Exported the readings."}]},
        ],
    }  # fmt: skip
    (threads / f"{doc['id']}.json").write_text(json.dumps(doc))
    index(cli)
    turns = cli.json("read", doc["id"])["turns"]
    assert [t["timestamp"] for t in turns] == [
        "2025-06-27T04:53:25.000Z",
        "2025-07-08T18:40:00.000Z",
    ]
    late = cli.json("search", "--mode", "keyword", "--after", "2025-07-01", "salinity readings")
    assert [h["session"]["id"] for h in late["results"]] == [doc["id"]]
    early = cli.json("search", "--mode", "keyword", "--before", "2025-07-01", "salinity readings")
    assert doc["id"] not in [h["session"]["id"] for h in early["results"]]


def test_xdg_data_home_moves_the_threads_as_amp_s_own_code_does(cli: CLI, tmp_path: Path) -> None:
    """Amp keeps its threads in `$XDG_DATA_HOME/amp/threads` when the variable is set
    (its CLI's data folder, on every OS), else in `~/.local/share/amp/threads`."""
    place = tmp_path / "data" / "amp" / "threads"
    shutil.copytree(FIXTURE, place)
    cli.env["XDG_DATA_HOME"] = str(tmp_path / "data")
    report = index(cli)
    assert str(place) in report["roots"] and report["files_read"] == 2
    assert FERRY in found(cli, "harbour ferry timetable calendar")
