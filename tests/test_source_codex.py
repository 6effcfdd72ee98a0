"""Codex CLI rollouts: found in the Codex home, searched, read back, kept up to date.

The fixture home (`fixtures/codex/home`) holds hand-written rollouts: a main session (a
plain prompt, an IDE-wrapped one, reasoning, a shell call, a patch, a malformed line), a
subagent that replays its parent's first turn before its own, a session that also gets a
compressed twin, an archived session that gets compressed, a rollout from before Codex
recorded events, and `session_index.jsonl` with a rename.
"""

from __future__ import annotations

import csv
import json
import re
import shutil
import sqlite3
from datetime import datetime
from pathlib import Path

import pytest
import zstandard
from conftest import CLI

from findsession.domain import MessageKind, Root
from findsession.indexing import IndexReport, index_roots
from findsession.search.engine import SearchOptions, search
from findsession.storage.sqlite import Store

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "codex" / "home"
MAIN = "019df26e-2d00-7f29-8645-deec08007ae4"
CHILD = "019df272-c0e0-7320-8908-5d728c026738"
TWIN = "019df75d-9a80-7823-8f7e-d4086c564b4e"
ARCHIVED = "019d480e-7400-7f24-81c9-941052f9896e"
LEGACY = "5e7c0d2a-1b34-4c56-9d78-0e1f2a3b4c5d"
KW = SearchOptions(mode="keyword")


def rollout(home: Path, sid: str) -> Path:
    return next(p for p in home.rglob(f"rollout-*{sid}.jsonl*"))


