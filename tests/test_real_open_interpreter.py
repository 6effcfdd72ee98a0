"""Real Open Interpreter conversations (`../shared/realfiles/open-interpreter/<owner+repo>/
.config/open-interpreter/conversations/*.json`, as a person's Open Interpreter wrote them
and committed them to a public repository), through the real CLI, against a counter
written here over the raw JSON, never our parser.

kaeruhub/open-interpreter-docker @02f0956 (April 2024, Open Interpreter run in Docker,
Japanese prompts): two conversations, 3 prompts, 7 replies, 4 code blocks run and their
4 outputs. Their file names hold no words (the prompt's words were all non-ASCII, so
the name is `__<date>`): the title is the first prompt. These tests skip, saying so,
where the shared folder is absent.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import CLI, SHARED

REAL = SHARED / "realfiles" / "open-interpreter"
FOLDERS = sorted(REAL.glob("*/.config/open-interpreter/conversations")) if REAL.is_dir() else []
pytestmark = pytest.mark.skipif(
    not FOLDERS,
    reason=f"no real Open Interpreter conversations at {REAL} (only developers have them)",
)
#: Conversations, prompts, replies, code blocks and outputs.
KNOWN = {"kaeruhub+open-interpreter-docker": (2, 3, 7, 4, 4)}


@pytest.mark.parametrize("folder", FOLDERS, ids=[p.parents[2].name for p in FOLDERS])
def test_each_conversation_holds_what_its_messages_say(cli: CLI, folder: Path) -> None:
    report = cli.json("index", "--no-embed", "--source", "open-interpreter", str(folder))
    assert report["errors"] == report["problems"] == []
    files = sorted(folder.glob("*.json"))
    totals = [len(files), 0, 0, 0, 0]
    for path in files:
        messages = json.loads(path.read_text(encoding="utf-8"))
        prompts = [m["content"].strip() for m in messages
                   if (m["role"], m["type"]) == ("user", "message")]  # fmt: skip
        replies = sum((m["role"], m["type"]) == ("assistant", "message") for m in messages)
        code = sum((m["role"], m["type"]) == ("assistant", "code") for m in messages)
        outputs = sum(m["role"] == "computer" and bool(str(m.get("content", "")).strip())
                      for m in messages)  # fmt: skip
        read = cli.json("read", path.stem, "--tools")
        said = [m for t in read["turns"] for m in t["messages"]]
        kinds = [m["kind"] for m in said]
        assert [m["text"] for m in said if m["kind"] == "prompt"] == prompts
        assert kinds.count("reply") == replies
        assert kinds.count("tool_call") == code and kinds.count("tool_output") == outputs
        assert read["session"]["title"].rstrip("…") in prompts[0]
        for i, n in enumerate((len(prompts), replies, code, outputs), 1):
            totals[i] += n
    name = folder.parents[2].name
    if name in KNOWN:
        assert tuple(totals) == KNOWN[name]
