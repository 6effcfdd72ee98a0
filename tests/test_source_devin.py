"""Devin CLI's `cli/sessions.db`, through the real CLI: each session the chain the person
saw (a retried reply, an abandoned branch and a summarizer's own messages left out, what
a compaction summarised read once, before its summary), prompts exactly the typed ones
(counted here from the store's own columns, with no findsession code), calls paired
with their results and a failed one, a malformed node reported in one line and the rest
read, a hidden session read, the older shape, only the sessions that changed read again,
`devin --resume`, and blame through its `edit` and `write`.

The CLI is closed source and asks for an account, so it could not be run here against a
scripted model, and no real store of a person's was found published: the store is built
(`devin_store`) in the schema an isolated run of the CLI was seen to create and in the
shapes the readers of kenn-io/agentsview and getagentseal/codeburn, and the synthetic
stores other readers of Devin's store test against, show (docs/sources.md, "Devin CLI").
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI
from devin_store import (
    OLDER_SCHEMA,
    DevinStore,
    assistant,
    call,
    result,
    system,
    user,
)

from findsession.sources.devin import file_id

HERON = "steady-heron"  # retried reply, a failed command, an edit and a write
LANTERN = "quiet-lantern"  # compaction, a keep-alive, a malformed node
KESTREL = "amber-kestrel"  # hidden
GANNET = "tidy-gannet"  # a compaction that copied the message it summarised last
WREN = "orphan-wren"  # nodes whose session row is gone
OTTER = "plain-otter"  # the older shape, no main_chain_id
MARTEN = "flat-marten"  # no parent links at all
TIDES = "/home/dev/tidewater"


def build(data: Path) -> Path:
    """The store under Devin's data folder `data`; its path."""
    db = data / "cli" / "sessions.db"
    s = DevinStore(db)
    s.session(HERON, TIDES, "why does the tide table round high water wrong")
    s.node(HERON, 1, None, system("You are Devin, a software engineer using a real computer."))
    s.node(HERON, 2, 1, user("why does the tide table round high water wrong"))
    s.node(HERON, 3, 2, assistant("A first try about marmalade that timed out.", request="req-1"))
    s.node(HERON, 4, 2, assistant(
        "Reading tides.py.",
        call("read:0#a1", "read", file_path=f"{TIDES}/tides.py"),
        thinking="Start with the rounding in tides.py.", request="req-1",
    ))  # fmt: skip
    s.node(HERON, 5, 4, result("read:0#a1", "def high_water(t):\n    return round(t, 0)\n"))
    s.node(HERON, 6, 5, assistant("round() drops the half minute; using ceil.", call(
        "edit:0#b2", "edit", file_path=f"{TIDES}/tides.py",
        old_string="return round(t, 0)", new_string="return math.ceil(t)",
    )))  # fmt: skip
    s.node(HERON, 7, 6, result("edit:0#b2", "Edited tides.py"))
    s.node(HERON, 8, 7, assistant("", call("exec:0#c3", "exec", command="python -m pytest -q")))
    s.node(HERON, 9, 8, result("exec:0#c3#9f", "F.\n1 failed: test_spring_tide"))
    s.node(HERON, 10, 9, assistant("The spring tide test expects the old rounding."))
    s.node(HERON, 11, 10, user("now write a changelog entry for the tide fix"))
    s.node(HERON, 12, 11, assistant("", call(
        "write:0#d4", "write", file_path=f"{TIDES}/CHANGELOG.md",
        content="- High water rounds up to the minute.\n",
    )))  # fmt: skip
    s.node(HERON, 13, 12, result("write:0#d4", "Wrote CHANGELOG.md"))
    s.node(HERON, 14, 13, assistant("Done: the changelog names the tide fix."))
    s.head(HERON, 14)
    # A subagent's chain starts a root of its own, written after the head: not this chain.
    s.node(HERON, 15, None, user("a subagent's task: count the pelicans", typed=None))
    s.node(HERON, 16, 15, assistant("Forty pelicans."))
    named = {"_meta": {"cognition.ai/inferenceToolName": "read"}}
    s.state(HERON, "read:0#a1", {"kind": "read", **named}, {"status": "completed"})
    exited = {"terminal_exit": {"exit_code": 1, "signal": None}}
    s.state(HERON, "exec:0#c3", {"kind": "execute", "rawInput": {"command": "python -m pytest"}},
            {"status": "completed", "_meta": exited})  # fmt: skip
    s.state(HERON, "edit:0#b2", {"kind": "edit"}, {"status": "completed"})

    s.session(LANTERN, "/home/dev/lantern", "port the lantern cache to redis")
    s.node(LANTERN, 1, None, system("You are Devin."))
    s.node(LANTERN, 2, 1, user("port the lantern cache to redis"))
    s.node(LANTERN, 3, 2, assistant("", call("exec:0#e5", "exec", command="grep -rn cache src")))
    s.node(LANTERN, 4, 3, result("exec:0#e5", "src/cache.go:12: type Cache struct"))
    s.node(LANTERN, 5, 4, assistant("Found the cache type.", request="req-9"))
    s.node(LANTERN, 6, 4, assistant("Found the cache type.", request="req-9"),
           {"num_tokens_preceding": 1200})  # fmt: skip
    s.node(LANTERN, 7, 6, user("continue", typed=None))
    edit = call("edit:0#f6", "edit", file_path="src/cache.go", old_string="map", new_string="redis")
    s.node(LANTERN, 8, 7, assistant("Swapping the map for a redis client.", edit))
    s.node(LANTERN, 9, 8, result("edit:0#f6", "edited src/cache.go"))
    s.node(LANTERN, 10, None, system("You are a Summarizer."), {"is_system_prefix": True})
    s.node(LANTERN, 11, 10, user("Conversation to summarize: port the lantern cache", typed=None))
    s.node(LANTERN, 12, 11, assistant("Summary: a quokka asked for redis."), {"summarized_from": 7})
    s.node(LANTERN, 13, 2, system("You are continuing work from a previous conversation. "
           "Summary: the person asked to port the lantern cache to redis."),
           {"summarized_from": 7})  # fmt: skip
    s.node(LANTERN, 14, 13, assistant("Swapping the map for a redis client (resumed).", edit),
           {"extensions": {"compact/prior_node_ids": [8]}})  # fmt: skip
    s.node(LANTERN, 15, 14, result("edit:0#f6", "edited src/cache.go"),
           {"extensions": {"compact/prior_node_ids": [9]}})  # fmt: skip
    s.node(LANTERN, 16, 15, '{"message_id": "dm-broken", "role": "assistant", "content": "cut')
    s.node(LANTERN, 17, 16, user("does the lantern cache expire keys"))
    s.node(LANTERN, 18, 17, assistant("Yes, after an hour."))
    s.head(LANTERN, 18)

    s.session(GANNET, "/home/dev/gannet", "why do gannets dive")
    s.node(GANNET, 1, None, user("why do gannets dive"))
    s.node(GANNET, 2, 1, assistant("Gannets dive for fish."))
    s.node(GANNET, 3, 1, system("Summary: gannets and their dives."), {"summarized_from": 2})
    s.node(GANNET, 4, 3, assistant("Gannets dive for fish."),
           {"extensions": {"compact/prior_node_ids": [2]}})  # fmt: skip
    s.node(GANNET, 5, 4, user("how deep"))
    s.node(GANNET, 6, 5, assistant("Up to thirty metres."))
    s.head(GANNET, 6)

    s.session(KESTREL, "/home/dev/kestrel", "sort the kestrel sightings", hidden=True)
    s.node(KESTREL, 1, None, user("sort the kestrel sightings by wingspan"))
    s.node(KESTREL, 2, 1, assistant("Sorted by wingspan."))
    s.head(KESTREL, 2)

    s.node(WREN, 1, None, user("a prompt about a wren whose session row is gone"))
    s.close()
    return db