def compress(path: Path) -> Path:
    target = path.with_name(path.name + ".zst")
    target.write_bytes(zstandard.ZstdCompressor().compress(path.read_bytes()))
    return target


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A Codex home: the fixtures, a compressed twin beside one live rollout, and the
    archived session compressed as Codex does with old rollouts."""
    home = tmp_path / "codex"
    shutil.copytree(FIXTURE, home)
    compress(rollout(home, TWIN))
    archived = rollout(home, ARCHIVED)
    compress(archived)
    archived.unlink()
    return home


def index(store: Store, home: Path) -> IndexReport:
    return index_roots(store, [Root(home, "codex")])


def record(kind: str, payload: dict, ts: str = "2026-05-04T10:30:00.000Z") -> str:
    """One rollout line, newline included."""
    return json.dumps({"timestamp": ts, "type": kind, "payload": payload}) + "\n"


def item(role: str, text: str) -> dict:
    block = "input_text" if role == "user" else "output_text"
    return {"type": "message", "role": role, "content": [{"type": block, "text": text}]}


def prompts(store: Store, sid: str) -> list[str]:
    return [m.text for m in store.session_messages(sid) if m.kind is MessageKind.PROMPT]


def test_search_finds_a_codex_prompt_and_read_shows_its_turns(cli: CLI, home: Path) -> None:
    cli.env["CODEX_HOME"] = str(home)  # the standard place, found with no root named
    cli.run("index", "--no-embed")
    hits = cli.json("search", "drip scheduler skips the north orchard")["results"]
    top = hits[0]["session"]
    assert top["id"] == MAIN and top["source"] == "codex"
    assert top["title"] == "Tuesday irrigation fix"  # the last line for the id wins
    assert top["cwd"] == "/home/dev/orchard" and top["git_branch"] == "irrigation-schedule"

    read = cli.json("read", MAIN, "--tools")
    assert read["total_turns"] == 2
    first, second = ([m["text"] for m in t["messages"]] for t in read["turns"])
    assert first[0] == "Why does the drip scheduler skip the north orchard on Tuesdays?"
    assert "Look at how the weekday is computed." in first  # reasoning, once
    assert any("rg -n weekday src/schedule.rs" in text for text in first)
    assert sum("off by one" in text for text in first) == 1  # the reply, not its event copy
    # What the person typed in the IDE, not the open tabs wrapped around it.
    assert second[0] == "Add a regression test for the Tuesday valve window"
    assert not any("Open tabs" in text for t in read["turns"] for text in t)
    raw = cli.run("read", MAIN, "--raw").stdout
    assert "Add a regression test for the Tuesday valve window" in raw


def test_a_subagent_is_linked_and_its_replay_of_the_parent_is_not_indexed(
    store: Store, home: Path
) -> None:
    index(store, home)
    child = store.get_session(CHILD)
    assert child is not None and child.is_subagent and child.parent_id == MAIN
    assert child.agent_type == "explorer" and child.title == "Map valve wiring"
    assert prompts(store, CHILD) == [
        "List every valve id wired to the north orchard controller. Do not change files."
    ]
    hits = search(store, "drip scheduler", KW).hits
    assert [h.session.id for h in hits] == [MAIN]  # the parent's turn, once
    assert not any("drip scheduler" in m.text for m in store.session_messages(CHILD))
    assert store.get_session(MAIN).n_turns == 2


def test_a_grown_rollout_is_read_on_from_where_it_stopped(store: Store, home: Path) -> None:
    index(store, home)
    path = rollout(home, MAIN)
    turn = "019df2c8-8f00-7abc-8def-0123456789ab"
    added = "".join(
        (
            record("event_msg", {"type": "task_started", "turn_id": turn}),
            record("turn_context", {"turn_id": turn, "cwd": "/home/dev/orchard"}),
            record("response_item", item("user", "Now stagger the valves")),
            record("event_msg", {"type": "user_message", "message": "Now stagger the valves"}),
            record("response_item", item("assistant", "Valves open ten seconds apart.")),
        )
    ).encode()
    with open(path, "ab") as fh:
        fh.write(added)

    report = index(store, home)

    assert report.files_read == 1 and report.bytes_read == len(added)
    assert prompts(store, MAIN)[-1] == "Now stagger the valves"
    assert store.get_session(MAIN).n_turns == 3
    hits = search(store, "stagger", KW).hits
    assert hits[0].session.id == MAIN and hits[0].turn == 3


@pytest.mark.parametrize("written", [1, 9], ids=["own meta only", "inside the replay"])
def test_a_replay_is_dropped_when_the_first_read_stopped_before_or_inside_it(
    store: Store, home: Path, written: int
) -> None:
    path = rollout(home, CHILD)
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:written]))
    index(store, home)
    assert store.get_session(CHILD) is None  # nothing of its own yet
    with open(path, "ab") as fh:
        fh.write(b"".join(lines[written:]))
    index(store, home)
    assert prompts(store, CHILD) == [
        "List every valve id wired to the north orchard controller. Do not change files."
    ]
    assert store.get_session(CHILD).parent_id == MAIN


def test_a_compressed_twin_is_not_indexed_beside_its_live_rollout(store: Store, home: Path) -> None:
    report = index(store, home)
    assert report.errors == [] and report.files_seen == 5  # the twin is not even listed
    twins = store.sessions_with_prefix(TWIN)
    assert [s.id for s in twins] == [TWIN] and twins[0].file_path.endswith(".jsonl")
    assert store.get_session(TWIN).n_turns == 1


def test_an_archived_compressed_rollout_is_searchable_and_read_back(cli: CLI, home: Path) -> None:
    cli.run("index", "--no-embed", "--source", "codex", str(home))
    hits = cli.json("search", "frost alerts SMS email")["results"]
    assert hits[0]["session"]["id"] == ARCHIVED
    assert hits[0]["session"]["path"].endswith(".jsonl.zst")
    raw = cli.json("read", ARCHIVED, "--raw", "--tools")
    texts = [m["text"] for t in raw["turns"] for m in t["messages"]]
    assert texts[0] == "Migrate the frost alerts from SMS to email"
    assert any("rg -l twilio" in t for t in texts)


def test_an_unchanged_compressed_rollout_is_not_read_again(store: Store, home: Path) -> None:
    index(store, home)
    path = rollout(home, ARCHIVED)
    stat = path.stat()
    path.touch()  # a new mtime, the same bytes
    assert path.stat().st_mtime_ns != stat.st_mtime_ns
    again = index(store, home)
    assert again.files_read == 0 and again.files_unchanged == 5


def test_a_malformed_line_is_reported_by_its_number(store: Store, home: Path) -> None:
    report = index(store, home)
    found = [(Path(p).name, pr.line, pr.reason) for p, pr in report.problems]
    assert found == [(rollout(home, MAIN).name, 11, "malformed JSON")]
    assert store.get_session(MAIN).n_turns == 2  # the lines around it still count


def test_corrupt_and_truncated_compressed_rollouts_are_problems_not_crashes(
    store: Store, home: Path
) -> None:
    day = home / "sessions" / "2026" / "05" / "06"
    day.mkdir(parents=True)
    (day / "rollout-2026-05-06T08-00-00-garbage.jsonl.zst").write_bytes(b"not zstd at all\n" * 8)
    whole = zstandard.ZstdCompressor().compress(rollout(home, MAIN).read_bytes())
    cut = day / f"rollout-2026-05-06T09-00-00-{MAIN}.jsonl.zst"
    cut.write_bytes(whole[: len(whole) * 3 // 4])

    report = index(store, home)

    assert report.errors == []
    reasons = {Path(p).name: pr.reason for p, pr in report.problems if pr.reason.find("zstd") >= 0}
    assert reasons["rollout-2026-05-06T08-00-00-garbage.jsonl.zst"].startswith("corrupt zstd data")
    assert reasons[cut.name].startswith("truncated zstd file")


def test_a_title_from_the_state_database_wins_and_the_database_is_only_read(
    store: Store, home: Path
) -> None:
    db = home / "state_5.sqlite"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE threads (id TEXT PRIMARY KEY, title TEXT, cwd TEXT)")
        conn.execute("INSERT INTO threads VALUES (?, ?, ?)", (CHILD, "Valve map", "/x"))
    conn.close()
    before = (db.read_bytes(), sorted(p.name for p in home.iterdir()))
    index(store, home)
    assert store.get_session(CHILD).title == "Valve map"
    assert store.get_session(MAIN).title == "Tuesday irrigation fix"  # not in the table
    assert (db.read_bytes(), sorted(p.name for p in home.iterdir())) == before


def test_a_rollout_from_before_events_takes_its_prompts_from_the_items(
    store: Store, home: Path
) -> None:
    index(store, home)
    assert prompts(store, LEGACY) == ["Explain the pruning calendar file format"]
    legacy = store.get_session(LEGACY)
    assert legacy.cwd == "/home/dev/orchard" and legacy.git_branch == "main"


def test_events_found_after_a_first_read_make_the_rollout_read_again(
    store: Store, tmp_path: Path
) -> None:
    """A rollout read before its first event looked like an old one: its injected context
    was taken for a prompt. Once events turn up, it is read again from the start."""
    day = tmp_path / "codex" / "sessions" / "2026" / "05" / "07"
    day.mkdir(parents=True)
    sid = "019e0000-0000-7000-8000-00000000abcd"
    path = day / f"rollout-2026-05-07T08-00-00-{sid}.jsonl"

    path.write_text(
        record("session_meta", {"id": sid, "cwd": "/home/dev/greenhouse"})
        + record("response_item", item("user", "<greenhouse>\nhumidity 80%\n</greenhouse>"))
        + record("response_item", item("user", "Open the roof vents at noon"))
    )
    index(store, tmp_path / "codex")
    assert len(prompts(store, sid)) == 2  # no event yet: both items look typed

    with open(path, "a") as fh:
        fh.write(
            record("event_msg", {"type": "user_message", "message": "Open the roof vents at noon"})
        )
    index(store, tmp_path / "codex")
    assert prompts(store, sid) == ["Open the roof vents at noon"]


def test_a_tool_search_is_a_tool_call_answered_by_the_tools_it_found(
    store: Store, tmp_path: Path
) -> None:
    """Codex (0.14x) searches its deferred tools with a `tool_search_call`, its
    arguments an object, answered by a `tool_search_output` listing the tools found."""
    day = tmp_path / "codex" / "sessions" / "2026" / "07" / "03"
    day.mkdir(parents=True)
    sid = "019f26d2-0000-7000-8000-00000000beef"
    turn = "019f26d2-0001-7000-8000-00000000beef"
    call = {"type": "tool_search_call", "id": "tsc_01", "call_id": "call_ts1",
            "status": "completed", "execution": "client",
            "arguments": {"query": "greenhouse vent schedule", "limit": 8}}  # fmt: skip
    found = {"type": "tool_search_output", "call_id": "call_ts1", "status": "completed",
             "execution": "client", "tools": [
                 {"type": "namespace", "name": "vents", "description": "Vent control.",
                  "tools": [{"type": "function", "name": "vent_schedule",
                             "description": "Set when the vents open.", "parameters": {}}]},
                 {"type": "function", "name": "humidity_log", "description": "Read it.",
                  "parameters": {}},
             ]}  # fmt: skip
    (day / f"rollout-2026-07-03T15-12-18-{sid}.jsonl").write_text(
        record("session_meta", {"id": sid, "cwd": "/home/dev/greenhouse", "cli_version": "0.142"})
        + record("event_msg", {"type": "task_started", "turn_id": turn})
        + record("event_msg", {"type": "user_message", "message": "open the vents at noon"})
        + record("response_item", call)
        + record("response_item", found)
        + record("response_item", item("assistant", "The vents open at noon from today."))
    )
    index(store, tmp_path / "codex")
    messages = store.session_messages(sid)
    [searched] = [m for m in messages if m.kind is MessageKind.TOOL_CALL]
    assert searched.tool_name == "tool_search" and searched.tool_id == "call_ts1"
    assert "greenhouse vent schedule" in searched.text
    [output] = [m for m in messages if m.kind is MessageKind.TOOL_OUTPUT]
    assert output.tool_id == "call_ts1"
    assert "vent_schedule" in output.text and "humidity_log" in output.text


def test_files_attached_in_codex_desktop_are_not_part_of_the_prompt(
    store: Store, tmp_path: Path
) -> None:
    """Codex Desktop writes the files attached to a message (a pasted text kept as an
    attachment, a file picked in the project) above what was typed, under `# Files
    mentioned by the user:`; the prompt is the request, and a paste's first line."""
    day = tmp_path / "codex" / "sessions" / "2026" / "07" / "28"
    day.mkdir(parents=True)
    sid = "019fa8d3-0000-7000-8000-00000000f11e"
    wrapped = (
        "\n# Files mentioned by the user:\n\n"
        "## valves.lua: c:/Projects/orchard/Script/valves.lua\n\n"
        "## [ValveConfig] Row=12 missing: C:\\Users\\dev\\.codex/attachments/"
        "5f0c2a1e-0000-4000-8000-000000000001/pasted-text.txt\n\n"
        "## My request for Codex:\nwhy does valve 12 never open?\n"
    )
    (day / f"rollout-2026-07-28T13-04-30-{sid}.jsonl").write_text(
        record("session_meta", {"id": sid, "cwd": "C:\\Projects\\orchard",
                                "originator": "Codex Desktop", "cli_version": "0.145.0"})
        + record("event_msg", {"type": "task_started", "turn_id": sid})
        + record("response_item", item("user", wrapped))
        + record("event_msg", {"type": "user_message", "message": wrapped, "images": []})
        + record("response_item", item("assistant", "Row 12 names a valve that is not wired."))
    )  # fmt: skip
    index(store, tmp_path / "codex")
    # A long paste is kept as a file: its first line, all the rollout holds of it, stays.
    assert prompts(store, sid) == ["why does valve 12 never open?\n\n[ValveConfig] Row=12 missing"]
    assert store.get_session(sid).title.startswith("why does valve 12 never open?")


