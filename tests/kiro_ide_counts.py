"""Kiro IDE's chats counted from their JSON alone, with no findsession code, for the
tests to hold the index against: typed prompts in a session file (user items with
text); in the runs its answers name by `executionId`, each message once by its
`messageId`, neither Kiro's own (`forcedRole`, the `tooluse_fileTree` listing) nor a
`human` one (Kiro's prompt, steering files and the typed text again)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

_ENTRIES = {"text": "replies", "reasoningContent": "thinking", "toolUse": "calls",
            "toolUseResponse": "results"}  # fmt: skip


def runs(agent: Path) -> dict[str, Any]:
    """Every run under the agent's folder, by its id."""
    found = {}
    for log in agent.glob("*/*/*"):
        doc = json.loads(log.read_text(encoding="utf-8"))
        if isinstance(doc, dict) and "executionId" in doc:
            found[doc["executionId"]] = doc
    return found


def count_chat(path: Path, every_run: dict[str, Any]) -> Counter[str]:
    """The prompts, replies, thinking, calls and results of the chat at `path`."""
    found: Counter[str] = Counter()
    seen: set[str] = set()
    for item in json.loads(path.read_text(encoding="utf-8"))["history"]:
        message = item["message"]
        if message["role"] == "user":
            parts = message["content"]
            text = parts if isinstance(parts, str) else "".join(p["text"] for p in parts)
            found["prompts"] += bool(text.strip())
            continue
        run = every_run.get(item.get("executionId"), {})
        for m in run.get("context", {}).get("messages", []):
            fresh = m["messageId"] not in seen
            seen.add(m["messageId"])
            if not fresh or m["forcedRole"] or m["role"] == "human":
                continue
            for e in m["entries"]:
                kind = _ENTRIES.get(e["type"])
                if kind is None or e.get("id") == "tooluse_fileTree":
                    continue
                if kind in ("calls", "results") or e["text"].strip():
                    found[kind] += 1
    return found


def count_store(agent: Path) -> Counter[str]:
    """Every chat of the agent's folder (`chats`) and what they hold, summed."""
    every_run = runs(agent)
    found: Counter[str] = Counter()
    for path in agent.glob("workspace-sessions/*/*.json"):
        if path.name != "sessions.json":
            found["chats"] += 1
            found.update(count_chat(path, every_run))
    return found
