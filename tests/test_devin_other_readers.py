"""Devin CLI's store as another reader of it tests against: the message nodes in
kenn-io/agentsview's tests of its Devin reader (`internal/parser/devin_test.go` and
`devin_provider_test.go`, their `devinSyntheticMessageNodeRow{...ChatMessage: ...}`
rows), read from where they are, never copied here, through the real CLI, against a
count of their JSON made with no findsession code.

agentsview's rows are its authors' reading of real stores (its docs say it checked the
times against a live CLI's database): OpenAI-style `function` calls, a top-level
`thinking` string, no `metadata`, no parent links and no `main_chain_id` (its schema
has none), and one row broken on purpose (a JSON text cut short). Each test's rows are
one session here.

Set `FINDSESSION_AGENTSVIEW` to a clone of kenn-io/agentsview (a work tree or a bare git
folder); the test skips, saying so, when it is unset or holds no such rows.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections import Counter
from pathlib import Path

import pytest
from conftest import CLI
from devin_store import DevinStore

from findsession.sources.devin import file_id

CLONE = os.environ.get("FINDSESSION_AGENTSVIEW", "")
FILES = ("internal/parser/devin_test.go", "internal/parser/devin_provider_test.go")
_ROW = re.compile(
    r"devinSyntheticMessageNodeRow\{SessionID: \w+, NodeID: (\d+), ChatMessage: `([^`]*)`"
)


def _source(path: str) -> str | None:
    """A file of the clone: from its work tree, else from its git folder's HEAD."""
    tree = Path(CLONE) / path
    if tree.is_file():
        return tree.read_text()
    done = subprocess.run(
        ["git", "--git-dir", CLONE, "show", f"HEAD:{path}"], capture_output=True, text=True
    )
    return done.stdout if done.returncode == 0 else None


def sessions() -> list[list[tuple[int, str]]]:
    """Each test's rows, `(node id, chat_message)`: a run of rows on consecutive lines."""
    found: list[list[tuple[int, str]]] = []
    for path in FILES if CLONE else ():
        text = _source(path) or ""
        last = -2
        for number, line in enumerate(text.splitlines()):
            match = _ROW.search(line)
            if not match:
                continue
            if number != last + 1:
                found.append([])
            found[-1].append((int(match.group(1)), match.group(2)))
            last = number
    return found


SESSIONS = sessions()
pytestmark = pytest.mark.skipif(
    not SESSIONS,
    reason="no agentsview clone with Devin message-node rows (set FINDSESSION_AGENTSVIEW)",
)


def count(rows: list[tuple[int, str]]) -> Counter[str]:
    """What a session's rows hold, from their JSON alone."""
    held: Counter[str] = Counter()
    for _, text in rows:
        try:
            message = json.loads(text)
        except ValueError:
            held["broken"] += 1
            continue
        role = message.get("role")
        held["prompts"] += role == "user"
        held["results"] += role == "tool"
        if role == "assistant":
            held["replies"] += bool(message.get("content"))
            held["thinking"] += bool(message.get("thinking"))
            held["calls"] += len(message.get("tool_calls") or [])
    return +held


_KINDS = {"prompt": "prompts", "reply": "replies", "thinking": "thinking",
          "tool_call": "calls", "tool_output": "results"}  # fmt: skip


def test_each_session_holds_what_an_independent_count_finds(cli: CLI, tmp_path: Path) -> None:
    db = tmp_path / "home" / ".local" / "share" / "devin" / "cli" / "sessions.db"
    store = DevinStore(db)
    for n, rows in enumerate(SESSIONS):
        store.session(f"agentsview-{n}", "/home/dev/agentsview", None)
        for node, text in rows:
            store.node(f"agentsview-{n}", node, None, text)
    store.close()
    report = cli.json("index", "--no-embed")
    assert report["errors"] == []
    broken = sum(count(rows)["broken"] for rows in SESSIONS)
    assert broken >= 1  # the row agentsview cuts short on purpose
    assert len(report["problems"]) == broken
    assert all("malformed JSON" in json.dumps(p) for p in report["problems"])
    for n, rows in enumerate(SESSIONS):
        expected = count(rows) - Counter(broken=broken)
        if not expected:
            continue  # nothing but the broken row: no session to read
        turns = cli.json("read", f"{file_id(db)}:agentsview-{n}", "--tools")["turns"]
        held = Counter(_KINDS[m["kind"]] for t in turns for m in t["messages"])
        assert held == expected, rows
    calls = cli.json("search", "--mode", "keyword", "--source", "devin", "SQLite fallback")
    assert calls["results"], "agentsview's fallback session is found by its prompt"