def build_older(data: Path) -> Path:
    """A store from before `tool_call_state` and the typed mark, its messages in the
    shape kenn-io/agentsview's reader takes (OpenAI-style `function` calls, no
    `message_id`, no `main_chain_id`)."""
    db = data / "cli" / "sessions.db"
    s = DevinStore(db, OLDER_SCHEMA)
    s.session(OTTER, "/home/dev/otter", None)
    s.node(OTTER, 1, None, {"role": "user", "content": "count the otters in holt.csv"})
    s.node(OTTER, 2, 1, {"role": "assistant", "content": "Counting.", "tool_calls": [
        {"id": "call-1", "function": {"name": "read", "arguments": '{"file_path": "holt.csv"}'}}]})
    s.node(OTTER, 3, 2, {"role": "tool", "tool_call_id": "call-1", "content": "otter\notter\n"})
    s.node(OTTER, 4, 3, {"role": "assistant", "content": [{"type": "text", "text": "Two otters."}]})
    s.session(MARTEN, "/home/dev/marten", None)  # nodes naming no parent: every one read
    s.node(MARTEN, 1, None, {"role": "user", "content": "where do pine martens den"})
    s.node(MARTEN, 2, None, {"role": "assistant", "content": "In tree hollows."})
    s.close()
    return db


