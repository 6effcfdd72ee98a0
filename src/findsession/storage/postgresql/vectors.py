"""Vectors in pgvector: one row per chunk, an HNSW index by cosine, filters in the SQL.

The embedder hands over int8 vectors with a scale (findsession.quantize); they are kept
as given, for the embedder to reuse by text digest, and as a pgvector `vector` for the
server to search. The HNSW index needs a fixed dimension, which only the model knows,
so it is made when the first vectors of a dimension arrive: an expression index on
`embedding::vector(N)`, which the search's ORDER BY names the same way.

Filters sit in the same statement as the nearest-neighbour ORDER BY. pgvector 0.8's
iterative index scan keeps walking the graph until enough rows pass them, so a search
filtered to one project or session is not starved by a global top-k; a filter that keeps
few rows is planned as an exact scan of those rows instead.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from findsession.storage.base import Filters, VectorMatch
from findsession.storage.postgresql.filters import unit_filter_sql
from findsession.storage.postgresql.keyword_words import KeywordMixin

if TYPE_CHECKING:
    import numpy as np

#: Chunks fetched per unit wanted: a unit has about four, the best one counts.
CHUNKS_PER_UNIT = 4
#: Candidates the graph search keeps (hnsw.ef_search); at least the rows asked for.
EF_SEARCH = 200
_FIELD = {"user": "prompt", "assistant": "reply"}


def vector_text(values: np.ndarray) -> str:
    """A float vector in pgvector's text form."""
    return "[" + ",".join(f"{v:.6g}" for v in values.tolist()) + "]"


class VectorsMixin(KeywordMixin):
    """Stored vectors and their search (see findsession.storage.base.VectorIndex)."""

    def has_vectors(self) -> bool:
        return bool(self.scalar("SELECT EXISTS (SELECT 1 FROM chunks)"))

    def clear_vectors(self) -> None:
        """Drop every vector: they belong to a model that is no longer the configured one."""
        self.db.execute("DELETE FROM chunks")
        self.db.execute("DELETE FROM embedded")
        self.db.execute("DELETE FROM settings WHERE key LIKE 'embedding\\_%%'")
        self.bump_vector_generation()

    def save_vectors(
        self,
        unit_id: int,
        unit_hash: str,
        chunks: list[tuple[str, int, int, float, bytes, bytes, bytes | None]],
    ) -> bool:
        """Store a unit's (field, start, end, scale, vec, code, text_hash) chunks and mark
        it done; refused (False) when the unit changed or vanished since it was read."""
        import numpy as np

        if self.scalar("SELECT hash FROM units WHERE id = %s", (unit_id,)) != unit_hash:
            return False
        dims = {len(c[4]) for c in chunks}
        for n in dims:
            self._ensure_graph(n)
        self.db.execute("DELETE FROM chunks WHERE unit_id = %s", (unit_id,))
        self.many(
            "INSERT INTO chunks (unit_id, field, span_start, span_end, scale, vec, code,"
            " text_hash, embedding) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s::vector)",
            [
                (
                    unit_id,
                    *c[:7],
                    vector_text(np.frombuffer(c[4], dtype=np.int8).astype(np.float32) * c[3]),
                )
                for c in chunks
            ],
        )
        self.db.execute(
            "INSERT INTO embedded (unit_id, chunks) VALUES (%s, %s)"
            " ON CONFLICT (unit_id) DO UPDATE SET chunks = excluded.chunks",
            (unit_id, len(chunks)),
        )
        return True

    def _ensure_graph(self, dims: int) -> None:
        """The HNSW index for vectors of `dims` dimensions, made once."""
        name = f"chunks_hnsw_{int(dims)}"
        if self.scalar("SELECT to_regclass(%s)", (name,)) is None:
            self.db.execute(
                f"CREATE INDEX IF NOT EXISTS {name} ON chunks USING hnsw"
                f" ((embedding::vector({int(dims)})) vector_cosine_ops)"
                f" WHERE vector_dims(embedding) = {int(dims)}"
            )

    def vectors_of_texts(self, text_hashes: list[bytes]) -> dict[bytes, tuple[float, bytes, bytes]]:
        """The stored (scale, vec, code) of each of these text digests that some chunk has."""
        rows = self.query(
            "SELECT text_hash, scale, vec, code FROM chunks WHERE text_hash = ANY(%s)",
            (list(text_hashes),),
        )
        return {bytes(h): (float(s), bytes(v), bytes(c)) for h, s, v, c in rows}

    def bump_vector_generation(self) -> None:
        """Tell long-lived searchers that the vectors changed."""
        self.db.execute(
            "INSERT INTO settings (key, value) VALUES ('vector_generation', md5(random()::text))"
            " ON CONFLICT (key) DO UPDATE SET value = excluded.value"
        )

    def pack_vectors(self) -> bool:
        """Nothing to pack: the server keeps its HNSW index current with every write."""
        return False

    def load_vectors(self) -> None:
        """Nothing to load: the server searches its own index."""

    def vector_search(self, vector: np.ndarray, filters: Filters, limit: int) -> list[VectorMatch]:
        """The best `limit` units by cosine to `vector`, filters inside the statement."""
        dims = int(vector.shape[0])
        where, params = unit_filter_sql(filters)
        if filters.speaker:
            where += " AND c.field = %s"
            params.append(_FIELD[filters.speaker])
        distance = f"c.embedding::vector({dims}) <=> %s::vector({dims})"
        take = max(limit * CHUNKS_PER_UNIT, 40)
        sql = (
            "SELECT DISTINCT ON (n.unit_id) n.unit_id, n.session_id, n.kind, n.ordinal,"
            " 1 - n.distance, n.field, n.span_start, n.span_end FROM ("
            " SELECT c.unit_id, u.session_id, u.kind, u.ordinal, c.field, c.span_start,"
            f" c.span_end, {distance} AS distance"
            " FROM chunks c JOIN units u ON u.id = c.unit_id"
            " JOIN sessions s ON s.id = u.session_id"
            f" WHERE vector_dims(c.embedding) = {dims} AND {where}"
            f" ORDER BY {distance} LIMIT %s) n ORDER BY n.unit_id, n.distance"
        )
        query = vector_text(vector)
        with self.transaction() if self.in_transaction else self.snapshot():
            self.db.execute(f"SET LOCAL hnsw.ef_search = {min(max(EF_SEARCH, take), 1000)}")
            self.db.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
            rows = self.query(sql, [query, *params, query, take])
        rows.sort(key=lambda r: -r[4])
        return [
            VectorMatch(r[0], r[1], r[2], r[3], float(r[4]), r[5], r[6], r[7]) for r in rows[:limit]
        ]
