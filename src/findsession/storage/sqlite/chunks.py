"""Stored vectors: chunks per unit, the model they came from, the generation token."""

from __future__ import annotations

from findsession.storage.sqlite import vector_pack
from findsession.storage.sqlite.connection import Connection


class VectorsMixin(Connection):
    """Stored vectors."""

    def clear_vectors(self) -> None:
        """Drop every vector: they belong to a model that is no longer the configured one."""
        self.db.execute("DELETE FROM chunks")
        self.db.execute("DELETE FROM embedded")
        self.db.execute("DELETE FROM settings WHERE key LIKE 'embedding_%'")
        vector_pack.drop_pack(self)
        self.bump_vector_generation()

    def save_vectors(
        self, unit_id: int, unit_hash: str, chunks: list[tuple[str, int, int, float, bytes, bytes]]
    ) -> bool:
        """Store a unit's (field, start, end, scale, vec, code) chunks and mark it done.

        Refused (False) when the unit changed or vanished since its text was read: a
        concurrent index run rewrote it, and these vectors describe the old text.
        """
        if self.scalar("SELECT hash FROM units WHERE id = ?", (unit_id,)) != unit_hash:
            return False
        self.db.execute("DELETE FROM chunks WHERE unit_id = ?", (unit_id,))
        self.db.executemany(
            "INSERT INTO chunks (unit_id, field, start, end, scale, vec, code)"
            " VALUES (?,?,?,?,?,?,?)",
            [(unit_id, *c) for c in chunks],
        )
        self.db.execute(
            "INSERT OR REPLACE INTO embedded (unit_id, chunks) VALUES (?, ?)",
            (unit_id, len(chunks)),
        )
        return True

    def bump_vector_generation(self) -> None:
        """Tell long-lived searchers (the MCP server) that their vector matrix is stale."""
        self.db.execute(
            "INSERT OR REPLACE INTO settings (key, value)"
            " VALUES ('vector_generation', lower(hex(randomblob(8))))"
        )

    def has_vectors(self) -> bool:
        return bool(self.scalar("SELECT EXISTS (SELECT 1 FROM chunks)"))
