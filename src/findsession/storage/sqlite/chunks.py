"""Stored vectors: chunks per unit, the model they came from, the generation token."""

from __future__ import annotations

from findsession.storage.base import Chunk
from findsession.storage.sqlite import vector_pack
from findsession.storage.sqlite.connection import Connection

#: Digests looked up per statement, well under SQLite's limit on bound parameters.
LOOKUP_BATCH = 500


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
        self,
        unit_id: int,
        unit_hash: str,
        chunks: list[tuple[str, int, int, float, bytes, bytes, bytes | None]],
    ) -> bool:
        """Store a unit's (field, start, end, scale, vec, code, text_hash) chunks and mark
        it done.

        Refused (False) when the unit changed or vanished since its text was read: a
        concurrent index run rewrote it, and these vectors describe the old text.
        """
        if self.scalar("SELECT hash FROM units WHERE id = ?", (unit_id,)) != unit_hash:
            return False
        self.db.execute("DELETE FROM chunks WHERE unit_id = ?", (unit_id,))
        self.db.executemany(
            "INSERT INTO chunks (unit_id, field, start, end, scale, vec, code, text_hash)"
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

    def vectors_of_texts(self, text_hashes: list[bytes]) -> dict[bytes, tuple[float, bytes, bytes]]:
        """The stored (scale, vec, code) of each of these text digests that some chunk has."""
        found: dict[bytes, tuple[float, bytes, bytes]] = {}
        for at in range(0, len(text_hashes), LOOKUP_BATCH):
            batch = text_hashes[at : at + LOOKUP_BATCH]
            for text_hash, scale, vec, code in self.db.execute(
                "SELECT text_hash, scale, vec, code FROM chunks"
                f" WHERE text_hash IN ({','.join('?' * len(batch))})",
                batch,
            ):
                found[text_hash] = (scale, vec, code)
        return found

    def bump_vector_generation(self) -> None:
        """Tell long-lived searchers (the MCP server) that their vector matrix is stale."""
        self.db.execute(
            "INSERT OR REPLACE INTO settings (key, value)"
            " VALUES ('vector_generation', lower(hex(randomblob(8))))"
        )

    def has_vectors(self) -> bool:
        return bool(self.scalar("SELECT EXISTS (SELECT 1 FROM chunks)"))
