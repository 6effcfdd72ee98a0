"""Searchable units: upserts by content hash, and what awaits embedding."""

from __future__ import annotations

import json
from typing import Any

from findsession import cjk
from findsession.storage.base import Filters, UnitRow
from findsession.storage.postgresql.filters import unit_filter_sql
from findsession.storage.postgresql.sessions import SessionsMixin

#: The highest position a tsvector records; later bigrams share it.
_MAX_POSITION = 16_383


def cjk_grams(fields: list[str]) -> str:
    """A unit's (title, prompt, reply, tools) CJK bigrams as a tsvector literal, with
    weights A to D and positions (a lexeme without positions ignores weights, and the
    speaker filter is a weight); '' for a unit without CJK text."""
    terms = []
    for weight, text in zip("ABCD", fields, strict=True):
        grams = cjk.index_text(text or "").split()
        terms += [f"'{g}':{min(i, _MAX_POSITION)}{weight}" for i, g in enumerate(grams, 1)]
    return " ".join(terms)


def _unit_values(unit: UnitRow, digest: str) -> tuple[Any, ...]:
    """A unit's columns as `units` stores them, from its kind to its CJK bigrams."""
    return (
        unit.kind,
        unit.ordinal,
        unit.source,
        unit.ts,
        unit.title,
        unit.prompt,
        unit.reply,
        unit.tools,
        json.dumps(unit.tool_names),
        json.dumps(unit.files),
        digest,
        cjk_grams([unit.title, unit.prompt, unit.reply, unit.tools]),
    )


class UnitsMixin(SessionsMixin):
    """Searchable units."""

    def sync_units(self, session_id: str, units: list[UnitRow]) -> int:
        """Make the session's units exactly `units`, touching only rows that changed.

        Unchanged rows keep their id (and so their vectors). Returns how many rows
        were written.
        """
        existing = {
            (r[0], r[1]): (r[2], r[3])
            for r in self.query(
                "SELECT kind, ordinal, id, hash FROM units WHERE session_id = %s", (session_id,)
            )
        }
        fresh: list[tuple[UnitRow, str]] = []
        written = 0
        for unit in units:
            digest = unit.digest()
            old = existing.pop((unit.kind, unit.ordinal), None)
            if old and old[1] == digest:
                continue
            if old:
                self.update_unit(old[0], unit, digest)
            else:
                fresh.append((unit, digest))
            written += 1
        self.insert_units(session_id, fresh)
        gone = [unit_id for unit_id, _ in existing.values()]
        if gone:
            self.db.execute("DELETE FROM units WHERE id = ANY(%s)", (gone,))
        return written + len(gone)

    def insert_units(
        self, session_id: str, units: list[tuple[UnitRow, str]]
    ) -> dict[tuple[str, int], int]:
        """Insert a session's new (unit, hash) rows in one statement; (kind, ordinal) →
        the new row's id. One statement, not one per unit: a session's units used to
        cost a round trip each, most of a large push's time."""
        if not units:
            return {}
        columns = list(zip(*(_unit_values(unit, digest) for unit, digest in units), strict=True))
        rows = self.query(
            "INSERT INTO units (session_id, kind, ordinal, source, ts, title, prompt, reply,"
            " tools, tool_names, files, hash, cjk_grams)"
            " SELECT %s, k, o, so, t, ti, p, r, tl, tn, f, h, g::tsvector FROM unnest("
            "%s::text[], %s::int[], %s::text[], %s::text[], %s::text[], %s::text[], %s::text[],"
            " %s::text[], %s::text[], %s::text[], %s::text[], %s::text[])"
            " AS x(k, o, so, t, ti, p, r, tl, tn, f, h, g) RETURNING kind, ordinal, id",
            (session_id, *(list(c) for c in columns)),
        )
        return {(r[0], r[1]): r[2] for r in rows}

    def update_unit(self, unit_id: int, unit: UnitRow, digest: str) -> None:
        """Rewrite a unit whose text changed, keeping its id (its vectors go with the
        old text: the `units_text_au` trigger)."""
        self.db.execute(
            "UPDATE units SET source = %s, ts = %s, title = %s, prompt = %s, reply = %s,"
            " tools = %s, tool_names = %s, files = %s, hash = %s,"
            " cjk_grams = %s::tsvector WHERE id = %s",
            (*_unit_values(unit, digest)[2:], unit_id),
        )

    def pending_units(self) -> list[int]:
        """Units without vectors, newest first: recent sessions are the likeliest asked about."""
        return [
            r[0]
            for r in self.query(
                "SELECT u.id FROM units u WHERE NOT EXISTS"
                " (SELECT 1 FROM embedded e WHERE e.unit_id = u.id)"
                " ORDER BY u.ts DESC NULLS LAST, u.id DESC"
            )
        ]

    def unit_texts(self, unit_ids: list[int]) -> list[tuple[Any, ...]]:
        """(id, hash, session_id, kind, ordinal, title, prompt, reply) of units that exist."""
        return self.query(
            "SELECT id, hash, session_id, kind, ordinal, title, prompt, reply FROM units"
            " WHERE id = ANY(%s)",
            (list(unit_ids),),
        )

    def turn_texts(self, session_id: str, ordinals: list[int]) -> dict[int, tuple[str, str]]:
        """(prompt, reply) of some turns of a session, by turn number."""
        rows = self.query(
            "SELECT ordinal, prompt, reply FROM units WHERE session_id = %s AND kind = 'turn'"
            " AND ordinal = ANY(%s)",
            (session_id, list(ordinals)),
        )
        return {r[0]: (r[1], r[2]) for r in rows}

    def has_units(self) -> bool:
        return bool(self.scalar("SELECT EXISTS (SELECT 1 FROM units)"))

    def unit_fields(self, unit_id: int) -> tuple[Any, ...] | None:
        """(ts, title, prompt, reply, tools, tool_names, files) of a unit, or None."""
        rows = self.query(
            "SELECT ts, title, prompt, reply, tools, tool_names, files FROM units WHERE id = %s",
            (unit_id,),
        )
        return rows[0] if rows else None

    def units_kept(self, unit_ids: list[int], filters: Filters) -> set[int]:
        """Those of `unit_ids` the filters keep, by the SQL both retrievals filter with."""
        if not unit_ids:
            return set()
        where, params = unit_filter_sql(filters)
        rows = self.query(
            "SELECT u.id FROM units u JOIN sessions s ON s.id = u.session_id"
            f" WHERE u.id = ANY(%s) AND {where}",
            [list(unit_ids), *params],
        )
        return {r[0] for r in rows}

    def recent_turn_texts(self, turns: int, chars: int) -> list[tuple[str, str]]:
        """The first `chars` of prompt and reply of the most recent `turns` turns."""
        return self.query(
            "SELECT left(prompt, %s), left(reply, %s) FROM units WHERE kind = 'turn'"
            " ORDER BY id DESC LIMIT %s",
            (chars, chars, turns),
        )
