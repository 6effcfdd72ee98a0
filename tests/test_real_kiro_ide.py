"""Real Kiro IDE stores: the `globalStorage/kiro.kiroagent/` folders two people committed
with their home folders, read from
`../shared/realfiles/kiro-ide/<owner+repo>/Kiro/User/globalStorage/kiro.kiroagent/` (set
`FINDSESSION_SHARED` to read them elsewhere), through the real CLI, against a count of
their JSON made with no findsession code (`kiro_ide_counts`).

- Ashish-Karmakar-coding/hypr_dots @8b47b85 (Kiro of June 2026, Linux): one chat of
  three prompts in one workspace, with its list and the workspace's list of three runs
  (each aborted). The runs themselves (250 to 290 kB each) are not among the files at
  hand, so no answer is: the session file's placeholders are no answer.
- Yippine/AI-IDE-Profile @3dfcd44 (August 2025, Windows, a workspace over SSH): three
  workspaces' empty lists and empty lists of runs: no chat and no problem.

The tests skip, saying so, where the shared folder is absent.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections import Counter
from pathlib import Path

import pytest
from conftest import CLI, SHARED
from kiro_ide_counts import count_store

REAL = SHARED / "realfiles" / "kiro-ide"
AGENT = Path("Kiro") / "User" / "globalStorage" / "kiro.kiroagent"
STORES = sorted(p for p in REAL.glob(f"*/{AGENT}") if p.is_dir()) if REAL.is_dir() else []
pytestmark = pytest.mark.skipif(
    not STORES, reason=f"no real Kiro IDE stores at {REAL} (only developers have them)"
)
#: What each store holds, as the independent count found it when the files were chosen.
EXPECTED = {
    "Ashish-Karmakar-coding+hypr_dots": Counter(chats=1, prompts=3),
    "Yippine+AI-IDE-Profile": Counter(),
}
_KINDS = {"prompt": "prompts", "reply": "replies", "tool_call": "calls",
          "tool_output": "results", "thinking": "thinking"}  # fmt: skip


@pytest.mark.parametrize("real", STORES, ids=[s.parents[3].name for s in STORES])
def test_each_store_holds_what_an_independent_count_finds(
    cli: CLI, tmp_path: Path, db_path: Path, real: Path
) -> None:
    name = real.parents[3].name
    copy = tmp_path / "home" / ".config" / AGENT
    shutil.copytree(real, copy)
    report = cli.json("index", "--no-embed")
    assert (report["errors"], report["problems"]) == ([], [])
    expected = count_store(copy)
    assert expected == EXPECTED.get(name, expected)
    con = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    try:
        rows = con.execute("SELECT id, cwd, first_ts, title FROM sessions").fetchall()
    finally:
        con.close()
    held: Counter[str] = Counter(chats=len(rows))
    for sid, cwd, started, title in rows:
        assert cwd and started and title
        for turn in cli.json("read", sid, "--tools")["turns"]:
            held.update(_KINDS[m["kind"]] for m in turn["messages"])
    assert +held == +expected
    for path in real.rglob("*"):  # nothing written
        if path.is_file():
            assert path.read_bytes() == (copy / path.relative_to(real)).read_bytes()


def test_the_chat_is_told_by_what_was_typed(cli: CLI, tmp_path: Path) -> None:
    [real] = [s for s in STORES if s.parents[3].name == "Ashish-Karmakar-coding+hypr_dots"]
    shutil.copytree(real, tmp_path / "home" / ".config" / AGENT)
    cli.json("index", "--no-embed")
    query = ("search", "--mode", "keyword", "--source", "kiro-ide", "profileArn required")
    [hit] = cli.json(*query)["results"]
    session = hit["session"]
    [chat] = (real / "workspace-sessions").glob("*/b5f31cfd-*.json")
    folder = json.loads(chat.read_text(encoding="utf-8"))["workspaceDirectory"]
    assert session["title"] == "Clean State" and session["cwd"] == folder
    assert session["started"] == "2026-06-16T17:10:14.439Z"  # the first run's start
    turns = cli.json("read", session["id"])["turns"]
    assert [t["messages"][0]["text"][:25] for t in turns] == [
        "I already have a claude.m",
        "HTTP 400 - POST /v1/messa",
        "HTTP 400 - POST /v1/messa",
    ]
