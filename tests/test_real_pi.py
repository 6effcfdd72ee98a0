"""Real Pi sessions (`../shared/realfiles/pi/<owner+repo>/.pi/agent/sessions/`, the
`~/.pi/agent` people committed with their dotfiles or a home's other files), through
the real CLI, against a counter written here over the raw lines, never our reader.

Six people, version 3 files of May to July 2026: frinfo702/dotfiles @1065173 (macOS,
37 files: five children the pi-subagents extension ran, each in a folder named as its
parent's file, one of them run "from a fork of the parent session" with its first
exchange copied, which stays the parent's; and seven sessions holding only the
extension's own slash-command output;
one more session, of 4 MB or more, was not at hand; the extension's artifacts beside them,
which are not read, as they were @e466700),
EddieisxD/dotfiles @a6cbdc6 (Linux), elithrar/dotfiles @d51f4bb (macOS),
wichayutdew/dotfiles-arch @c854781 (Linux), and two Termux homes on Android,
alhajjemohammad44-stack/93-coffee-shop @c7dc7e4 and timerloggedout-spec/termux-monorepo
@fe24067. A file with nothing typed in it gives no session. What `write` and `edit`
wrote is found by `blame` (17 of the edits, a list of `edits`, were found only since).
These tests skip, saying so, where the shared folder is absent.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI, SHARED

REAL = SHARED / "realfiles" / "pi"
HOMES = sorted(REAL.glob("*/.pi/agent/sessions")) if REAL.is_dir() else []
pytestmark = pytest.mark.skipif(
    not HOMES, reason=f"no real Pi sessions at {REAL} (only developers have them)"
)
#: Files, sessions, prompts, replies, thinking, calls, results and failed results.
KNOWN = {
    "EddieisxD+dotfiles": (12, 12, 25, 24, 37, 35, 35, 7),
    "alhajjemohammad44-stack+93-coffee-shop": (5, 5, 28, 79, 140, 261, 259, 15),
    "elithrar+dotfiles": (3, 3, 4, 2, 8, 43, 43, 2),
    "frinfo702+dotfiles": (37, 30, 46, 84, 256, 342, 341, 19),
    "timerloggedout-spec+termux-monorepo": (3, 3, 4, 8, 12, 26, 26, 3),
    "wichayutdew+dotfiles-arch": (2, 2, 2, 2, 2, 0, 0, 0),
}


def copied(entry: dict[str, Any], seen: set[tuple[str, str]]) -> bool:
    """Whether a message entry is a copy of one an earlier file wrote (a child run
    "from a fork of the parent session", a `/fork`): the same id at the same time."""
    key = (entry.get("id"), entry.get("timestamp"))
    if key in seen:
        return True
    seen.add(key)
    return False


def counted(path: Path, seen: set[tuple[str, str]]) -> dict[str, Any]:
    """One file: its header, the text of each user message, each assistant text and
    thinking block that says something, each call id once, each result; a message an
    earlier file (in path order: a parent before its children) wrote is not its."""
    out: dict[str, Any] = {"prompts": [], "counts": [0, 0, 0, 0, 0], "name": None}
    calls: set[str] = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        if entry["type"] == "session":
            out["id"], out["cwd"] = entry["id"], entry["cwd"]
        elif entry["type"] == "session_info":
            out["name"] = entry.get("name")
        message = entry.get("message") if entry["type"] == "message" else None
        if not message or copied(entry, seen):
            continue
        content = message.get("content")
        blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
        if message["role"] == "user":
            typed = "\n".join(b["text"] for b in blocks if b["type"] == "text").strip()
            out["prompts"] += [typed] if typed else []
        elif message["role"] == "assistant":
            out["counts"][0] += sum(b["type"] == "text" and bool(b["text"].strip()) for b in blocks)
            out["counts"][1] += sum(
                b["type"] == "thinking" and bool(b["thinking"].strip()) for b in blocks
            )
            calls |= {b["id"] for b in blocks if b["type"] == "toolCall"}
        elif message["role"] == "toolResult":
            out["counts"][3] += 1
            out["counts"][4] += message.get("isError") is True
    out["counts"][2] = len(calls)
    return out


def written(files: list[Path]) -> Counter[str]:
    """Each file Pi's `write` and `edit` wrote, and how many times: every call but one
    Pi answered with an error (a call whose result was never written may have written)."""
    out: Counter[str] = Counter()
    seen: set[tuple[str, str]] = set()
    for path in files:
        calls: dict[str, str] = {}
        entries = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        cwd = entries[0]["cwd"]
        for entry in entries:
            message = entry.get("message") or {}
            if message and copied(entry, seen):
                continue
            for block in message.get("content") or [] if message.get("role") == "assistant" else []:
                if block.get("type") == "toolCall" and block["name"] in ("write", "edit"):
                    args = block["arguments"]
                    target = args.get("path") or args.get("file")  # an older model's name
                    calls[block["id"]] = target if target.startswith("/") else f"{cwd}/{target}"
            if message.get("role") == "toolResult" and message["toolCallId"] in calls:
                target = calls.pop(message["toolCallId"])
                out[target] += message.get("isError") is not True
        out.update(calls.values())
    return out


@pytest.mark.parametrize("home", HOMES, ids=[p.parents[2].name for p in HOMES])
def test_each_session_holds_what_its_lines_say(cli: CLI, home: Path) -> None:
    report = cli.json("index", "--no-embed", "--source", "pi", str(home))
    assert report["errors"] == report["problems"] == []
    files = sorted(home.rglob("*.jsonl"))
    assert report["files_seen"] == len(files)
    totals = [len(files), 0, 0, 0, 0, 0, 0, 0]
    children = 0
    seen: set[tuple[str, str]] = set()
    for path in files:
        expected = counted(path, seen)
        if not expected["prompts"]:  # only Pi's header and an extension's own output
            assert cli.run("read", expected["id"], check=False).returncode != 0
            continue
        read = cli.json("read", expected["id"], "--tools")
        said = [m for t in read["turns"] for m in t["messages"]]
        outputs = [m for m in said if m["kind"] == "tool_output"]
        kinds = [m["kind"] for m in said]
        assert [m["text"] for m in said if m["kind"] == "prompt"] == expected["prompts"]
        got = [kinds.count("reply"), kinds.count("thinking"), kinds.count("tool_call"),
               len(outputs), sum(m["is_error"] for m in outputs)]  # fmt: skip
        assert got == expected["counts"], path.name
        session = read["session"]
        assert session["cwd"] == expected["cwd"]
        title = expected["name"] or " ".join(expected["prompts"][0].split())
        assert title.startswith(session["title"].rstrip("…")), path.name
        # A pi-subagents child: below a folder named as its parent's file.
        parents = [p.with_name(f"{p.name}.jsonl") for p in path.relative_to(home).parents[:-1]]
        parent = next((home / p for p in parents if (home / p).is_file()), None)
        assert session["subagent"] is (parent is not None), path.name
        if parent is not None:
            assert session["parent_id"] == json.loads(parent.open().readline())["id"]
            children += 1
        totals[1] += 1
        for i, n in enumerate((len(expected["prompts"]), *expected["counts"]), 2):
            totals[i] += n
    for path, writes in written(files).items():
        assert cli.json("blame", path)["total"] == writes, path
    name = home.parents[2].name
    if name in KNOWN:
        assert tuple(totals) == KNOWN[name]
        assert children == (5 if name == "frinfo702+dotfiles" else 0)
