"""Real conversations of the OpenHands app (`../shared/realfiles/openhands/<owner+repo>/
.openhands/sessions/<id>/`, `metadata.json` and `events/<n>.json` as a person's app wrote
them and committed them to a public repository), through the real CLI, against a
counter written here over the raw event files, never our parser.

sheepdestroyer/SheepVibes @ea494e6 holds 16 conversations of October 2025 (OpenHands
0.5x with function calling): 68 typed prompts, 970 tool calls (shell, editor, browser,
MCP, task tracker, think) and their outputs, condensations, errors of calls the model
sent without a parameter, and three conversations where nothing was said. These tests
skip, saying so, where the shared folder is absent.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI, SHARED

REAL = SHARED / "realfiles" / "openhands"
HOMES = sorted(REAL.glob("*/.openhands/sessions")) if REAL.is_dir() else []
pytestmark = pytest.mark.skipif(
    not HOMES, reason=f"no real OpenHands app conversations at {REAL} (only developers have them)"
)
#: Conversations, those with something said, typed prompts, calls and outputs.
KNOWN = {"sheepdestroyer+SheepVibes": (16, 13, 68, 970, 941)}
_QUIET = ("agent_state_changed", "recall", "null")


def counted(folder: Path) -> dict[str, Any]:
    """One conversation: the person's `message` actions with text, actions the model
    called as a tool (`tool_call_metadata`) but `finish`, observations with content
    other than state changes, recalls and empty ones, and the title."""
    events = [json.loads(p.read_text(encoding="utf-8")) for p in (folder / "events").iterdir()]
    events.sort(key=lambda e: e["id"])
    prompts = [
        e["args"]["content"].strip()
        for e in events
        if e.get("source") == "user" and e.get("action") == "message"
        and e["args"].get("content", "").strip()
    ]  # fmt: skip
    calls = [e for e in events if "action" in e and e.get("tool_call_metadata")
             and e["action"] != "finish"]  # fmt: skip
    outputs = [e for e in events if e.get("observation") not in (None, *_QUIET)
               and (e.get("content") or "").strip()]  # fmt: skip
    title = json.loads((folder / "metadata.json").read_text(encoding="utf-8"))["title"]
    return {"prompts": prompts, "calls": len(calls), "outputs": len(outputs), "title": title}


@pytest.mark.parametrize("home", HOMES, ids=[p.parent.parent.name for p in HOMES])
def test_each_conversation_holds_what_its_events_say(cli: CLI, home: Path) -> None:
    report = cli.json("index", "--no-embed", "--source", "openhands", str(home))
    assert report["errors"] == report["problems"] == []
    folders = sorted(p for p in home.iterdir() if (p / "metadata.json").is_file())
    totals = [len(folders), 0, 0, 0, 0]
    for folder in folders:
        expected = counted(folder)
        if not expected["prompts"] and not expected["calls"]:
            continue  # nothing was said: no session
        read = cli.json("read", folder.name, "--tools")
        said = [m for t in read["turns"] for m in t["messages"]]
        assert [m["text"] for m in said if m["kind"] == "prompt"] == expected["prompts"]
        assert len([m for m in said if m["kind"] == "tool_call"]) == expected["calls"]
        assert len([m for m in said if m["kind"] == "tool_output"]) == expected["outputs"]
        assert read["session"]["title"] == expected["title"]
        totals[1] += 1
        totals[2] += len(expected["prompts"])
        totals[3] += expected["calls"]
        totals[4] += expected["outputs"]
    name = home.parent.parent.name
    if name in KNOWN:
        assert tuple(totals) == KNOWN[name]
