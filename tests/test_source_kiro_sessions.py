"""Kiro's later session layout (`~/.kiro/sessions/<workspace>/sess_<id>/`, Kiro 1.0 and
later), a place of the `kiro-ide` source, through the real CLI: prompts, a steer,
replies, thinking Kiro kept encrypted left out, tool calls paired with their results by
id, a call a stopped session never finished failed, Kiro's own events (system prompt,
turns, credits, approvals, context use) kept out, the title and its placeholder, the
workspace, blame through `fs_write`, `str_replace` and `delete_file`, no command to go
back, a subagent's task and answer, the folder from `rootPaths` when `workspacePaths`
is empty, a session read on from where the last run stopped, a bad line and an unknown
event reported.

Kiro is closed source and could not be run here. The fixture
(`fixtures/kiro-sessions`) is written by hand, its text invented, in the exact shapes
other tools' readers show of real files: superbasedapp/observer's fixture derived from
a real Kiro IDE 1.0.411 session (every key, `toolName`, `kind` and `operationType`
kept, values replaced) and its shapes from Kiro's extension bundle (a steer, a
`Summary`, a `tombstone`, a call's synthetic failed result, `sub_agent_start`),
getagentseal/codeburn's and kenn-io/agentsview's readers, and another reader's tests
(`sub_agent_complete`, `rootPaths`). The shell tool's name on Linux (`execute_bash`) is an
assumption: the real session ran on Windows (`execute_pwsh`). The counts come from
`kiro_sessions_counts`, which reads the JSON with no findsession code.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI
from kiro_sessions_counts import count_session, prompts
from read_counts import read_in_two_parts

from findsession.domain import Root
from findsession.indexing import index_roots
from findsession.storage.sqlite import Store

FIXTURE = Path(__file__).parent / "fixtures" / "kiro-sessions" / "home" / ".kiro"
TIDES = "sess_4f1d2c3b-8a9e-4b7c-9d0e-1f2a3b4c5d6e"
ANEMO = "sess_9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d"
_KINDS = {"prompt": "prompts", "reply": "replies", "thinking": "thinking",
          "tool_call": "calls", "tool_output": "results"}  # fmt: skip


@pytest.fixture
def kiro(cli: CLI, tmp_path: Path) -> Path:
    """The fixture in Kiro's standard place under the CLI's home: its `sessions`."""
    place = tmp_path / "home" / ".kiro"
    shutil.copytree(FIXTURE, place)
    return place / "sessions"


def session_file(sessions: Path, sid: str) -> Path:
    [path] = sessions.glob(f"*/{sid}/messages.jsonl")
    return path


def hits(cli: CLI, query: str) -> list[dict[str, Any]]:
    return cli.json("search", "--mode", "keyword", "--source", "kiro-ide", query)["results"]


def held(cli: CLI, sid: str) -> Counter[str]:
    out = Counter[str]()
    for turn in cli.json("read", sid, "--tools")["turns"]:
        for m in turn["messages"]:
            out["steers" if m["steers"] else _KINDS[m["kind"]]] += 1
            out["failed"] += m["is_error"]
    return +out


def test_each_session_holds_what_an_independent_count_finds(cli: CLI, kiro: Path) -> None:
    report = cli.json("index", "--no-embed")
    assert str(kiro) in report["roots"] and report["errors"] == []
    assert (report["files_read"], report["problems"]) == (2, [])
    listed = {s["kind"]: s for s in cli.json("sources")["sources"]}["kiro-ide"]
    assert (listed["sessions"], listed["subagents"]) == (2, 0)
    for sid in (TIDES, ANEMO):
        expected = count_session(session_file(kiro, sid))
        expected.pop("summaries", None)  # a compaction's summary belongs to no turn
        assert held(cli, sid) == expected
    assert count_session(session_file(kiro, TIDES)) == Counter(
        prompts=2, steers=1, replies=3, summaries=1, calls=7, results=7, failed=1
    )
    assert [len(t["messages"]) > 0 for t in cli.json("read", TIDES)["turns"]] == [True, True]
    assert cli.json("index", "--no-embed")["files_read"] == 0


def test_prompts_as_typed_and_kiros_own_events_kept_out(cli: CLI, kiro: Path) -> None:
    cli.json("index", "--no-embed")
    turns = cli.json("read", TIDES, "--tools")["turns"]
    typed = [m["text"] for t in turns for m in t["messages"]
             if m["kind"] == "prompt" and not m["steers"]]  # fmt: skip
    assert typed == prompts(session_file(kiro, TIDES))
    assert [m["text"] for m in turns[1]["messages"] if m["steers"]] == [
        "keep every line under 80 columns"
    ]
    for kiro_own in ("AI assistant and IDE built to assist", "usagePercentage",
                     "Accept changes", "promptTurnSummaries", "c2lnbmF0dXJl"):  # fmt: skip
        assert hits(cli, f'"{kiro_own}"') == [], kiro_own
    assert hits(cli, "harbour tide table CSV")[0]["session"]["id"] == TIDES


def test_calls_paired_with_their_results(cli: CLI, kiro: Path) -> None:
    cli.json("index", "--no-embed")
    turns = cli.json("read", TIDES, "--tools")["turns"]
    tools = [(m["kind"], m["tool"]) for m in turns[0]["messages"]
             if m["kind"] in ("tool_call", "tool_output")]  # fmt: skip
    assert tools == [
        (kind, name)
        for name in ("read_file", "fs_write", "execute_bash", "str_replace")
        for kind in ("tool_call", "tool_output")
    ]
    ran = [m for m in turns[0]["messages"] if m["tool"] == "execute_bash"]
    assert "FileNotFoundError" in ran[1]["text"] and ran[1]["is_error"] is False
    sub = [(m["kind"], m["tool"]) for m in turns[1]["messages"] if m["tool"] == "subagent"]
    assert sub == [("tool_call", "subagent"), ("tool_output", "subagent")]
    [stopped] = [m for m in turns[1]["messages"] if m["is_error"]]
    assert (stopped["tool"], stopped["text"]) == (
        "execute_bash",
        "Tool did not complete — the session was interrupted.",
    )


def test_title_workspace_blame_and_no_command_to_go_back(cli: CLI, kiro: Path) -> None:
    cli.json("index", "--no-embed")
    hit = hits(cli, "harbour tide table CSV")[0]
    assert hit["session"]["title"] == "Harbour tide table parser"
    assert hit["session"]["cwd"] == "/home/dev/tides"
    assert hit["resume"]["command"] is None and "history" in hit["resume"]["reason"]
    anemo = hits(cli, "anemometer gusts knots")[0]
    assert anemo["session"]["title"].startswith("Why does the anemometer")  # not "New Session"
    assert anemo["session"]["cwd"] == "/home/dev/anemometer"
    writes = cli.json("blame", "/home/dev/tides/tides.py")["writers"]
    assert [(w["session"]["id"], w["op"], w["tool"]) for w in writes] == [
        (TIDES, "edit", "str_replace"),
        (TIDES, "create", "fs_write"),
    ]
    assert "HIGH_WATER_MARK = 'HIGH'" in writes[0]["added"][0]
    gone = cli.json("blame", "/home/dev/tides/old_tides.py")["writers"]
    assert [(w["op"], w["tool"]) for w in gone] == [("delete", "delete_file")]


def test_a_title_kiro_gives_later_is_read(cli: CLI, kiro: Path) -> None:
    cli.json("index", "--no-embed")
    meta = session_file(kiro, ANEMO).with_name("session.json")
    doc = json.loads(meta.read_text())
    meta.write_text(json.dumps({**doc, "title": "Anemometer units"}))
    cli.json("index", "--no-embed")
    assert hits(cli, "anemometer gusts knots")[0]["session"]["title"] == "Anemometer units"


def test_a_session_is_read_on_from_where_the_last_run_stopped(cli: CLI, kiro: Path) -> None:
    """A result whose call came in the first read keeps the call's tool."""
    path = session_file(kiro, TIDES)
    read_in_two_parts(cli, path, lambda line: '"tool_call"' in line and "fs_write" in line)
    turns = cli.json("read", TIDES, "--tools")["turns"]
    written = [m for m in turns[0]["messages"] if m["tool"] == "fs_write"]
    assert [m["kind"] for m in written] == ["tool_call", "tool_output"]
    assert held(cli, TIDES) == held_fresh(cli, kiro)