def test_words_typed_while_codex_works_steer_its_running_turn(store: Store, tmp_path: Path) -> None:
    """Words sent while a task runs join it (Codex records them as a `user_message`
    between the task's `task_started` and its `task_complete`, and opens no task): they
    steer that turn. A message after the task completed opens the next one."""
    day = tmp_path / "codex" / "sessions" / "2026" / "05" / "11"
    day.mkdir(parents=True)
    sid = "019e1731-0000-7000-8000-00000000571e"
    one, two = "019e1737-0000-7000-8000-000000000001", "019e1740-0000-7000-8000-000000000002"
    call = {"type": "function_call", "name": "exec_command", "call_id": "c1",
            "arguments": json.dumps({"cmd": "npm test"})}  # fmt: skip
    path = day / f"rollout-2026-05-11T21-19-44-{sid}.jsonl"
    path.write_text(
        record("session_meta", {"id": sid, "cwd": "/home/dev/assets", "cli_version": "0.130.0"})
        + record("event_msg", {"type": "task_started", "turn_id": one})
        + record("event_msg", {"type": "user_message", "message": "build the asset ledger"})
        + record("response_item", call)
        + record(
            "response_item",
            {"type": "function_call_output", "call_id": "c1", "output": "1 failing"},
        )  # fmt: skip
        + record("event_msg", {"type": "user_message", "message": "use the blue theme too"})
        + record("response_item", item("assistant", "Ledger built, in the blue theme."))
    )
    index(store, tmp_path / "codex")  # read while the task still runs
    with open(path, "a") as fh:
        fh.write(
            record("event_msg", {"type": "user_message", "message": "and sort it by date"})
            + record("event_msg", {"type": "task_complete", "turn_id": one})
            + record("event_msg", {"type": "task_started", "turn_id": two})
            + record("event_msg", {"type": "user_message", "message": "now add an export"})
            + record("response_item", item("assistant", "Export added."))
            + record("event_msg", {"type": "task_complete", "turn_id": two})
        )
    index(store, tmp_path / "codex")  # read on from the cursor, inside the running task
    kinds = [(m.kind, m.text) for m in store.session_messages(sid)
             if m.kind in (MessageKind.PROMPT, MessageKind.STEER)]  # fmt: skip
    assert kinds == [
        (MessageKind.PROMPT, "build the asset ledger"),
        (MessageKind.STEER, "use the blue theme too"),
        (MessageKind.STEER, "and sort it by date"),
        (MessageKind.PROMPT, "now add an export"),
    ]
    assert store.get_session(sid).n_turns == 2


