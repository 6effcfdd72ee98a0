"""What the index holds of one session, read back through the real CLI, in the shape an
independent count of its file gives: the typed prompts, and how many replies, calls,
results and failed results; and a file indexed in two parts, as an agent appends it."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path
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


def kinds_read(cli: CLI, sid: str) -> tuple[list[str], Counter[str], dict[str, Any]]:
    """One session read back with its tools: its typed prompts, how many messages of each
    kind, and the session itself (title, folder, parent)."""
    read = cli.json("read", sid, "--tools")
    messages = [m for t in read["turns"] for m in t["messages"]]
    prompts = [m["text"] for m in messages if m["kind"] == "prompt"]
    return prompts, Counter(m["kind"] for m in messages), read["session"]


def read_in_two_parts(cli: CLI, path: Path, cut_after: Callable[[str], bool]) -> None:
    """Index `path` cut after the first line `cut_after` picks (a call whose result has
    not come yet), append the rest as the agent would, and index again: the second run
    reads on from where the first stopped, not the file anew."""
    lines = path.read_text().splitlines(keepends=True)
    cut = next(i for i, line in enumerate(lines) if cut_after(line))
    path.write_text("".join(lines[: cut + 1]))
    cli.json("index", "--no-embed")
    with path.open("a") as fh:
        fh.writelines(lines[cut + 1 :])
    report = cli.json("index", "--no-embed")
    assert report["files_read"] == 1 and report["read_anew"] == []
