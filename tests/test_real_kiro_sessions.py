"""Kiro IDE's later layout (`~/.kiro/sessions/<workspace>/sess_<id>/`) against the closest
to a real session found published, read from
`../shared/realfiles/kiro-sessions/<owner+repo>/.kiro/sessions/` (set `FINDSESSION_SHARED`
to read it elsewhere), through the real CLI, against a count of its JSON made with no
findsession code (`kiro_sessions_counts`).

- superbasedapp/observer @a02d1b8 (`testdata/kirocli/ide/`): that tool's anonymised
  derivation of a real Kiro IDE 1.0.411 session on Windows (September 2026): its ids,
  paths, times and prompt replaced, Kiro's system prompt cut, every key, tool name and
  kind as Kiro wrote them. One prompt of five steps, 11 calls with their results
  (`read_file`, `todo_list`, `fs_write`, `execute_pwsh`, `str_replace`, `delete_file`,
  `list_directory`), approvals, context use and credits.

The tests skip, saying so, where the shared folder is absent.
"""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path

import pytest
from conftest import CLI, SHARED
from kiro_sessions_counts import count_session

REAL = SHARED / "realfiles" / "kiro-sessions"
HOMES = sorted(p.parent for p in REAL.glob("*/.kiro")) if REAL.is_dir() else []
pytestmark = pytest.mark.skipif(
    not HOMES, reason=f"no real Kiro sessions at {REAL} (only developers have them)"
)
#: What each holds, as the independent count found it when the files were chosen.
EXPECTED = {
    "superbasedapp+observer": Counter(prompts=1, replies=7, calls=11, results=11),
}
_KINDS = {"prompt": "prompts", "reply": "replies", "thinking": "thinking",
          "tool_call": "calls", "tool_output": "results"}  # fmt: skip


@pytest.mark.parametrize("home", HOMES, ids=[h.name for h in HOMES])
def test_each_session_holds_what_an_independent_count_finds(
    cli: CLI, tmp_path: Path, home: Path
) -> None:
    shutil.copytree(home / ".kiro", tmp_path / "home" / ".kiro")
    report = cli.json("index", "--no-embed")
    assert (report["errors"], report["problems"]) == ([], [])
    sessions = sorted((tmp_path / "home" / ".kiro" / "sessions").glob("*/sess_*/messages.jsonl"))
    expected = sum((count_session(p) for p in sessions), Counter[str]())
    assert expected == EXPECTED.get(home.name, expected)
    held = Counter[str]()
    for path in sessions:
        for turn in cli.json("read", path.parent.name, "--tools")["turns"]:
            for m in turn["messages"]:
                held["steers" if m["steers"] else _KINDS[m["kind"]]] += 1
                held["failed"] += m["is_error"]
    assert +held == expected
    listed = {s["kind"]: s for s in cli.json("sources")["sources"]}["kiro-ide"]
    assert listed["sessions"] == len(sessions)


def test_the_real_sessions_title_folder_and_tools(cli: CLI, tmp_path: Path) -> None:
    home = REAL / "superbasedapp+observer"
    if not home.is_dir():
        pytest.skip(f"{home} is absent")
    shutil.copytree(home / ".kiro", tmp_path / "home" / ".kiro")
    cli.json("index", "--no-embed")
    [hit] = cli.json("search", "--mode", "keyword", "--source", "kiro-ide",
                     "Hello World Python file")["results"]  # fmt: skip
    session = hit["session"]
    assert session["title"] == "Create and Modify Hello World Python"
    assert session["cwd"] == "c:\\Users\\dev\\workspace\\demo"
    turns = cli.json("read", session["id"], "--tools")["turns"]
    tools = [m["tool"] for t in turns for m in t["messages"] if m["kind"] == "tool_output"]
    assert tools == ["read_file", "todo_list", "fs_write", "execute_pwsh", "todo_list",
                     "execute_pwsh", "str_replace", "todo_list", "delete_file",
                     "list_directory", "todo_list"]  # fmt: skip
    # A Windows path is not blamed on another system: the fixture's test covers blame.
