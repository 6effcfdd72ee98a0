"""The CJK bigram keyword index's rows, written beside each unit's (see findsession.cjk)."""

from __future__ import annotations

import apsw

from findsession import cjk


def write_cjk(db: apsw.Connection, unit_id: int, fields: list[str]) -> None:
    """Index the CJK bigrams of a unit's (title, prompt, reply, tools), if it has any."""
    db.execute("DELETE FROM cjk_fts WHERE rowid = ?", (unit_id,))
    grams = [cjk.index_text(f or "") for f in fields]
    if any(grams):
        db.execute(
            "INSERT INTO cjk_fts(rowid, title, prompt, reply, tools) VALUES (?,?,?,?,?)",
            (unit_id, *grams),
        )
