"""Real Amp threads of other people (`../shared/realfiles/amp/<owner+repo>/.../threads/T-*.json`,
as their Amp wrote them and they published them), through the real CLI, against a counter
written here over the raw JSON, never our reader.

hackclub/club-dashboard @bd17989 committed a Linux home's `~/.local/share/amp` (October
2025, the CLI) with three threads of versions 27, 112 and 194: thinking before each reply,
a call whose result was still `in-progress` when the thread was written, titles Amp gave.
These tests skip, saying so, where the shared folder is absent.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI, SHARED
from read_counts import kinds_read

REAL = SHARED / "realfiles" / "amp"
HOMES = sorted(p for p in REAL.iterdir() if p.is_dir()) if REAL.is_dir() else []
pytestmark = pytest.mark.skipif(
    not HOMES, reason=f"no real Amp threads at {REAL} (only developers have them)"
)
#: Per thread, counted by hand before this test: prompts, replies, thinking, calls, results.
KNOWN = {
    "T-16c2227a-e98f-4969-998b-aaa50a930b05": (3, 3, 3, 2, 2),
    "T-1d0ef56c-0ecd-4bf7-af7b-5bc196dc8a6a": (1, 1, 1, 3, 3),
    "T-6b45efa0-1bae-4277-9991-293950d0ab14": (1, 1, 1, 0, 0),
}


def counted(path: Path) -> dict[str, Any]:
    """One thread: each user `text` part a prompt; each assistant `text` part a reply,
    each `thinking` and `tool_use` part; each `tool_result` part a result."""
    thread = json.loads(path.read_text(encoding="utf-8"))
    prompts: list[str] = []
    kinds: Counter[str] = Counter()
    for message in thread["messages"]:
        for part in message.get("content") or []:
            kind = part.get("type")
            if kind == "text" and part["text"].strip():
                if message["role"] == "user":
                    prompts.append(part["text"].strip())
                else:
                    kinds["reply"] += 1
            elif kind in ("thinking", "tool_use", "tool_result"):
                kinds[kind] += 1
    counts = (kinds["reply"], kinds["thinking"], kinds["tool_use"], kinds["tool_result"])
    return {"prompts": prompts, "counts": counts, "title": thread.get("title")}


@pytest.mark.parametrize("home", HOMES, ids=[p.name for p in HOMES])
def test_each_thread_holds_what_its_json_says(cli: CLI, home: Path) -> None:
    report = cli.json("index", "--no-embed", "--source", "amp", str(home))
    assert report["errors"] == report["problems"] == []
    threads = sorted(home.rglob("T-*.json"))
    assert threads and report["files_seen"] == len(threads)
    for path in threads:
        expected = counted(path)
        prompts, kinds, session = kinds_read(cli, path.stem)
        assert prompts == expected["prompts"]
        got = (kinds["reply"], kinds["thinking"], kinds["tool_call"], kinds["tool_output"])
        assert got == expected["counts"], path.name
        assert session["title"] == expected["title"]
        if path.stem in KNOWN:
            assert (len(expected["prompts"]), *got) == KNOWN[path.stem]
