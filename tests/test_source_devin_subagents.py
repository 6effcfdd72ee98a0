"""Devin CLI's subagents, through the real CLI: each subagent's chain of messages in its
parent's store a session of its own, linked to the session that started it, whichever
way the store names it: the `subagent/agent_id` and `subagent/chain_node_id` a
`run_subagent` result carries, or a `subagent_heads` row (schema 17, a background
subagent whose result named no chain). Its messages are kept out of its parent's, and a
node of the parent's chain is not read again in the subagent's.

The CLI is closed source and asks for an account, so it could not be run here. The store
(`devin_store`) is built in the shapes other tools' readers of real stores show: a
subagent runs in its parent's `message_nodes`, in a tree of its own whose root is its
system prompt (`telemetry.operation` `subagent_<profile>`) or its task; the parent's
`run_subagent` result names the subagent's id and the last node of its chain in its
`metadata.extensions`; `subagent_heads(session_id, agent_id, chain_node_id,
updated_at)` keeps each subagent's last node (docs/sources.md, "Devin CLI").
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import CLI
from devin_store import DevinStore, assistant, call, result, system, user

from findsession.sources.devin import file_id

OSPREY = "busy-osprey"
TIDES = "/home/dev/tidewater"
EXPLORER, SURVEYOR = "4a7c9e21", "b3d05f18"


def subagent_task(text: str) -> dict[str, Any]:
    """A subagent's task as its tree holds it: the parent agent's words, not typed."""
    meta = {"is_user_input": None, "telemetry": {"source": "subagent", "operation": "unknown"}}
    return {"role": "user", "content": text, "metadata": meta}


def subagent_system(profile: str) -> dict[str, Any]:
    meta = {"is_user_input": None, "telemetry": {"operation": f"subagent_{profile}"}}
    return {"role": "system", "content": "You are a Devin subagent.", "metadata": meta}


def build(data: Path) -> Path:
    db = data / "cli" / "sessions.db"
    s = DevinStore(db)
    s.session(OSPREY, TIDES, "map the tide station parsers")
    s.node(OSPREY, 1, None, system("You are Devin, a software engineer using a real computer."))
    s.node(OSPREY, 2, 1, user("map the tide station parsers"))
    s.node(OSPREY, 3, 2, assistant("Sending an explorer.", call(
        "run_subagent:0#e1", "run_subagent", task="list every parser of station files",
        profile="explore", title="Station parsers",
    )))  # fmt: skip
    # The explorer's own tree: its system prompt, its task, a call, its report.
    s.node(OSPREY, 10, None, subagent_system("explore"))
    s.node(OSPREY, 11, 10, subagent_task("list every parser of station files"))
    s.node(OSPREY, 12, 11, assistant("", call("grep:0#g1", "grep", pattern="def parse_")))
    s.node(OSPREY, 13, 12, result("grep:0#g1", "stations/noaa.py: def parse_noaa"))
    s.node(OSPREY, 14, 13, assistant("One parser: parse_noaa in stations/noaa.py, a cormorant."))
    s.node(OSPREY, 4, 3, result(
        "run_subagent:0#e1", f"Subagent agent_id={EXPLORER} completed successfully",
        subagent__agent_id=EXPLORER, subagent__chain_node_id=14, subagent__profile_name="explore",
    ))  # fmt: skip
    s.node(OSPREY, 5, 4, assistant("", call(
        "run_subagent:1#e2", "run_subagent", task="check the harbour gauge offsets",
        profile="explore", is_background=True,
    )))  # fmt: skip
    s.node(OSPREY, 6, 5, result(
        "run_subagent:1#e2", f"Started subagent {SURVEYOR} in the background",
        subagent__agent_id=SURVEYOR,
    ))  # fmt: skip
    # The surveyor's tree, named by its row of `subagent_heads` alone; its root is its task.
    s.node(OSPREY, 20, None, subagent_task("check the harbour gauge offsets"))
    s.node(OSPREY, 21, 20, assistant("The harbour gauge sits 12 cm low, a guillemot note."))
    s.subagent_head(OSPREY, SURVEYOR, 21)
    s.node(OSPREY, 7, 6, assistant("The explorer found parse_noaa; the survey runs on."))
    s.head(OSPREY, 7)
    s.close()
    return db


@pytest.fixture
def db(cli: CLI, tmp_path: Path) -> Path:
    return build(tmp_path / "home" / ".local" / "share" / "devin")


def hits(cli: CLI, query: str) -> list[dict[str, Any]]:
    return cli.json("search", "--mode", "keyword", "--source", "devin", query)["results"]


def texts(cli: CLI, session: str) -> list[tuple[str, str]]:
    turns = cli.json("read", session, "--tools")["turns"]
    return [(m["kind"], m["text"]) for t in turns for m in t["messages"]]


def test_each_subagent_is_a_session_linked_to_its_parent(cli: CLI, db: Path) -> None:
    report = cli.json("index", "--no-embed")
    assert (report["errors"], report["problems"]) == ([], [])
    parent = f"{file_id(db)}:{OSPREY}"
    listed = {s["kind"]: s for s in cli.json("sources")["sources"]}["devin"]
    assert (listed["sessions"], listed["subagents"]) == (1, 2)
    explorer = hits(cli, "cormorant")[0]["session"]
    assert explorer["subagent"] and explorer["parent_id"] == parent
    assert texts(cli, explorer["id"]) == [
        ("prompt", "list every parser of station files"),
        ("tool_call", "pattern: def parse_"),
        ("tool_output", "stations/noaa.py: def parse_noaa"),
        ("reply", "One parser: parse_noaa in stations/noaa.py, a cormorant."),
    ]
    raw = cli.json("read", explorer["id"], "--raw")["turns"]
    assert raw == cli.json("read", explorer["id"])["turns"]  # read back from the store
    surveyor = hits(cli, "guillemot")[0]["session"]
    assert surveyor["subagent"] and surveyor["parent_id"] == parent
    assert [k for k, _ in texts(cli, surveyor["id"])] == ["prompt", "reply"]
    assert explorer["id"] != surveyor["id"]
    # The parent keeps its own chain, the results that name the subagents among it.
    own = texts(cli, parent)
    assert ("prompt", "map the tide station parsers") in own
    assert not any("cormorant" in t or "guillemot" in t for _, t in own)
    resume = hits(cli, "cormorant")[0]["resume"]
    assert resume["command"] == ["devin", "--resume", OSPREY]  # through its parent


def test_a_subagent_that_goes_on_is_read_again_with_its_parent(cli: CLI, db: Path) -> None:
    cli.json("index", "--no-embed")
    s = DevinStore.__new__(DevinStore)
    import sqlite3

    s.conn, s.clock, s.message_ids = sqlite3.connect(db, isolation_level=None), 1_797_000_000, 90
    s.node(OSPREY, 22, 21, subagent_task("and the river gauge"))
    s.node(OSPREY, 23, 22, assistant("The river gauge reads true, a dipper note."))
    s.subagent_head(OSPREY, SURVEYOR, 23)
    s.close()
    assert cli.json("index", "--no-embed")["sessions_changed"] >= 1
    surveyor = hits(cli, "dipper")[0]["session"]
    assert surveyor["parent_id"] == f"{file_id(db)}:{OSPREY}"
    said = texts(cli, surveyor["id"])
    assert [t for k, t in said if k == "reply"] == [
        "The harbour gauge sits 12 cm low, a guillemot note.",
        "The river gauge reads true, a dipper note.",
    ]
    assert len(hits(cli, "guillemot")) == 1