def test_a_guardian_is_linked_to_the_session_whose_actions_it_assessed(
    store: Store, tmp_path: Path
) -> None:
    """Codex Desktop's guardian (an approval reviewer) runs in a rollout of its own whose
    `session_meta` names no parent; the transcript it is given ends with the reviewed
    session's id, which links it."""
    day = tmp_path / "codex" / "sessions" / "2026" / "05" / "11"
    day.mkdir(parents=True)
    parent, guardian = (
        "019e1731-0000-7000-8000-0000000000aa",
        "019e1738-0000-7000-8000-0000000000bb",
    )
    (day / f"rollout-2026-05-11T21-19-44-{parent}.jsonl").write_text(
        record("session_meta", {"id": parent, "cwd": "/home/dev/assets"})
        + record("event_msg", {"type": "task_started", "turn_id": parent})
        + record("event_msg", {"type": "user_message", "message": "install the ledger deps"})
    )
    evidence = (
        "The following is the Codex agent history whose request action you are assessing.\n"
        ">>> TRANSCRIPT START\n[1] user: install the ledger deps\n>>> TRANSCRIPT END\n"
        f"Reviewed Codex session id: {parent}\n"
        "The Codex agent has requested the following next action:\nnpm install\n"
    )
    meta = {
        "id": guardian,
        "cwd": "/home/dev/assets",
        "originator": "Codex Desktop",
        "source": {"subagent": {"other": "guardian"}},
        "base_instructions": {"text": "You are judging one planned coding-agent action."},
    }
    (day / f"rollout-2026-05-11T21-27-13-{guardian}.jsonl").write_text(
        record("session_meta", meta)
        + record("event_msg", {"type": "task_started", "turn_id": guardian})
        + record("response_item", item("user", "<environment_context>\n  <cwd>/home/dev/assets"
                                               "</cwd>\n</environment_context>"))
        + record("turn_context", {"turn_id": guardian, "cwd": "/home/dev/assets"})
        + record("response_item", item("user", evidence))
        + record("event_msg", {"type": "user_message", "message": evidence})
        + record("response_item", item("assistant", '{"outcome":"allow"}'))
    )  # fmt: skip
    index(store, tmp_path / "codex")
    child = store.get_session(guardian)
    assert child.is_subagent and child.parent_id == parent
    assert child.agent_type == "guardian"