def count(db: Path) -> dict[str, Counter[str]]:
    """What each listed session's chain holds, from the store's columns alone: walk the
    parents from `main_chain_id` (else the last node), read first what a summary on it
    replaced, skip a compaction's copy of a message read, and count by role."""
    conn = sqlite3.connect(db)
    out: dict[str, Counter[str]] = {}
    for sid, head in conn.execute("SELECT id, main_chain_id FROM sessions"):
        rows = {n: (p, m, meta) for n, p, m, meta in conn.execute(
            "SELECT node_id, parent_node_id, chat_message, metadata FROM message_nodes"
            " WHERE session_id = ? ORDER BY row_id", (sid,))}  # fmt: skip
        head = head if head in rows else max(rows, default=None)
        seen: set[int] = set()
        c: Counter[str] = Counter()
        for n in _walk(rows, head) if head is not None else []:
            copies = json.loads(rows[n][2] or "{}").get("extensions", {})
            if n in seen or set(copies.get("compact/prior_node_ids", [-1])) <= seen:
                continue
            seen.add(n)
            try:
                m = json.loads(rows[n][1])
            except ValueError:
                c["broken"] += 1
                continue
            typed = m.get("metadata", {}).get("is_user_input", True)
            if m["role"] == "user":
                c["prompts" if typed else "harness"] += 1
            elif m["role"] == "assistant":
                c["replies"] += bool(m["content"])
                c["calls"] += len(m.get("tool_calls", []))
                c["thinking"] += "thinking" in m
            elif m["role"] == "tool":
                c["results"] += 1
            elif m["role"] == "system":
                summary = json.loads(rows[n][2] or "{}").get("summarized_from") is not None
                c["summaries" if summary else "harness"] += 1
        out[sid] = +c
    return out


def _walk(rows: dict[int, tuple[Any, Any, Any]], n: int | None) -> list[int]:
    ids = []
    while n is not None:
        ids.append(n)
        n = rows[n][0]
    spread: list[int] = []
    for i in reversed(ids):
        meta = json.loads(rows[i][2] or "{}")
        if meta.get("summarized_from") is not None:
            spread += [j for j in _walk(rows, meta["summarized_from"]) if j not in spread]
        spread.append(i)
    return spread


_KINDS = {"prompt": "prompts", "reply": "replies", "thinking": "thinking",
          "tool_call": "calls", "tool_output": "results", "harness": "harness",
          "compact_summary": "summaries"}  # fmt: skip


@pytest.fixture
def db(cli: CLI, tmp_path: Path) -> Path:
    return build(tmp_path / "home" / ".local" / "share" / "devin")


def sid(db: Path, key: str) -> str:
    return f"{file_id(db)}:{key}"


def messages(cli: CLI, session: str) -> list[dict[str, Any]]:
    turns = cli.json("read", session, "--tools")["turns"]
    return [m for t in turns for m in t["messages"]]


def held(cli: CLI, session: str) -> Counter[str]:
    return Counter(_KINDS[m["kind"]] for m in messages(cli, session))


