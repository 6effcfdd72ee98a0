"""Real VS Code Copilot Chat sessions in the `.jsonl` operation-log form
(`../shared/realfiles/vscode-copilot/<owner+repo>/.config/Code/User/`, the
`workspaceStorage/<hash>/chatSessions/*.jsonl` and `globalStorage/emptyWindowChatSessions/`
a person committed with their home folder), through the real CLI, against a counter
written here: it replays each log's operations (`kind` 0 the whole session, 1 a value set
at the path `k`, 2 items pushed onto the array at `k`, cut at `i` first) without our
parser, then counts the requests.

co-z/dotfiles @e1138e0 (May 2026, Copilot Chat 0.45.1): 26 logs, one with two prompts
(one a `/explain` command), their thinking, replies and a `copilot_readFile` call, the
rest sessions opened and left empty; anandmahajani1963/fintrack @7ac4d82 (March 2026):
two empty windows' logs, left empty too; cuong75201/Arch-dotfile @ecb4a39 (March 2026):
31 logs, 7 sessions of agent mode with 30 prompts, 65 tool calls and edits (a file
edited twice in one answer among them), thinking, and replies around inline
references. These tests skip, saying so, where the shared folder is absent.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI, SHARED

REAL = SHARED / "realfiles" / "vscode-copilot"
HOMES = sorted(REAL.glob("*/.config/Code/User")) if REAL.is_dir() else []
pytestmark = pytest.mark.skipif(
    not HOMES, reason=f"no real VS Code Copilot .jsonl logs at {REAL} (only developers have them)"
)
#: Logs, sessions with a request, prompts, and tool calls with edits.
KNOWN = {
    "co-z+dotfiles": (26, 1, 2, 1),
    "anandmahajani1963+fintrack": (2, 0, 0, 0),
    "cuong75201+Arch-dotfile": (31, 7, 30, 65),
}


def replayed(path: Path) -> dict[str, Any]:
    state: Any = None
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        op = json.loads(line)
        keys, value = op.get("k") or [], op.get("v")
        if op["kind"] == 0:
            state = value
            continue
        holder = state
        for key in keys[:-1]:
            holder = holder[key]
        if op["kind"] == 1:
            holder[keys[-1]] = value
        elif op["kind"] == 2:
            if holder.get(keys[-1]) is None:
                holder[keys[-1]] = []
            items = holder[keys[-1]]
            if op.get("i") is not None:
                del items[op["i"] :]
            items.extend(value if isinstance(value, list) else [value])
    return state


def counted(session: dict[str, Any]) -> dict[str, Any]:
    """The typed text of each request; each thinking item's text; each piece of reply
    text; the tool calls and the edits (a `textEditGroup` naming its file)."""
    found: dict[str, Any] = {"prompts": [], "thinking": [], "words": [], "calls": 0}
    for request in session.get("requests") or []:
        parts = request.get("response") or []
        found["prompts"].append(request["message"]["text"].strip())
        for part in parts:
            kind, value = part.get("kind"), part.get("value")
            if kind == "thinking" and isinstance(value, str) and value.strip():
                found["thinking"].append(value.strip())
            elif kind is None and isinstance(value, str) and value.strip():
                found["words"].append(value.strip())
            found["calls"] += kind == "toolInvocationSerialized" or (
                kind == "textEditGroup" and bool(part.get("uri"))
            )
    return found


@pytest.mark.parametrize("home", HOMES, ids=[p.parents[2].name for p in HOMES])
def test_each_log_holds_what_its_operations_say(cli: CLI, home: Path) -> None:
    report = cli.json("index", "--no-embed", "--source", "vscode-copilot", str(home))
    assert report["errors"] == report["problems"] == []
    logs = sorted(home.glob("workspaceStorage/*/chatSessions/*.jsonl"))
    logs += sorted(home.glob("globalStorage/emptyWindowChatSessions/*.jsonl"))
    totals = [len(logs), 0, 0, 0]
    for log in logs:
        session = replayed(log)
        expected = counted(session)
        if not expected["prompts"]:
            continue  # opened and left empty: no session
        read = cli.json("read", session["sessionId"], "--tools")
        said = [m for t in read["turns"] for m in t["messages"]]
        assert [m["text"] for m in said if m["kind"] == "prompt"] == expected["prompts"]
        assert [m["text"] for m in said if m["kind"] == "thinking"] == expected["thinking"]
        replies = "\n".join(m["text"] for m in said if m["kind"] == "reply")
        assert all(words in replies for words in expected["words"])
        assert len([m for m in said if m["kind"] == "tool_call"]) == expected["calls"]
        title = session.get("customTitle") or expected["prompts"][0]  # else the first prompt
        assert read["session"]["title"].rstrip("…") in " ".join(title.split())
        totals[1:] = [totals[1] + 1, totals[2] + len(expected["prompts"]),
                      totals[3] + expected["calls"]]  # fmt: skip
    name = home.parents[2].name
    if name in KNOWN:
        assert tuple(totals) == KNOWN[name]
