"""A pushed session's units, vectors and titles, written where they differ.

Units are matched by (session, kind, ordinal) and rewritten only when their hash moved;
a rewrite drops the unit's vectors (the `units_text_au` trigger), which then come with
the push when the local index has them. Vectors arrive as the local int8 form with its
scale and are dequantised here: the server never runs the model.
"""

from __future__ import annotations

import json

from findsession.storage.postgresql.units import cjk_grams
from findsession.storage.postgresql.vectors import VectorsMixin, vector_text
from findsession.storage.push import Chunk, PushCounts, PushedSession, PushedUnit


class PushRowsMixin(VectorsMixin):
    """Writing one pushed session's units, vectors and titles."""

    def write_units(
        self, sid: str, pushed: PushedSession, vectors: dict[int, list[Chunk]]
    ) -> PushCounts:
        counts = PushCounts()
        existing = {
            (r[0], r[1]): (r[2], r[3])
            for r in self.query(
                "SELECT kind, ordinal, id, hash FROM units WHERE session_id = %s", (sid,)
            )
        }
        server_ids: dict[int, int] = {}
        for unit in pushed.units:
            old = existing.pop((unit.row.kind, unit.row.ordinal), None)
            if old and old[1] == unit.hash:
                server_ids[unit.local_id] = old[0]
                continue
            server_ids[unit.local_id] = self._write_unit(sid, unit, old[0] if old else None)
            counts.units += 1
        gone = [unit_id for unit_id, _ in existing.values()]
        if gone:
            counts.units_removed = self.db.execute(
                "DELETE FROM units WHERE id = ANY(%s)", (gone,)
            ).rowcount
        counts.vectors = self._write_vectors(server_ids, vectors)
        counts.titles = self._write_titles(sid, pushed)
        return counts

    def _write_unit(self, sid: str, unit: PushedUnit, unit_id: int | None) -> int:
        r = unit.row
        values = (
            r.source,
            r.ts,
            r.title,
            r.prompt,
            r.reply,
            r.tools,
            json.dumps(r.tool_names),
            json.dumps(r.files),
            unit.hash,
            cjk_grams([r.title, r.prompt, r.reply, r.tools]),
        )
        if unit_id is not None:
            self.db.execute(
                "UPDATE units SET source = %s, ts = %s, title = %s, prompt = %s, reply = %s,"
                " tools = %s, tool_names = %s, files = %s, hash = %s,"
                " cjk_grams = %s::tsvector WHERE id = %s",
                (*values, unit_id),
            )
            return unit_id
        return int(
            self.scalar(
                "INSERT INTO units (session_id, kind, ordinal, source, ts, title, prompt,"
                " reply, tools, tool_names, files, hash, cjk_grams) VALUES"
                " (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s::tsvector) RETURNING id",
                (sid, r.kind, r.ordinal, *values),
            )
        )

    def _write_vectors(self, server_ids: dict[int, int], vectors: dict[int, list[Chunk]]) -> int:
        """The chunks of units that have none on the server yet; how many units got them."""
        import numpy as np

        offered = {
            server_ids[local]: chunks for local, chunks in vectors.items() if local in server_ids
        }
        if not offered:
            return 0
        held = {
            r[0]
            for r in self.query(
                "SELECT unit_id FROM embedded WHERE unit_id = ANY(%s)", (list(offered),)
            )
        }
        # One statement each for the whole batch: a statement per unit made a first
        # push of 23k units take minutes. The HNSW graph is not made here: rows loaded
        # before it exists are built into it at once by `finish_push`, far faster than
        # one graph insert each.
        fresh = [u for u, chunks in offered.items() if u not in held and chunks]
        if not fresh:
            return 0
        self.db.execute("DELETE FROM chunks WHERE unit_id = ANY(%s)", (fresh,))
        self.many(
            "INSERT INTO chunks (unit_id, field, span_start, span_end, scale, vec, code,"
            " text_hash, embedding) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s::vector)",
            [
                (
                    unit_id,
                    *c,
                    vector_text(np.frombuffer(c[4], dtype=np.int8).astype(np.float32) * c[3]),
                )
                for unit_id in fresh
                for c in offered[unit_id]
            ],
        )
        self.many(
            "INSERT INTO embedded (unit_id, chunks) VALUES (%s, %s)",
            [(unit_id, len(offered[unit_id])) for unit_id in fresh],
        )
        written = len(fresh)
        return written

    def _write_titles(self, sid: str, pushed: PushedSession) -> int:
        """Make the session's index-only titles those of the push, when they differ."""
        held = [
            r[0]
            for r in self.query(
                "SELECT title FROM title_writes WHERE session_id = %s AND line_offset IS NULL"
                " ORDER BY id",
                (sid,),
            )
        ]
        wanted = [t.title for t in pushed.titles]
        if held == wanted:
            return 0
        self.db.execute(
            "DELETE FROM title_writes WHERE session_id = %s AND line_offset IS NULL", (sid,)
        )
        for write in pushed.titles:
            self.db.execute(
                "INSERT INTO title_writes (session_id, file_path, title, written_at)"
                " VALUES (%s, %s, %s, coalesce(nullif(%s, ''), now_iso()))",
                (sid, write.file_path, write.title, write.written_at),
            )
        return len(wanted) or 1
