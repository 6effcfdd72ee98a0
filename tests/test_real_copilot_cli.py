"""Real GitHub Copilot CLI logs (`../shared/realfiles/copilot-gemini-home/.copilot/`, the
older flat `session-state/<id>.jsonl` a person committed with their home folder) against a
counter written here over the raw JSON lines, never our parser.

These logs (`producer: copilot-agent`) end nearly every prompt with a
`<current_datetime>` tag the CLI adds for the model, and name their folder only in the
environment of a system message (and once in a `folder_trust` notice). The tests skip,
saying so, where the shared folder is absent or empty.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from conftest import SHARED

from findsession.indexing import IndexReport, Root, index_roots
from findsession.storage.sqlite import Store

STATE = SHARED / "realfiles" / "copilot-gemini-home" / ".copilot" / "session-state"
LOGS = sorted(STATE.glob("*.jsonl")) if STATE.is_dir() else []
pytestmark = pytest.mark.skipif(
    not LOGS, reason=f"no real Copilot CLI logs at {STATE} (only developers have them)"
)
TAG = re.compile(r"<current_datetime>.*?</current_datetime>", re.S)


def events(path: Path) -> list[dict[str, Any]]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def counted(path: Path) -> dict[str, Any]:
    """Prompts (less the CLI's time tag), replies and tool calls of one log, and the
    folder its first system message (else a trusted-folder notice) names."""
    found: dict[str, Any] = {"prompts": [], "replies": 0, "tool calls": 0, "summaries": 0}
    folders = []
    for event in events(path):
        kind, data = event.get("type"), event.get("data") or {}
        if kind == "user.message" and TAG.sub("", data.get("content") or "").strip():
            found["prompts"].append(TAG.sub("", data["content"]).strip())
        elif kind == "assistant.message":
            found["replies"] += bool((data.get("content") or "").strip())
            found["tool calls"] += len(data.get("toolRequests") or [])
        elif kind == "session.compaction_complete":
            found["summaries"] += bool((data.get("summaryContent") or "").strip())
        elif kind == "system.message":
            folders += re.findall(r"Current working directory: (.+)", data.get("content", ""))
        elif kind == "session.info" and data.get("infoType") == "folder_trust":
            folders += re.findall(r"^Folder (.+) has been added", data.get("message", ""))
    found["cwd"] = folders[0].strip() if folders else None
    return found


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Store, IndexReport]:
    store = Store.open(tmp_path_factory.mktemp("real-copilot") / "index.db")
    report = index_roots(store, [Root(STATE, "copilot-cli")])
    yield store, report
    store.close()


def test_the_logs_hold_the_prompts_the_shared_notes_count() -> None:
    """35 prompts in 3 sessions, 34 of them ending with the CLI's time tag."""
    prompts = [p for path in LOGS for p in counted(path)["prompts"]]
    tagged = sum(
        bool(TAG.search(e["data"].get("content", "")))
        for path in LOGS
        for e in events(path)
        if e.get("type") == "user.message"
    )
    assert (len(LOGS), len(prompts), tagged) == (3, 35, 34)


@pytest.mark.parametrize("path", LOGS, ids=lambda p: p.stem[:8])
def test_each_log_holds_what_was_typed_and_answered_and_its_folder(
    indexed: tuple[Store, IndexReport], path: Path
) -> None:
    store, report = indexed
    assert report.errors == []
    expected = counted(path)
    [(sid, cwd, title, turns)] = store.query(
        "SELECT id, cwd, title, n_turns FROM sessions WHERE file_path = ?", (str(path),)
    )
    kinds: dict[str, list[str]] = {}
    for kind, text in store.query(
        "SELECT kind, text FROM messages WHERE session_id = ? ORDER BY line, part", (sid,)
    ):
        kinds.setdefault(kind, []).append(text)
    assert kinds.get("prompt", []) == expected["prompts"]
    assert turns == len(expected["prompts"])
    assert len(kinds.get("reply", [])) == expected["replies"]
    assert len(kinds.get("tool_call", [])) == expected["tool calls"]
    assert len(kinds.get("compact_summary", [])) == expected["summaries"]
    assert cwd == expected["cwd"] and cwd
    assert "current_datetime" not in (title or "")
