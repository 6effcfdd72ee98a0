"""Real Amazon Q Developer CLI stores of other people (`../shared/realfiles/amazon-q/
<owner+repo>/<path in the repository>`), through the real CLI, each against a count of
its raw rows (`test_source_amazon_q.count`), never our reader.

The stores known are thirteen `.local/share/amazon-q/data.sqlite3` committed with a
home folder (AWS CloudShell's among them), every one at migration 5: made before 1.10,
with the `history`, `state` and `auth_kv` tables and no conversations table, so they
hold no conversation; each must be read as Amazon Q's store, without a problem. They
skip, saying so, where the shared folder holds none.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import CLI, SHARED
from read_counts import indexed
from test_source_amazon_q import count

from findsession.sources.base import store_id

REAL = SHARED / "realfiles" / "amazon-q"
STORES = sorted(REAL.glob("*/**/amazon-q/data.sqlite3")) if REAL.is_dir() else []
pytestmark = pytest.mark.skipif(
    not STORES, reason=f"no real Amazon Q stores at {REAL} (only developers have them)"
)


def test_every_store_is_read_as_its_rows_say(cli: CLI, tmp_path: Path) -> None:
    cli.env["XDG_DATA_HOME"] = str(tmp_path / "none")  # only the real stores, named below
    total = 0
    for number, store in enumerate(STORES, 1):
        expected = count(store)
        report = cli.json("index", "--no-embed", "--source", "amazon-q", str(store))
        assert report["errors"] == [] and report["problems"] == [], store
        for cid, counts in expected.items():
            assert indexed(cli, f"{store_id('amazon-q', store)}:{cid}") == counts, (store, cid)
        total += len(expected)
        listed = {s["kind"]: s for s in cli.json("sources")["sources"]}["amazon-q"]
        assert (listed["files"], listed["sessions"]) == (number, total), store
