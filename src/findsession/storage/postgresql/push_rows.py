"""A pushed session's units, vectors and titles, written where they differ.

Units are matched by (session, kind, ordinal) and rewritten only when their hash moved;
a rewrite drops the unit's vectors (the `units_text_au` trigger), which then come with
the push when the local index has them. Vectors arrive as the local int8 form with its
scale and are stored as an embedding run on the server stores them: the server never
runs the model.
"""

from __future__ import annotations

from findsession.storage.postgresql.connection import Connection
from findsession.storage.postgresql.schema_v8 import VISIBLE
from findsession.storage.push import Chunk, PushCounts, PushedSession, PushedUnit


class PushRowsMixin(Connection):
    """Writing one pushed session's units (findsession.storage.sql.units and this
    package's `units`), vectors (`vectors`) and titles."""

    def write_units(
        self, sid: str, pushed: PushedSession, vectors: dict[int, list[Chunk]]
    ) -> PushCounts:
        counts = PushCounts()
        existing = {
            (r[0], r[1]): (r[2], r[3])
            for r in self.query(
                "SELECT kind, ordinal, id, hash FROM units WHERE session_id = ?", (sid,)
            )
        }
        server_ids: dict[int, int] = {}
        fresh: list[PushedUnit] = []
        for unit in pushed.units:
            old = existing.pop((unit.row.kind, unit.row.ordinal), None)
            if old and old[1] == unit.hash:
                server_ids[unit.local_id] = old[0]
                continue
            if old:
                self.update_unit(old[0], unit.row, unit.hash)
                server_ids[unit.local_id] = old[0]
            else:
                fresh.append(unit)
            counts.units += 1
        made = self.insert_units(sid, [(u.row, u.hash) for u in fresh])
        for unit in fresh:
            server_ids[unit.local_id] = made[(unit.row.kind, unit.row.ordinal)]
        gone = [unit_id for unit_id, _ in existing.values()]
        counts.units_removed = self.delete_units(gone)
        counts.vectors = self._write_vectors(pushed, server_ids, vectors)
        counts.titles = self._write_titles(sid, pushed)
        return counts

    def _write_vectors(
        self, pushed: PushedSession, server_ids: dict[int, int], vectors: dict[int, list[Chunk]]
    ) -> int:
        """The chunks of units that have none on the server yet, copied in as an
        embedding run writes them (`save_vectors_many`: a few statements for the whole
        session, the int8 values as they are); how many units got them. The HNSW graph
        is not made here: rows loaded before it exists are built into it at once by
        `finish_push`, far faster than one graph insert each."""
        hashes = {u.local_id: u.hash for u in pushed.units}
        offered = {
            server_ids[local]: (hashes[local], chunks)
            for local, chunks in vectors.items()
            if local in server_ids and chunks
        }
        if not offered:
            return 0
        held = {
            r[0]
            for r in self.query(
                f"SELECT unit_id FROM embedded WHERE {VISIBLE} AND unit_id = ANY(?)",
                (list(offered),),
            )
        }
        return self.save_vectors_many(
            [(unit_id, *pair) for unit_id, pair in offered.items() if unit_id not in held]
        )

    def _write_titles(self, sid: str, pushed: PushedSession) -> int:
        """Make the session's index-only titles those of the push, when they differ."""
        held = [
            r[0]
            for r in self.query(
                "SELECT title FROM title_writes WHERE session_id = ? AND line_offset IS NULL"
                " ORDER BY id",
                (sid,),
            )
        ]
        wanted = [t.title for t in pushed.titles]
        if held == wanted:
            return 0
        self.execute(
            "DELETE FROM title_writes WHERE session_id = ? AND line_offset IS NULL", (sid,)
        )
        for write in pushed.titles:
            self.execute(
                "INSERT INTO title_writes (session_id, file_path, title, written_at)"
                " VALUES (?, ?, ?, coalesce(nullif(?, ''), now_iso()))",
                (sid, write.file_path, write.title, write.written_at),
            )
        return len(wanted) or 1
