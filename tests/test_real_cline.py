"""Real Cline tasks (`../shared/realfiles/cline/`, committed to public repositories by the
people who ran them) against a counter written here, over the raw JSON, never our parser.

Cline records a tool it ran without asking as `say: tool` / `say: command` (an asked one
as `ask: tool` / `ask: command`: one or the other, never both), a command's output as
`ask: command_output` chunks, and an answer in plan mode as `ask: plan_mode_respond`.
These tests skip, saying so, where the shared folder is absent.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import SHARED

from findsession.indexing import IndexReport, Root, index_roots
from findsession.storage.sqlite import Store

REAL = SHARED / "realfiles" / "cline"
TASKS = sorted(REAL.glob("*/ui_messages.json")) if REAL.is_dir() else []
pytestmark = pytest.mark.skipif(
    not TASKS, reason=f"no real Cline tasks at {REAL} (only developers have them)"
)


def counted(path: Path) -> dict[str, int]:
    """What a person saw in the task, by kind: the task and each message typed later, the
    agent's words and questions, and each tool or command it ran (asked or not)."""
    items = [i for i in json.loads(path.read_text(encoding="utf-8")) if isinstance(i, dict)]

    def said(i: dict[str, Any]) -> str:
        return i.get(i.get("type"), "") if i.get("partial") is not True else ""

    def text(i: dict[str, Any]) -> str:
        return (i.get("text") or "").strip()

    prompts = [i for n, i in enumerate(items) if text(i) and (
        said(i) == "user_feedback" or (n == 0 and said(i) in ("task", "text")))]  # fmt: skip
    replies = [i for n, i in enumerate(items[1:], 1) if text(i) and (
        (i["type"] == "say" and said(i) in ("text", "completion_result"))
        or (i["type"] == "ask" and said(i) in ("followup", "plan_mode_respond")))]  # fmt: skip
    tools = [i for i in items if text(i) and said(i) in ("tool", "command", "use_mcp_server")
             and '"summarizeTask"' not in text(i)]  # fmt: skip
    outputs = [i for i in items if text(i) and said(i) in ("command_output", "mcp_server_response")]
    files = {json.loads(text(i)).get("path") for i in tools if said(i) == "tool"} - {None}
    return {"prompts": len(prompts), "replies": len(replies), "tool calls": len(tools),
            "tool outputs": len(outputs), "files": len(files)}  # fmt: skip


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Store, IndexReport]:
    store = Store.open(tmp_path_factory.mktemp("real-cline") / "index.db")
    report = index_roots(store, [Root(REAL, "cline")])
    yield store, report
    store.close()


def ours(store: Store, path: Path) -> dict[str, int]:
    kinds = dict(
        store.query(
            "SELECT kind, count(*) FROM messages WHERE file_path = ? GROUP BY kind", (str(path),)
        )
    )
    files = {
        f
        for (listed,) in store.query(
            "SELECT files FROM messages WHERE file_path = ? AND files IS NOT NULL", (str(path),)
        )
        for f in json.loads(listed)
    }
    return {"prompts": kinds.get("prompt", 0), "replies": kinds.get("reply", 0),
            "tool calls": kinds.get("tool_call", 0), "tool outputs": kinds.get("tool_output", 0),
            "files": len(files)}  # fmt: skip


@pytest.mark.parametrize("path", TASKS, ids=lambda p: p.parent.name)
def test_each_task_holds_what_its_file_shows(
    indexed: tuple[Store, IndexReport], path: Path
) -> None:
    store, report = indexed
    assert report.errors == []
    expected = counted(path)
    assert expected["tool calls"] > 0  # these tasks ran tools without asking
    assert ours(store, path) == expected
    [(sessions, turns)] = store.query(
        "SELECT count(*), sum(n_turns) FROM sessions WHERE file_path = ?", (str(path),)
    )
    assert (sessions, turns) == (1, expected["prompts"])


def test_no_kind_a_real_task_holds_is_reported_as_unknown(
    indexed: tuple[Store, IndexReport],
) -> None:
    _, report = indexed
    assert [(path, p.detail) for path, p in report.problems] == []
