"""Searchable units: upserts by content hash, and what awaits embedding."""

from __future__ import annotations

import json
from typing import Any

from findsession.storage.base import Filters
from findsession.storage.sqlite.cjk_index import write_cjk
from findsession.storage.sqlite.connection import Connection
from findsession.storage.sqlite.filters import unit_filter_sql
from findsession.storage.sqlite.rows import UnitRow


class UnitsMixin(Connection):
    """Searchable units."""

    def sync_units(self, session_id: str, units: list[UnitRow]) -> int:
        """Make the session's units exactly `units`, touching only rows that changed.

        Unchanged rows keep their id (and so their keyword entries and vectors). Returns
        how many rows were written.
        """
        existing = {
            (r[0], r[1]): (r[2], r[3])
            for r in self.db.execute(
                "SELECT kind, ordinal, id, hash FROM units WHERE session_id = ?", (session_id,)
            )
        }
        written = 0
        for unit in units:
            digest = unit.digest()
            old = existing.pop((unit.kind, unit.ordinal), None)
            if old and old[1] == digest:
                continue
            values = (
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
            if old:
                unit_id = old[0]
                self.db.execute(
                    "UPDATE units SET source=?, ts=?, title=?, prompt=?, reply=?, tools=?,"
                    " tool_names=?, files=?, hash=? WHERE id = ?",
                    (*values, unit_id),
                )
            else:
                unit_id = self.db.execute(
                    "INSERT INTO units (session_id, kind, ordinal, source, ts, title, prompt,"
                    " reply, tools, tool_names, files, hash) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)"
                    " RETURNING id",
                    (session_id, unit.kind, unit.ordinal, *values),
                ).fetchone()[0]
            write_cjk(self.db, unit_id, [unit.title, unit.prompt, unit.reply, unit.tools])
            written += 1
        for unit_id, _ in existing.values():
            self.db.execute("DELETE FROM units WHERE id = ?", (unit_id,))
            self.db.execute("DELETE FROM cjk_fts WHERE rowid = ?", (unit_id,))
            written += 1
        return written

    def pending_units(self) -> list[int]:
        """Units without vectors, newest first: recent sessions are the likeliest asked about."""
        if self.scalar("SELECT count(*) FROM units") == self.scalar(
            "SELECT count(*) FROM embedded"
        ):
            return []  # the common case, answered from two counts instead of a join
        return [
            r[0]
            for r in self.db.execute(
                "SELECT u.id FROM units u LEFT JOIN embedded e ON e.unit_id = u.id"
                " WHERE e.unit_id IS NULL ORDER BY u.ts DESC, u.id DESC"
            )
        ]

    def unit_texts(self, unit_ids: list[int]) -> list[tuple[Any, ...]]:
        """(id, hash, session_id, kind, ordinal, title, prompt, reply) of units that exist."""
        marks = ",".join("?" * len(unit_ids))
        return self.query(
            "SELECT id, hash, session_id, kind, ordinal, title, prompt, reply FROM units"
            f" WHERE id IN ({marks})",
            unit_ids,
        )

    def turn_texts(self, session_id: str, ordinals: list[int]) -> dict[int, tuple[str, str]]:
        """(prompt, reply) of some turns of a session, by turn number."""
        marks = ",".join("?" * len(ordinals))
        rows = self.query(
            "SELECT ordinal, prompt, reply FROM units WHERE session_id = ? AND kind = 'turn'"
            f" AND ordinal IN ({marks})",
            [session_id, *ordinals],
        )
        return {r[0]: (r[1], r[2]) for r in rows}

    def has_units(self) -> bool:
        return bool(self.scalar("SELECT EXISTS (SELECT 1 FROM units)"))

    def unit_fields(self, unit_id: int) -> tuple[Any, ...] | None:
        """(ts, title, prompt, reply, tools, tool_names, files) of a unit, or None."""
        rows = self.query(
            "SELECT ts, title, prompt, reply, tools, tool_names, files FROM units WHERE id = ?",
            (unit_id,),
        )
        return rows[0] if rows else None

    def units_containing(self, unit_ids: list[int], tokens: list[str]) -> set[int]:
        """Those of `unit_ids` whose text holds every token verbatim (any case)."""
        text = "lower(title || ' ' || prompt || ' ' || reply || ' ' || tools)"
        checks = " AND ".join(f"instr({text}, ?) > 0" for _ in tokens)
        marks = ",".join("?" * len(unit_ids))
        rows = self.query(
            f"SELECT id FROM units WHERE id IN ({marks}) AND {checks}",
            [*unit_ids, *(t.lower() for t in tokens)],
        )
        return {r[0] for r in rows}

    def units_kept(self, unit_ids: list[int], filters: Filters) -> set[int]:
        """Those of `unit_ids` the filters keep, by the SQL both retrievals filter with."""
        if not unit_ids:
            return set()
        where, params = unit_filter_sql(filters)
        marks = ",".join("?" * len(unit_ids))
        rows = self.query(
            "SELECT u.id FROM units u JOIN sessions s ON s.id = u.session_id"
            f" WHERE u.id IN ({marks}) AND {where}",
            [*unit_ids, *params],
        )
        return {r[0] for r in rows}

    def recent_turn_texts(self, turns: int, chars: int) -> list[tuple[str, str]]:
        """The first `chars` of prompt and reply of the most recent `turns` turns."""
        return self.query(
            "SELECT substr(prompt, 1, ?), substr(reply, 1, ?) FROM units WHERE kind = 'turn'"
            " ORDER BY id DESC LIMIT ?",
            (chars, chars, turns),
        )