def held_fresh(cli: CLI, kiro: Path) -> Counter[str]:
    expected = count_session(session_file(kiro, TIDES))
    expected.pop("summaries", None)
    return expected


def test_a_bad_line_and_an_unknown_event_are_reported_and_the_rest_read(
    cli: CLI, kiro: Path
) -> None:
    path = session_file(kiro, TIDES)
    lines = path.read_text().splitlines(keepends=True)
    unknown = json.dumps({"id": "x", "timestamp": "2026-09-14T08:00:01.000Z",
                          "payload": {"type": "hologram", "content": "beam"}}) + "\n"  # fmt: skip
    path.write_text("".join([*lines[:3], '{"id": "cut", "payload": {"type": "us\n', unknown,
                             *lines[3:]]))  # fmt: skip
    report = cli.json("index", "--no-embed")
    assert [(p["line"], p["reason"]) for p in report["problems"]] == [
        (4, "malformed JSON"),
        (5, "event of a kind not read"),
    ]
    assert hits(cli, "harbour tide table CSV")[0]["session"]["id"] == TIDES
    assert held(cli, TIDES)["calls"] == 7


def test_only_sessions_are_read_not_snapshots_or_kiro_clis_older_folder(
    cli: CLI, kiro: Path
) -> None:
    cli_folder = kiro / "cli"
    cli_folder.mkdir()
    shutil.copy(session_file(kiro, ANEMO), cli_folder / "sess_0000.jsonl")
    cli.json("index", "--no-embed")
    listed = {s["kind"]: s for s in cli.json("sources")["sources"]}["kiro-ide"]
    assert listed["sessions"] == 2  # `cli/` is Kiro CLI's, its `kiro` source's


