"""Letta Code's subagents, through the real CLI: a subagent's conversation (another agent's
default conversation, in the same storage folder) linked to the conversation whose
`Agent` call started it, with its type; its prompt the task it was given, not the
`<system-reminder>` naming the agent and conversation it came from.

The storage folder was written by the real Letta Code 0.32.18 (`letta --backend local
--new-agent -p "Use a subagent to count the lines of notes.txt"`) against a scripted
OpenAI-compatible model on localhost: the agent called `Agent` (`general-purpose`),
which Letta Code ran in the background as a new agent (tagged `role:subagent`,
`type:general-purpose`, `parent:<agent id>`) in a process of its own; the subagent ran
`wc -l` and answered, while the parent waited with a `sleep` and then answered. Kept:
the two conversations' `messages.jsonl`, `conversation.json` and `manifest.json`, and
the subagent's agent file with its compiled system prompt cut; paths renamed to
`/home/dev/...` (the background task's log file among them).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI

from findsession.sources.base import store_id

FIXTURE = Path(__file__).parent / "fixtures" / "letta" / "subagent" / "lc-local-backend"
PARENT = "Y29udmVyc2F0aW9uOmxvY2FsLWNvbnYtMQ"  # conversation:local-conv-1
CHILD = "ZGVmYXVsdDphZ2VudC1sb2NhbC01NzA5ODdlNy0yYjQ0LTRkNDAtYWY3Zi02ZmVmMjYzMWY2MTk"
CHILD_AGENT = "agent-local-570987e7-2b44-4d40-af7f-6fef2631f619"
REMINDER = "<system-reminder>"


@pytest.fixture
def storage(cli: CLI, tmp_path: Path) -> Path:
    place = tmp_path / "home" / ".letta" / "lc-local-backend"
    shutil.copytree(FIXTURE, place)
    return place


def counted(path: Path) -> dict[str, Any]:
    """Prompts, calls, results and replies read without findsession."""
    prompts, calls, results, replies = [], 0, 0, 0
    for line in path.read_text().splitlines():
        msg = json.loads(line).get("message") or {}
        blocks = msg.get("content") if isinstance(msg.get("content"), list) else []
        if msg.get("role") == "user":
            said = [b["text"] for b in blocks if not b["text"].startswith(REMINDER)]
            prompts.append("\n".join(said).strip())
        calls += sum(1 for b in blocks if b.get("type") == "toolCall")
        replies += msg.get("role") == "assistant" and any(b.get("type") == "text" for b in blocks)
        results += msg.get("role") == "toolResult"
    return {"prompts": prompts, "calls": calls, "results": results, "replies": replies}


def test_a_subagents_conversation_is_linked_to_the_one_that_started_it(
    cli: CLI, storage: Path
) -> None:
    report = cli.json("index", "--no-embed")
    assert (report["errors"], report["problems"]) == ([], [])
    listed = {s["kind"]: s for s in cli.json("sources")["sources"]}["letta"]
    assert (listed["sessions"], listed["subagents"]) == (1, 1)
    store = store_id("letta", storage)
    [hit] = cli.json("search", "--mode", "keyword", "--source", "letta", "wc")["results"]
    child = hit["session"]
    assert child["id"] == f"{store}:default:{CHILD_AGENT}"
    assert child["subagent"] and child["parent_id"] == f"{store}:local-conv-1"
    assert child["agent_type"] == "general-purpose"
    turns = cli.json("read", child["id"], "--tools")["turns"]
    got = [m for t in turns for m in t["messages"]]
    want = counted(storage / "conversations" / CHILD / "messages.jsonl")
    assert want == {"prompts": ["Count the lines of notes.txt and report the number."],
                    "calls": 1, "results": 1, "replies": 1}  # fmt: skip
    assert [m["text"] for m in got if m["kind"] == "prompt"] == want["prompts"]
    kinds = [m["kind"] for m in got]
    assert (kinds.count("tool_call"), kinds.count("tool_output"), kinds.count("reply")) == (1, 1, 1)
    parent = cli.json("read", f"{store}:local-conv-1", "--tools")["turns"]
    assert counted(storage / "conversations" / PARENT / "messages.jsonl")["calls"] == 2
    assert [m["tool"] for t in parent for m in t["messages"] if m["kind"] == "tool_call"] == [
        "Agent", "Bash"]  # fmt: skip


def test_without_the_subagents_agent_file_it_is_a_session_of_its_own(
    cli: CLI, storage: Path
) -> None:
    """Only an agent Letta Code tagged `role:subagent` is taken for a subagent: a
    message from another agent alone (SendAgentMessage writes the same reminder) is not."""
    shutil.rmtree(storage / "agents")
    cli.json("index", "--no-embed")
    listed = {s["kind"]: s for s in cli.json("sources")["sources"]}["letta"]
    assert (listed["sessions"], listed["subagents"]) == (2, 0)
