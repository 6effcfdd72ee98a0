"""An index written by an earlier findsession upgrades on open and searches the same."""

from __future__ import annotations

import math
from pathlib import Path

import psycopg
import pytest

from findsession.storage.base import UnitRow
from findsession.storage.postgresql import open_index
from findsession.storage.postgresql.migrations import SCHEMA, SCHEMA_VERSION
from findsession.storage.postgresql.schema import v1_base


def test_an_index_of_step_one_counts_its_units_after_the_upgrade(
    pg_url: str, tmp_path: Path
) -> None:
    """The unit count the keyword ranking divides by starts from the units already there."""
    with psycopg.connect(pg_url, autocommit=True) as db:
        db.execute(f"DROP SCHEMA IF EXISTS {SCHEMA} CASCADE")
        db.execute("CREATE EXTENSION IF NOT EXISTS vector")
        db.execute(f"CREATE SCHEMA {SCHEMA}")
        db.execute(f"SET search_path = {SCHEMA}, public")
        v1_base(db)
        db.execute("INSERT INTO settings (key, value) VALUES ('schema_version', '1')")
        for ordinal, text in enumerate(["alpha one", "beta two", "gamma three"], 1):
            db.execute(
                "INSERT INTO units (session_id, kind, ordinal, source, prompt, hash)"
                " VALUES ('s', 'turn', %s, 'claude-code', %s, %s)",
                (ordinal, text, f"h{ordinal}"),
            )
    store, _ = open_index(pg_url, local=tmp_path / "index.db")
    try:
        assert store.schema_version() == SCHEMA_VERSION
        assert store.word_rarity(["alpha"])["alpha"] == pytest.approx(math.log(4 / 2))
        with store.transaction():
            store.sync_units(
                "t", [UnitRow("turn", 1, "claude-code", None, "", "delta", "", "", [], [])]
            )
        assert store.word_rarity(["alpha"])["alpha"] == pytest.approx(math.log(5 / 2))
    finally:
        store.close()
