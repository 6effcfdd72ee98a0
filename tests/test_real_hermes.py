"""Real Hermes Agent stores (`../shared/realfiles/hermes/<owner+repo>/state.db`, with the
`-wal` beside it as it was committed to a public repository by the people who ran it),
through the real CLI, against `hermes_counts`, which reads the rows without findsession.

They hold what the fixtures cannot: months of a Telegram gateway and its scheduled jobs
(schema 17), an older store (schema 6) with three subagents a Telegram chat delegated to
before Hermes marked them, quoted replies and memory reviews, and an API server's
sessions recorded on Windows (schema 20). These tests skip, saying so, where the shared
folder is absent.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import CLI, SHARED
from hermes_counts import counted

from findsession.sources.hermes import file_id

REAL = SHARED / "realfiles" / "hermes"
STORES = sorted(REAL.glob("*/state.db")) if REAL.is_dir() else []
pytestmark = pytest.mark.skipif(
    not STORES, reason=f"no real Hermes stores at {REAL} (only developers have them)"
)
#: Conversations, typed prompts, calls and results, as `hermes_counts` found them.
KNOWN = {
    "kingyx3+hermes": (10, 32, 87, 85),
    "juliuss1907+knowledge-base": (9, 33, 142, 139),
    "Satyabrat99+hermesstore": (7, 14, 0, 0),
}


@pytest.mark.parametrize("store", STORES, ids=[p.parent.name for p in STORES])
def test_each_conversation_holds_what_the_rows_say(cli: CLI, tmp_path: Path, store: Path) -> None:
    copy = tmp_path / store.parent.name
    shutil.copytree(store.parent, copy)  # the shared copy is read-only; SQLite wants a -shm
    report = cli.json("index", "--no-embed", "--source", "hermes", str(copy))
    assert report["errors"] == report["problems"] == []
    db = copy / "state.db"
    expected = counted(db)
    totals = [len(expected), 0, 0, 0]
    for key, c in expected.items():
        turns = cli.json("read", f"{file_id(db)}:{key}", "--tools")["turns"]
        said = [m for t in turns for m in t["messages"]]
        assert [m["text"] for m in said if m["kind"] == "prompt"] == c.prompts, key
        assert len([m for m in said if m["kind"] == "tool_call"]) == len(c.calls), key
        assert len([m for m in said if m["kind"] == "tool_output"]) == len(c.results), key
        totals[1:] = [totals[1] + len(c.prompts), totals[2] + len(c.calls),
                      totals[3] + len(c.results)]  # fmt: skip
    if store.parent.name in KNOWN:
        assert tuple(totals) == KNOWN[store.parent.name]
