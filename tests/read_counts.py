"""What the index holds of one session, read back through the real CLI, in the shape an
independent count of its file gives: the typed prompts, and how many replies, calls,
results and failed results."""

from __future__ import annotations

from typing import Any

from conftest import CLI


def indexed(cli: CLI, sid: str) -> dict[str, Any]:
    messages = [m for t in cli.json("read", sid, "--tools")["turns"] for m in t["messages"]]
    outputs = [m for m in messages if m["kind"] == "tool_output"]
    return {
        "prompts": [m["text"] for m in messages if m["kind"] == "prompt"],
        "replies": sum(m["kind"] == "reply" for m in messages),
        "calls": sum(m["kind"] == "tool_call" for m in messages),
        "results": len(outputs),
        "failed": sum(m["is_error"] for m in outputs),
    }
