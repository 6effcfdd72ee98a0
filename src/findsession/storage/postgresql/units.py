"""What the server writes with each unit beyond the shared columns (its CJK bigrams as a
`tsvector`), and a session's new units in one statement (findsession.storage.sql.units
holds the rest)."""

from __future__ import annotations

from typing import Any

from findsession import cjk
from findsession.storage.base import UnitRow
from findsession.storage.postgresql.connection import Connection
from findsession.storage.sql import units as shared

#: The highest position a tsvector records; later bigrams share it.
_MAX_POSITION = 16_383
#: Each written column's array type, for `unnest`.
_ARRAYS = {"ordinal": "int[]"}
#: Whether the session's rows are shown to everyone, written with each new unit: marked
#: after the insert (schema step 7's trigger), every row and index entry would be
#: written twice.
_SHARED = (
    "EXISTS (SELECT 1 FROM sessions s WHERE s.audience = '' AND s.id = ?"
    " AND s.owner = current_user)"
)


def cjk_grams(fields: list[str]) -> str:
    """A unit's (title, prompt, reply, tools) CJK bigrams as a tsvector literal, with
    weights A to D and positions (a lexeme without positions ignores weights, and the
    speaker filter is a weight); '' for a unit without CJK text."""
    terms = []
    for weight, text in zip("ABCD", fields, strict=True):
        grams = cjk.index_text(text or "").split()
        terms += [f"'{g}':{min(i, _MAX_POSITION)}{weight}" for i, g in enumerate(grams, 1)]
    return " ".join(terms)


class UnitsMixin(shared.UnitsMixin, Connection):
    """Searchable units."""

    UNIT_EXTRAS = (("cjk_grams", "?::tsvector"),)

    def unit_extra_values(self, unit: UnitRow) -> tuple[Any, ...]:
        return (cjk_grams([unit.title, unit.prompt, unit.reply, unit.tools]),)

    def insert_units(
        self, session_id: str, units: list[tuple[UnitRow, str]]
    ) -> dict[tuple[str, int], int]:
        """A session's new units in one statement over arrays: one round trip per unit
        was most of a large push's time."""
        if not units:
            return {}
        written = (*shared.UNIT_COLUMNS, "cjk_grams")
        rows = [
            (*shared.unit_values(session_id, unit, digest), *self.unit_extra_values(unit))
            for unit, digest in units
        ]
        arrays = ", ".join(f"?::{_ARRAYS.get(c, 'text[]')}" for c in written)
        values = ", ".join(
            f"x{i}::tsvector" if c == "cjk_grams" else f"x{i}" for i, c in enumerate(written)
        )
        names = ", ".join(f"x{i}" for i in range(len(written)))
        made = self.query(
            f"INSERT INTO units ({', '.join(written)}, shared) SELECT {values}, {_SHARED}"
            f" FROM unnest({arrays}) AS x({names}) RETURNING kind, ordinal, id",
            [session_id, *(list(column) for column in zip(*rows, strict=True))],
        )
        return {(r[0], r[1]): r[2] for r in made}