def test_the_folder_from_root_paths_when_no_workspace_path(cli: CLI, kiro: Path) -> None:
    meta = session_file(kiro, ANEMO).with_name("session.json")
    doc = json.loads(meta.read_text())
    meta.write_text(json.dumps({**doc, "workspacePaths": [], "rootPaths": ["/home/dev/wind"]}))
    cli.json("index", "--no-embed")
    assert hits(cli, "anemometer gusts knots")[0]["session"]["cwd"] == "/home/dev/wind"


def test_a_watchers_run_reads_the_session_whose_title_changed(kiro: Path, tmp_path: Path) -> None:
    """Kiro writes a title into `session.json` alone. The resident service hands the
    indexer that path: its session's events are read again, with no walk of every
    root; a snapshot Kiro keeps of an edited file is nothing read."""
    roots = [Root(kiro, "kiro-ide")]
    with Store.open(tmp_path / "index.db") as store:
        index_roots(store, roots)
        meta = session_file(kiro, ANEMO).with_name("session.json")
        doc = json.loads(meta.read_text())
        meta.write_text(json.dumps({**doc, "title": "Anemometer units"}))
        report = index_roots(store, roots, only=[str(meta)])
        assert not report.full_scan and report.files_read == 1
        assert store.get_session(ANEMO).title == "Anemometer units"
        snapshot = meta.parent / "snapshots" / "0a1b2c3d" / "gusts.py"
        snapshot.parent.mkdir(parents=True)
        snapshot.write_text("KNOTS = 1.94\n")
        report = index_roots(store, roots, only=[str(snapshot)])
        assert not report.full_scan and report.files_read == 0


SUBAGENT = "sess_7e6d5c4b-3a29-4c18-9f07-e6d5c4b3a291"  # the reviewer TIDES started


def write_subagent(kiro: Path) -> Path:
    """The session of the subagent TIDES's `sub_agent_start` names, beside it in its
    workspace's folder, as Kiro keeps a subagent's chat: its task its prompt. Written by
    hand in the layout's shapes (no subagent's session of Kiro's was found published)."""
    folder = session_file(kiro, TIDES).parent.with_name(SUBAGENT)
    folder.mkdir()
    meta = {"schemaVersion": "1.0.0", "id": SUBAGENT, "title": "New Session",
            "agentMode": "vibe", "workspacePaths": ["/home/dev/tides"],
            "createdAt": "2026-09-14T08:03:03.520Z",
            "lastModifiedAt": "2026-09-14T08:03:03.880Z", "status": "idle"}  # fmt: skip
    (folder / "session.json").write_text(json.dumps(meta, indent=2))
    events = [
        {"type": "user", "content": "Check tides.py for lines longer than 80 columns"},
        {"type": "assistant", "operationType": "Say",
         "content": "Two lines run past 80 columns, the puffin check found."},
    ]  # fmt: skip
    with (folder / "messages.jsonl").open("w") as fh:
        for n, payload in enumerate(events):
            at = f"2026-09-14T08:03:03.{600 + n * 100}Z"
            fh.write(json.dumps({"id": f"sub-{n}", "timestamp": at, "payload": payload}) + "\n")
    return folder / "messages.jsonl"


def test_a_subagents_session_is_linked_to_the_session_that_started_it(
    cli: CLI, kiro: Path
) -> None:
    write_subagent(kiro)
    report = cli.json("index", "--no-embed")
    assert (report["errors"], report["problems"]) == ([], [])
    listed = {s["kind"]: s for s in cli.json("sources")["sources"]}["kiro-ide"]
    assert (listed["sessions"], listed["subagents"]) == (2, 1)
    [hit] = hits(cli, "puffin")
    child = hit["session"]
    assert child["subagent"] and child["parent_id"] == TIDES
    assert child["agent_type"] == "reviewer"
    assert held(cli, SUBAGENT) == Counter(prompts=1, replies=1)


def test_a_subagent_written_after_its_parent_was_read_is_linked(cli: CLI, kiro: Path) -> None:
    cli.json("index", "--no-embed")
    write_subagent(kiro)
    cli.json("index", "--no-embed")
    [hit] = hits(cli, "puffin")
    assert hit["session"]["subagent"] and hit["session"]["parent_id"] == TIDES
