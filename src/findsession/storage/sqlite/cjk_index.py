"""The CJK bigram keyword index's rows, written beside each unit's (see findsession.cjk):
FTS5's `unicode61` treats a run of Han characters as one token, so the bigrams are a
contentless table of their own, kept with the units by the shared statements' hooks."""

from __future__ import annotations

from typing import Any

import apsw

from findsession import cjk
from findsession.storage.base import UnitRow


def write_cjk(db: apsw.Connection, unit_id: int, fields: list[str]) -> None:
    """Index the CJK bigrams of a unit's (title, prompt, reply, tools), if it has any."""
    db.execute("DELETE FROM cjk_fts WHERE rowid = ?", (unit_id,))
    grams = [cjk.index_text(f or "") for f in fields]
    if any(grams):
        db.execute(
            "INSERT INTO cjk_fts(rowid, title, prompt, reply, tools) VALUES (?,?,?,?,?)",
            (unit_id, *grams),
        )


class CjkIndexMixin:
    """A unit's bigrams written with it and deleted before it (the store's hooks of
    findsession.storage.sql.dialect; no base class: the schema's first steps import
    `write_cjk` before the connection exists)."""

    db: apsw.Connection
    execute: Any

    def unit_written(self, unit_id: int, unit: UnitRow) -> None:
        write_cjk(self.db, unit_id, [unit.title, unit.prompt, unit.reply, unit.tools])

    def units_leaving(self, where: str, params: Any) -> None:
        self.execute(
            f"DELETE FROM cjk_fts WHERE rowid IN (SELECT id FROM units WHERE {where})", params
        )
