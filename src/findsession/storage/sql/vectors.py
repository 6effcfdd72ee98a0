"""Stored vectors, where the backends agree: what is stored, reuse by text, the generation
token searchers watch. Writing chunks in bulk and searching them are each backend's."""

from __future__ import annotations

import secrets

from findsession.storage.sql.connection import SqlConnection


class VectorsMixin(SqlConnection):
    """Stored vectors (see findsession.storage.base)."""

    def has_vectors(self) -> bool:
        return bool(self.scalar("SELECT EXISTS (SELECT 1 FROM chunks)"))

    def clear_vectors(self) -> None:
        """Drop every vector: they belong to a model that is no longer the configured one."""
        self.execute("DELETE FROM chunks")
        self.execute("DELETE FROM embedded")
        self.execute("DELETE FROM settings WHERE key LIKE 'embedding\\_%' ESCAPE '\\'")
        self.bump_vector_generation()

    def vectors_of_texts(self, text_hashes: list[bytes]) -> dict[bytes, tuple[float, bytes, bytes]]:
        """The stored (scale, vec, code) of each of these text digests that some chunk has."""
        found: dict[bytes, tuple[float, bytes, bytes]] = {}
        for batch in self.batches(text_hashes):
            where, params = self.among("text_hash", batch)
            for text_hash, scale, vec, code in self.query(
                f"SELECT text_hash, scale, vec, code FROM chunks WHERE {where}", params
            ):
                found[bytes(text_hash)] = (float(scale), bytes(vec), bytes(code))
        return found

    def bump_vector_generation(self) -> None:
        """Tell long-lived searchers (the MCP server, the service) that their vectors
        are stale."""
        self.set_setting("vector_generation", secrets.token_hex(8))
