"""Real Antigravity conversations (`../shared/realfiles/antigravity/<owner+repo>/.gemini/
<app>/brain/<id>/.system_generated/logs/`, as people's Antigravity wrote them and
committed them to public repositories), through the real CLI, against a counter written
here over the raw steps, never our reader.

shibinsp45/Vibe-Coding @75c7219 holds one Windows home of June 2026 with all three apps:
5 conversations of the editor (`transcript.jsonl` and `transcript_full.jsonl`), 7 of a
later build (`antigravity-ide`, compact transcripts only) and 2 of the CLI: typed
prompts (one holding a Google API key), replies, thinking, calls and their outputs,
background commands, a person's own file view, and an error step with no `content`.
raaamooo/amber @fa30a83 holds 4 conversations of a Linux home of April 2026, a build
that wrote `overview.txt` instead of a transcript (prompts and replies, no outputs;
long prompts cut short with their closing tag). sai7teja/Health-connect @269b29a (June
2026) holds one conversation of the CLI with both transcripts; hoafd/pdfeditfd @183150e
(June 2026) one of the editor, one of `antigravity-ide` and one `overview.txt` of
`antigravity-ide` (its copy in the person's own `antigravity-backup` folder is not
laid out here). These tests skip, saying so, where the shared folder is absent.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI, SHARED

REAL = SHARED / "realfiles" / "antigravity"
HOMES = sorted(REAL.glob("*/.gemini")) if REAL.is_dir() else []
pytestmark = pytest.mark.skipif(
    not HOMES, reason=f"no real Antigravity transcripts at {REAL} (only developers have them)"
)
#: Conversations, typed prompts, replies, thinking, calls and their outputs.
KNOWN = {
    "shibinsp45+Vibe-Coding": (14, 80, 330, 98, 552, 613),
    "raaamooo+amber": (4, 55, 88, 0, 255, 0),
    "sai7teja+Health-connect": (1, 8, 9, 24, 69, 70),
    "hoafd+pdfeditfd": (3, 12, 101, 16, 165, 164),
}
#: The steps that tell the model about other conversations or the system: no output.
_CONTEXT = {"CONVERSATION_HISTORY", "KNOWLEDGE_ARTIFACTS", "SYSTEM_MESSAGE", "CHECKPOINT",
            "EPHEMERAL_MESSAGE"}  # fmt: skip
_LOGS = ("transcript_full.jsonl", "transcript.jsonl", "overview.txt")


def counted(path: Path) -> dict[str, Any]:
    """One conversation's log: what was typed (inside `<USER_REQUEST>`, or after it to the
    end where a long prompt was cut short), the model's replies, thinking and calls, and
    each step after a call that answers one still waiting (the person's own acts and
    steps with no call waiting answer none), and each result of a command that had gone
    on in the background, which the system reports later."""
    prompts: list[str] = []
    replies = thinking = calls = outputs = waiting = 0
    running: set[str] = set()  # commands that went on in the background, by task id
    for line in path.read_text(encoding="utf-8").splitlines():
        step = json.loads(line)
        kind = step.get("type")
        text = step.get("content") or ""
        running |= set(re.findall(r"background task with task id: (\S+)", text))
        if kind == "SYSTEM_MESSAGE":  # a background command's result answers its call
            done = re.findall(r'Task id "([^"]+)" finished with result:', text)
            outputs += sum(task in running for task in done)
            running -= set(done)
        if kind == "USER_INPUT":
            text = step.get("content", "")
            if "<USER_REQUEST>" in text:
                text = text.split("<USER_REQUEST>", 1)[1].split("</USER_REQUEST>", 1)[0]
            if text.strip():
                prompts.append(text.strip())
        elif kind == "PLANNER_RESPONSE":
            replies += bool((step.get("content") or "").strip())
            thinking += bool((step.get("thinking") or "").strip())
            calls += len(step.get("tool_calls") or [])
            waiting += len(step.get("tool_calls") or [])
        elif kind not in _CONTEXT and step.get("source") != "USER_EXPLICIT" and waiting:
            waiting -= 1
            outputs += 1
    return {"prompts": prompts, "counts": (replies, thinking, calls, outputs)}


@pytest.mark.parametrize("home", HOMES, ids=[p.parent.name for p in HOMES])
def test_each_conversation_holds_what_its_steps_say(cli: CLI, home: Path) -> None:
    report = cli.json("index", "--no-embed", "--source", "antigravity", str(home))
    assert report["errors"] == report["problems"] == []
    totals = Counter[str]()
    for logs in sorted(home.glob("*/brain/*/.system_generated/logs")):
        path = next(logs / name for name in _LOGS if (logs / name).exists())
        expected = counted(path)
        read = cli.json("read", logs.parent.parent.name, "--tools")
        assert read["session"]["path"] == str(path)
        said = [m for t in read["turns"] for m in t["messages"]]
        kinds = Counter(m["kind"] for m in said)
        typed = [m["text"] for m in said if m["kind"] == "prompt"]
        assert len(typed) == len(expected["prompts"])
        for ours, theirs in zip(typed, expected["prompts"], strict=True):
            if re.search(r"AIza[0-9A-Za-z_-]{35}", theirs):
                assert "[REDACTED" in ours and "AIza" not in ours  # a Google API key typed
            else:
                assert ours == theirs
        got = (kinds["reply"], kinds["thinking"], kinds["tool_call"], kinds["tool_output"])
        assert got == expected["counts"], path
        totals.update(conversations=1, prompts=len(typed))
        totals.update(dict(zip(("replies", "thinking", "calls", "outputs"), got, strict=True)))
    name = home.parent.name
    if name in KNOWN:
        keys = ("conversations", "prompts", "replies", "thinking", "calls", "outputs")
        assert tuple(totals[k] for k in keys) == KNOWN[name]
