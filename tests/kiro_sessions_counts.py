"""Counts of a Kiro later-layout session (`sess_<id>/messages.jsonl`) made with no
findsession code: each line's JSON and its `payload.type`, as the other tools' readers
name them, nothing else."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path


def _text(content: object) -> str:
    if isinstance(content, str):
        return content.strip()
    if isinstance(content, list):
        return "\n".join(p.get("text", "") for p in content if isinstance(p, dict)).strip()
    return ""


def count_session(path: Path) -> Counter[str]:
    """prompts, steers, replies, thinking, summaries, calls, results, failed, bad lines."""
    out: Counter[str] = Counter()
    for raw in path.read_text(encoding="utf-8").splitlines():
        if not raw.strip():
            continue
        try:
            payload = json.loads(raw)["payload"]
            kind = payload["type"]
        except (ValueError, KeyError, TypeError):
            out["bad lines"] += 1
            continue
        text = _text(payload.get("content"))
        if kind == "user" and text:
            out["steers" if payload.get("source") == "steer" else "prompts"] += 1
        elif kind == "assistant" and text:
            op = payload.get("operationType")
            if op == "Reasoning":
                out["thinking"] += text != "..."
            else:
                out["summaries" if op == "Summary" else "replies"] += 1
        elif kind in ("tool_call", "sub_agent_start"):  # a subagent's task: a call
            out["calls"] += 1
        elif kind == "sub_agent_complete":
            out["results"] += 1
        elif kind == "tool_result":
            out["results"] += 1
            out["failed"] += payload.get("success") is False
    return +out


def prompts(path: Path) -> list[str]:
    """The typed prompts, in order (steers left out)."""
    found = []
    for raw in path.read_text(encoding="utf-8").splitlines():
        payload = json.loads(raw)["payload"]
        if payload["type"] == "user" and payload.get("source") != "steer":
            found.append(_text(payload.get("content")))
    return found
