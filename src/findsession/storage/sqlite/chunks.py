"""Stored vectors as SQLite writes them: a unit's chunks in one statement each, and the
vector pack dropped with them (the rest is findsession.storage.sql.vectors)."""

from __future__ import annotations

from findsession.storage.base import Chunk
from findsession.storage.sql import vectors
from findsession.storage.sqlite.connection import Connection


class VectorsMixin(vectors.VectorsMixin, Connection):
    """Stored vectors."""

    def clear_vectors(self) -> None:
        # The pack module brings numpy: imported here, so a command that never touches
        # vectors (read, status, a keyword search) starts without it.
        from findsession.storage.sqlite import vector_pack

        super().clear_vectors()
        vector_pack.drop_pack(self)

    def save_vectors(self, unit_id: int, unit_hash: str, chunks: list[Chunk]) -> bool:
        """Store a unit's (field, start, end, scale, vec, code, text_hash) chunks and mark
        it done.

        Refused (False) when the unit changed or vanished since its text was read: a
        concurrent index run rewrote it, and these vectors describe the old text.
        """
        if self.scalar("SELECT hash FROM units WHERE id = ?", (unit_id,)) != unit_hash:
            return False
        self.db.execute("DELETE FROM chunks WHERE unit_id = ?", (unit_id,))
        self.db.executemany(
            "INSERT INTO chunks (unit_id, field, span_start, span_end, scale, vec, code, text_hash)"
            " VALUES (?,?,?,?,?,?,?,?)",
            [(unit_id, *c) for c in chunks],
        )
        self.db.execute(
            "INSERT OR REPLACE INTO embedded (unit_id, chunks) VALUES (?, ?)",
            (unit_id, len(chunks)),
        )
        return True

    def save_vectors_many(self, units: list[tuple[int, str, list[Chunk]]]) -> int:
        """`save_vectors` unit by unit: in-process SQLite pays no round trip per statement."""
        return sum(self.save_vectors(unit_id, digest, chunks) for unit_id, digest, chunks in units)