def test_each_session_holds_its_chain_as_an_independent_count_finds(cli: CLI, db: Path) -> None:
    report = cli.json("index", "--no-embed")
    assert report["errors"] == []
    [problem] = report["problems"]
    assert "malformed JSON" in json.dumps(problem) and LANTERN in json.dumps(problem)
    expected = count(db)
    assert expected[HERON] == Counter(prompts=2, replies=4, thinking=1, calls=4, results=4,
                                      harness=1)  # fmt: skip
    assert expected[LANTERN] == Counter(prompts=2, replies=3, calls=2, results=2, harness=2,
                                        summaries=1, broken=1)  # fmt: skip
    assert expected[GANNET] == Counter(prompts=2, replies=2, summaries=1)
    for key in (HERON, LANTERN, GANNET, KESTREL):
        # The harness's text and a compaction's summary belong to no turn that `read`
        # shows; a broken node is the one problem.
        shown = expected[key] - Counter(broken=1, harness=9, summaries=9)
        assert held(cli, sid(db, key)) == shown, key
    listed = {s["kind"]: s for s in cli.json("sources")["sources"]}["devin"]
    assert listed["sessions"] == 4  # the hidden one too; not the nodes without a row


def test_the_retried_reply_and_the_summarizers_words_are_not_read(cli: CLI, db: Path) -> None:
    cli.json("index", "--no-embed")
    for word in ("marmalade", "quokka", "wren", "pelicans"):
        found = cli.json("search", "--mode", "keyword", "--source", "devin", word)["results"]
        assert found == [], word
    texts = [m["text"] for m in messages(cli, sid(db, LANTERN))]
    # What the compaction summarised comes first, the copy it made of it is not read again.
    assert texts.index("Found the cache type.") < texts.index(
        "Swapping the map for a redis client (resumed)."
    )
    assert texts.count("Found the cache type.") == 1
    assert texts.count("edited src/cache.go") == 1
    # The copy's text is what the chain holds now; its original is not read beside it.
    assert "Swapping the map for a redis client (resumed)." in texts
    assert "Swapping the map for a redis client." not in texts
    assert texts[-2:] == ["does the lantern cache expire keys", "Yes, after an hour."]


def test_prompts_title_folder_calls_and_failure(cli: CLI, db: Path) -> None:
    cli.json("index", "--no-embed")
    [hit] = cli.json("search", "--mode", "keyword", "--source", "devin", "tide table")["results"]
    session = hit["session"]
    assert session["id"] == sid(db, HERON)
    assert session["title"] == "why does the tide table round high water wrong"
    assert session["cwd"] == TIDES
    got = messages(cli, session["id"])
    assert [m["text"] for m in got if m["kind"] == "prompt"] == [
        "why does the tide table round high water wrong",
        "now write a changelog entry for the tide fix",
    ]
    outputs = [(m["tool"], m["is_error"]) for m in got if m["kind"] == "tool_output"]
    assert outputs == [("read", False), ("edit", False), ("exec", True), ("write", False)]
    calls = [m["tool"] for m in got if m["kind"] == "tool_call"]
    assert calls == ["read", "edit", "exec", "write"]


def test_blame_finds_the_edit_and_the_write(cli: CLI, db: Path) -> None:
    cli.json("index", "--no-embed")
    writes = cli.json("blame", f"{TIDES}/tides.py")["writers"]
    assert [(w["session"]["id"], w["op"], w["tool"]) for w in writes] == [
        (sid(db, HERON), "edit", "edit")]  # fmt: skip
    assert "math.ceil" in writes[0]["added"][0]
    writes = cli.json("blame", f"{TIDES}/CHANGELOG.md")["writers"]
    assert [(w["session"]["id"], w["op"], w["tool"]) for w in writes] == [
        (sid(db, HERON), "create", "write")]  # fmt: skip


def test_resume_is_devin_resume_in_its_folder(cli: CLI, db: Path) -> None:
    cli.json("index", "--no-embed")
    [hit] = cli.json("search", "--mode", "keyword", "--source", "devin", "changelog")["results"]
    assert hit["resume"]["command"] == ["devin", "--resume", HERON]
    assert hit["resume"]["cwd"] == TIDES