# -- the shared corpus: real rollouts from public repositories (developers only)

SHARED = Path(__file__).resolve().parents[2] / "shared"
CORPUS = SHARED / "corpus"
SESSIONS_TSV = SHARED / "benchmarks" / "known-item-dev" / "sessions.tsv"


def typed_turns(path: Path) -> int:
    """Turns the person opened, counted straight from the JSON, without our parser:
    `user_message` events but those sent into a task already running and prompted (they
    steer it; in a rollout without events, user items that are not injected `<…>` or
    AGENTS.md text), leaving out what a child replays of its parent: the lines after a
    second `session_meta` until a turn that started after the child's own meta."""
    lines = [json.loads(raw) for raw in path.read_bytes().splitlines() if raw.strip()]
    has_events = any(o.get("type") == "event_msg" for o in lines)
    own, created, replaying, count = None, 0.0, False, 0
    running = prompted = False
    for obj in lines:
        kind, payload = obj.get("type"), obj.get("payload") or {}
        if kind == "session_meta":
            if own is None:
                own = payload["id"]
                created = datetime.fromisoformat(payload["timestamp"].replace("Z", "+00:00"))
                created = created.timestamp()
            replaying = replaying or payload["id"] != own
            continue
        if replaying:
            started = payload.get("started_at") if payload.get("type") == "task_started" else None
            if started is None or started < created:
                continue
            replaying = False
        if payload.get("type") in ("task_started", "task_complete", "turn_aborted"):
            running, prompted = payload["type"] == "task_started", False
        if has_events:
            if payload.get("type") == "user_message" and payload["message"].strip():
                count += not (running and prompted)
                prompted = running
        elif payload.get("type") == "message" and payload.get("role") == "user":
            text = "".join(b.get("text", "") for b in payload["content"]).lstrip()
            count += not text.startswith(("<", "# AGENTS.md"))
    return count


