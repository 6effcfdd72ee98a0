"""Real iFlow CLI sessions (`../shared/realfiles/iflow/<owner+repo>/.../session-<uuid>.jsonl`,
as people's iFlow CLI wrote them and published them), through the real CLI, against a
counter written here over the raw lines, never our reader.

Wuguoshuo/termux-code @470805e holds the `~/.iflow` of a Termux home on Android
(January 2026, iFlow CLI 1.0.0, MiniMax M2.1, which thinks in the open): slash commands
alone, a `/docs` answered by the CLI itself, an `@path` prompt, calls re-sent while
their reply streamed, a call whose result was never written, and replies that open
with `<think>`. kenn-io/agentsview @5386007 keeps one real session in its test data (16
lines: a `replace` edit, calls re-sent). These tests skip, saying so, where the shared
folder is absent.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI, SHARED

REAL = SHARED / "realfiles" / "iflow"
HOMES = sorted(p for p in REAL.iterdir() if p.is_dir()) if REAL.is_dir() else []
pytestmark = pytest.mark.skipif(
    not HOMES, reason=f"no real iFlow CLI sessions at {REAL} (only developers have them)"
)
#: Per session counted by hand before this test: prompts, replies, thinking, calls, results.
KNOWN = {
    "session-0170b773-6d91-4d64-a3de-1c7a9e7d800b": (1, 0, 0, 0, 0),
    "session-1b91c27c-9ffa-4e63-a1e1-b5dd31c90914": (1, 1, 4, 3, 1),
    "session-422d2516-ec77-4614-81c8-e5b2eb0ae361": (2, 0, 0, 0, 0),
    "session-4de63dc8-9028-4325-897c-b77ec55661e9": (1, 0, 0, 0, 0),
    "session-5de701fc-7454-4858-a249-95cac4fd3b51": (1, 3, 0, 6, 6),
}
_THINK = re.compile(r"^\s*<think>(.*?)</think>", re.DOTALL)


def counted(path: Path) -> dict[str, Any]:
    """One session: the text a user line holds (not a tool's result, not the CLI's own),
    each text block of the assistant's lines (not the CLI's own answer to a slash
    command) split at a leading `<think>` block into thinking and reply, each call id
    once, each result block."""
    prompts: list[str] = []
    replies = thinking = results = 0
    calls: set[str] = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        obj = json.loads(line)
        content = (obj.get("message") or {}).get("content")
        blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
        texts = [b.get("text") or "" for b in blocks if b.get("type") == "text"]
        if obj.get("type") == "user" and not obj.get("isMeta"):
            results += sum(b.get("type") == "tool_result" for b in blocks)
            typed = "\n".join(texts).strip()
            prompts += [typed] if typed else []
        elif obj.get("type") == "assistant" and obj["message"].get("model") != "slash-command":
            calls |= {b["id"] for b in blocks if b.get("type") == "tool_use"}
            for text in texts:
                think = _THINK.match(text)
                thinking += bool(think and think.group(1).strip())
                replies += bool(text[think.end() :].strip() if think else text.strip())
    return {"prompts": prompts, "counts": (replies, thinking, len(calls), results)}


@pytest.mark.parametrize("home", HOMES, ids=[p.name for p in HOMES])
def test_each_session_holds_what_its_lines_say(cli: CLI, home: Path) -> None:
    report = cli.json("index", "--no-embed", "--source", "iflow", str(home))
    assert report["errors"] == report["problems"] == []
    sessions = sorted(home.rglob("session-*.jsonl"))
    assert sessions and report["files_seen"] == len(sessions)
    for path in sessions:
        expected = counted(path)
        read = cli.json("read", path.stem, "--tools")
        said = [m for t in read["turns"] for m in t["messages"]]
        kinds = Counter(m["kind"] for m in said)
        assert [m["text"] for m in said if m["kind"] == "prompt"] == expected["prompts"]
        got = (kinds["reply"], kinds["thinking"], kinds["tool_call"], kinds["tool_output"])
        assert got == expected["counts"], path.name
        title = read["session"]["title"]  # the first prompt, its spaces made one
        assert title and " ".join(expected["prompts"][0].split()).startswith(title[:40])
        if path.stem in KNOWN:
            assert (len(expected["prompts"]), *got) == KNOWN[path.stem]
