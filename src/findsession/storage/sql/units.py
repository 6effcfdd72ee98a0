"""Searchable units: upserts by content hash, and what awaits embedding."""

from __future__ import annotations

import json
from typing import Any

from findsession.domain import COMPACTION_AGENT
from findsession.storage.sql.connection import SqlConnection
from findsession.storage.sql.filters import session_filter_sql, unit_filter_sql
from findsession.storage.sql.tables import UNITS
from findsession.storage.types import Filters, UnitRow

#: A unit's columns as written, in the order of `unit_values`.
UNIT_COLUMNS = UNITS.names
#: Those a rewrite of the unit's text changes (the rest are its key).
_REWRITTEN = tuple(c for c in UNIT_COLUMNS if c not in UNITS.key)


def unit_values(session_id: str, unit: UnitRow, digest: str) -> tuple[Any, ...]:
    """A unit's values for `UNIT_COLUMNS`."""
    return (
        session_id,
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
    )


class UnitsMixin(SqlConnection):
    """Searchable units."""

    def sync_units(self, session_id: str, units: list[UnitRow]) -> int:
        """Make the session's units exactly `units`, touching only rows that changed.

        Unchanged rows keep their id (and so their keyword entries and vectors). Returns
        how many rows were written.
        """
        existing = {
            (r[0], r[1]): (r[2], r[3])
            for r in self.query(
                "SELECT kind, ordinal, id, hash FROM units WHERE session_id = ?", (session_id,)
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
        return written + self.delete_units([unit_id for unit_id, _ in existing.values()])

    def insert_units(
        self, session_id: str, units: list[tuple[UnitRow, str]]
    ) -> dict[tuple[str, int], int]:
        """Insert a session's new (unit, hash) rows; (kind, ordinal) → the new row's id."""
        extras = self.UNIT_EXTRAS
        columns = ", ".join((*UNIT_COLUMNS, *(c for c, _ in extras)))
        marks = ", ".join(("?",) * len(UNIT_COLUMNS) + tuple(m for _, m in extras))
        made = {}
        for unit, digest in units:
            unit_id = self.scalar(
                f"INSERT INTO units ({columns}) VALUES ({marks}) RETURNING id",
                (*unit_values(session_id, unit, digest), *self.unit_extra_values(unit)),
            )
            self.unit_written(unit_id, unit)
            made[(unit.kind, unit.ordinal)] = unit_id
        return made

    def update_unit(self, unit_id: int, unit: UnitRow, digest: str) -> None:
        """Rewrite a unit whose text changed, keeping its id (its vectors go with the
        old text: a trigger of each backend's schema)."""
        sets = [f"{c} = ?" for c in _REWRITTEN] + [f"{c} = {m}" for c, m in self.UNIT_EXTRAS]
        self.execute(
            f"UPDATE units SET {', '.join(sets)} WHERE id = ?",
            (*unit_values("", unit, digest)[3:], *self.unit_extra_values(unit), unit_id),
        )
        self.unit_written(unit_id, unit)

    def delete_units(self, unit_ids: list[int]) -> int:
        """Delete units by id; how many went."""
        gone = 0
        for batch in self.batches(unit_ids):
            where, params = self.among("id", batch)
            self.units_leaving(where, params)
            gone += self.execute(f"DELETE FROM units WHERE {where}", params)
        return gone

    def pending_units(self) -> list[int]:
        """Units without vectors, newest first: recent sessions are the likeliest asked about."""
        if self.scalar("SELECT count(*) FROM units") == self.scalar(
            "SELECT count(*) FROM embedded"
        ):
            return []  # the common case, answered from two counts instead of a join
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
        rows = []
        for batch in self.batches(unit_ids):
            where, params = self.among("id", batch)
            rows += self.query(
                "SELECT id, hash, session_id, kind, ordinal, title, prompt, reply FROM units"
                f" WHERE {where}",
                params,
            )
        return rows

    def turn_texts(self, session_id: str, ordinals: list[int]) -> dict[int, tuple[str, str]]:
        """(prompt, reply) of some turns of a session, by turn number."""
        found = {}
        for batch in self.batches(ordinals):
            where, params = self.among("ordinal", batch)
            rows = self.query(
                "SELECT ordinal, prompt, reply FROM units WHERE session_id = ? AND kind = 'turn'"
                f" AND {where}",
                [session_id, *params],
            )
            found.update({r[0]: (r[1], r[2]) for r in rows})
        return found

    def has_units(self) -> bool:
        return bool(self.scalar("SELECT EXISTS (SELECT 1 FROM units)"))

    def unit_fields(self, unit_id: int) -> tuple[Any, ...] | None:
        """(ts, title, prompt, reply, tools, tool_names, files) of a unit, or None."""
        rows = self.query(
            "SELECT ts, title, prompt, reply, tools, tool_names, files FROM units WHERE id = ?",
            (unit_id,),
        )
        return rows[0] if rows else None

    def units_kept(self, unit_ids: list[int], filters: Filters) -> set[int]:
        """Those of `unit_ids` the filters keep, by the SQL both retrievals filter with."""
        kept: set[int] = set()
        where, params = unit_filter_sql(self, filters)
        for batch in self.batches(unit_ids):
            ids, values = self.among("u.id", batch)
            rows = self.query(
                "SELECT u.id FROM units u JOIN sessions s ON s.id = u.session_id"
                f" WHERE {ids} AND {where}",
                [*values, *params],
            )
            kept |= {r[0] for r in rows}
        return kept

    def sessions_kept(self, session_ids: list[str], filters: Filters) -> set[str]:
        """Those of `session_ids` the session-level filters keep (project, source)."""
        kept: set[str] = set()
        where, params = session_filter_sql(self, filters)
        for batch in self.batches(session_ids):
            ids, values = self.among("s.id", batch)
            rows = self.query(
                f"SELECT s.id FROM sessions s WHERE {ids} AND {where}", [*values, *params]
            )
            kept |= {r[0] for r in rows}
        return kept

    def turn_counts(self, session_ids: list[str]) -> dict[str, int]:
        """How many turns each of these sessions has (those with a row)."""
        counts: dict[str, int] = {}
        for batch in self.batches(session_ids):
            ids, values = self.among("id", batch)
            counts.update(self.query(f"SELECT id, n_turns FROM sessions WHERE {ids}", values))
        return counts

    def restating(self, session_ids: list[str]) -> dict[str, str]:
        """Those of these sessions that restate their parent, each with the parent's id."""
        parents: dict[str, str] = {}
        for batch in self.batches(session_ids):
            ids, values = self.among("id", batch)
            parents.update(
                self.query(
                    f"SELECT id, parent_id FROM sessions WHERE {ids} AND agent_type = ?"
                    " AND parent_id IS NOT NULL",
                    (*values, COMPACTION_AGENT),
                )
            )
        return parents

    def recent_turn_texts(self, turns: int, chars: int) -> list[tuple[str, str]]:
        """The first `chars` of prompt and reply of the most recent `turns` turns."""
        return self.query(
            "SELECT substr(prompt, 1, ?), substr(reply, 1, ?) FROM units WHERE kind = 'turn'"
            " ORDER BY id DESC LIMIT ?",
            (chars, chars, turns),
        )