@pytest.mark.skipif(not CORPUS.is_dir(), reason=f"the shared corpus is not at {CORPUS}")
def test_every_codex_file_of_the_shared_corpus_indexes_with_its_prompts_and_parent(
    store: Store,
) -> None:
    with open(SESSIONS_TSV, encoding="utf-8") as fh:
        rows = [r for r in csv.DictReader(fh, delimiter="\t") if r["source"] == "codex"]
    rollouts = [(r, CORPUS / r["file"]) for r in rows if r["session_id"]]
    report = index_roots(store, [Root(path, "codex") for _, path in rollouts])
    assert report.errors == [] and report.files_read == len(rollouts) >= 10
    for row, path in rollouts:
        session = store.get_session(row["session_id"])
        assert session is not None and session.file_path == str(path), row["file"]
        assert session.n_turns == typed_turns(path), row["file"]
        parent = re.search(r"parent ([0-9a-f-]{36})", row["role"])
        assert session.parent_id == (parent.group(1) if parent else None), row["file"]
        assert session.is_subagent == bool(parent), row["file"]
    # The thread-name index: the last name given to each id is its session's title.
    names: dict[str, str] = {}
    for row in rows:
        if not row["session_id"]:
            for raw in (CORPUS / row["file"]).read_text(encoding="utf-8").splitlines():
                entry = json.loads(raw)
                names[entry["id"]] = entry["thread_name"]
    titled = [r["session_id"] for r, _ in rollouts if r["session_id"] in names]
    assert len(titled) >= 4
    assert {sid: store.get_session(sid).title for sid in titled} == {s: names[s] for s in titled}
