"""Real stores of the first OpenCode (`../shared/realfiles/**/.opencode/opencode.db`,
committed to public repositories by the people who ran it), indexed as they lie in
their projects, against counts a few lines of SQL and JSON below make from each store.

A clone of findsession does not have them: the tests skip. Each store is copied with
its `-wal` beside it (the commits that wait there are part of it) into a folder of
projects, which is named for the OpenCode source, as a person would name theirs.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections import Counter
from pathlib import Path

import pytest
from conftest import SHARED

from findsession.indexing import Root, index_roots
from findsession.storage.sqlite import Store

STORES = sorted((SHARED / "realfiles").glob("**/.opencode/opencode.db"))
pytestmark = pytest.mark.skipif(
    not STORES, reason=f"no first-OpenCode store under {SHARED / 'realfiles'} (developers only)"
)


def copy(db: Path, project: Path) -> Path:
    """`db` and its companions as `<project>/.opencode/opencode.db`."""
    folder = project / ".opencode"
    folder.mkdir(parents=True)
    for suffix in ("", "-wal", "-shm"):
        if Path(f"{db}{suffix}").is_file():
            shutil.copyfile(f"{db}{suffix}", folder / f"opencode.db{suffix}")
    return folder / "opencode.db"


def count(db: Path) -> Counter[str]:
    """Sessions and subagents (title makers aside), typed prompts (a `user` row's text
    parts), replies (an `assistant` row's text parts, but the summary the session names)
    and tool calls (`tool_call` parts)."""
    counts: Counter[str] = Counter()
    conn = sqlite3.connect(db)
    try:
        summaries = set()
        for sid, parent, summary in conn.execute(
            "SELECT id, parent_session_id, summary_message_id FROM sessions"
        ):
            if not sid.startswith("title-"):
                counts["session"] += 1
                counts["subagent"] += bool(parent)
                summaries.add(summary)
        for mid, sid, role, parts in conn.execute(
            "SELECT id, session_id, role, parts FROM messages"
        ):
            if sid.startswith("title-"):
                continue
            for part in json.loads(parts):
                data = part.get("data") or {}
                if part.get("type") == "text" and str(data.get("text", "")).strip():
                    if role == "user":
                        counts["prompt"] += 1
                    elif role == "assistant" and mid not in summaries:
                        counts["reply"] += 1
                counts["tool_call"] += part.get("type") == "tool_call"
    finally:
        conn.close()
    return counts


@pytest.mark.parametrize("db", STORES, ids=[p.parent.parent.name for p in STORES])
def test_a_real_store_gives_its_sessions_prompts_replies_and_calls(
    db: Path, tmp_path: Path
) -> None:
    projects = tmp_path / "code"
    indexed = copy(db, projects / "app")
    expected = count(copy(db, tmp_path / "counted"))
    with Store.open(tmp_path / "index.db") as store:
        report = index_roots(store, [Root(projects, "opencode")])
        assert report.errors == [] and report.files_read == 1
        [(sessions, subagents, cwd)] = store.query(
            "SELECT count(*), sum(is_subagent), max(cwd) FROM sessions WHERE file_path = ?",
            (str(indexed),),
        )
        kinds = store.query(
            "SELECT kind, count(*) FROM messages WHERE file_path = ?"
            " AND kind IN ('prompt', 'reply', 'tool_call') GROUP BY kind",
            (str(indexed),),
        )
        found = Counter(dict(kinds)) + Counter(session=sessions, subagent=subagents)
        assert found == +expected
        assert cwd == str(projects / "app")
        sources = {s for (s,) in store.query("SELECT DISTINCT source FROM sessions")}
        assert sources == {"opencode"}