def test_only_a_changed_session_is_read_again(cli: CLI, db: Path) -> None:
    cli.json("index", "--no-embed")
    assert cli.json("index", "--no-embed")["files_read"] == 0
    s = DevinStore.__new__(DevinStore)
    s.conn, s.clock, s.message_ids = sqlite3.connect(db, isolation_level=None), 1_797_000_000, 90
    s.node(KESTREL, 3, 2, user("and the falcon sightings too"))
    s.head(KESTREL, 3)
    s.close()
    report = cli.json("index", "--no-embed")
    assert (report["files_read"], report["lines_read"], report["sessions_changed"]) == (1, 1, 1)
    prompts = [m["text"] for m in messages(cli, sid(db, KESTREL)) if m["kind"] == "prompt"]
    assert prompts[-1] == "and the falcon sightings too"


def test_the_older_shape(cli: CLI, tmp_path: Path) -> None:
    db = build_older(tmp_path / "home" / ".local" / "share" / "devin")
    report = cli.json("index", "--no-embed")
    assert (report["errors"], report["problems"]) == ([], [])
    assert held(cli, sid(db, OTTER)) == count(db)[OTTER] == Counter(
        prompts=1, replies=2, calls=1, results=1)  # fmt: skip
    assert held(cli, sid(db, MARTEN)) == Counter(prompts=1, replies=1)
    got = messages(cli, sid(db, OTTER))
    assert [(m["kind"], m.get("tool")) for m in got][2:4] == [
        ("tool_call", "read"), ("tool_output", "read")]  # fmt: skip


def test_a_store_in_use_or_not_devins(cli: CLI, tmp_path: Path) -> None:
    data = tmp_path / "home" / ".local" / "share" / "devin" / "cli"
    data.mkdir(parents=True)
    (data / "sessions.db").write_bytes(b"not a database at all, just bytes" * 40)
    report = cli.json("index", "--no-embed")
    assert len(report["errors"]) == 1
    os.remove(data / "sessions.db")
    sqlite3.connect(data / "sessions.db").execute("CREATE TABLE other (x)").connection.close()
    report = cli.json("index", "--no-embed")
    assert "not a Devin CLI store" in json.dumps(report["problems"])


def test_a_turn_the_cli_is_writing_is_read_once_committed(cli: CLI, db: Path) -> None:
    """The store is in WAL mode, as the running CLI keeps it: a read while the CLI is in
    the middle of writing a turn reads the turns committed before it, without waiting
    or failing, and the next run reads the turn."""
    writer = sqlite3.connect(db, isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")
    writer.execute(
        "INSERT INTO message_nodes (session_id, node_id, parent_node_id, chat_message,"
        " created_at) VALUES (?, 3, 2, ?, 1797000000)",
        (KESTREL, json.dumps(user("and the merlin sightings"))),
    )
    writer.execute("UPDATE sessions SET main_chain_id = 3 WHERE id = ?", (KESTREL,))
    report = cli.json("index", "--no-embed")
    assert (report["errors"], len(report["problems"])) == ([], 1)  # LANTERN's broken node
    assert held(cli, sid(db, KESTREL)) == Counter(prompts=1, replies=1)
    writer.execute("COMMIT")
    writer.close()
    assert cli.json("index", "--no-embed")["sessions_changed"] == 1
    assert held(cli, sid(db, KESTREL)) == Counter(prompts=2, replies=1)


def test_the_data_folder_under_xdg_data_home(cli: CLI, tmp_path: Path) -> None:
    db = build(tmp_path / "xdg" / "devin")
    cli.env["XDG_DATA_HOME"] = str(tmp_path / "xdg")
    cli.json("index", "--no-embed")
    assert held(cli, sid(db, KESTREL)) == Counter(prompts=1, replies=1)


def test_a_handoff_starts_devin_with_its_prompt_after_the_separator() -> None:
    """`devin -- PROMPT` (the CLI's documented form), so a prompt that opens with a word
    its subcommands take (`list`) is still the prompt."""
    from findsession.sources.starting import start_command

    started = start_command("devin", "list what the tide fix left to do", "/home/dev/tidewater")
    assert started.command == ("devin", "--", "list what the tide fix left to do")
