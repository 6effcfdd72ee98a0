"""Vectors in pgvector: one row per chunk, HNSW indexes by cosine, filters in the SQL.

The embedder hands over int8 vectors with a scale (findsession.quantize); they are kept
as given, for the embedder to reuse by text digest, and as a pgvector `vector` for the
server to search. The HNSW index needs a fixed dimension, which only the model knows,
so it is made when the first vectors of a dimension arrive: an expression index on
`embedding::halfvec(N)` (half precision holds the int8 values exactly, in half the
memory: schema step 5), which the search's ORDER BY names the same way, one per audience
(a person's own vectors, the shared ones: schema step 12), so a person's walk meets
only vectors they may read.

Filters sit in the same statement as the nearest-neighbour ORDER BY. pgvector 0.8's
iterative index scan keeps walking the graph until enough rows pass them, so a search
filtered to one project or session is not starved by a global top-k; a filter that keeps
few rows is planned as an exact scan of those rows instead.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from findsession.errors import DatabaseError
from findsession.storage.base import Chunk, Filters, VectorMatch
from findsession.storage.postgresql.connection import Connection
from findsession.storage.postgresql.filters import filter_values
from findsession.storage.sql import vectors

if TYPE_CHECKING:
    import numpy as np

#: Chunks fetched per unit wanted: a unit has about four, the best one counts.
CHUNKS_PER_UNIT = 4
#: Candidates the graph search keeps (hnsw.ef_search); at least the rows asked for.
EF_SEARCH = 200
_FIELD = {"user": "prompt", "assistant": "reply"}


#: Memory the HNSW build may take (`maintenance_work_mem`): a graph that does not fit
#: is built on disk, several times slower. About 1.7 kB per 384-dimension vector.
BUILD_MEMORY = "1GB"
#: A chunk's columns, `shared` its unit's (written with it: marked after the insert by
#: schema step 7's trigger, each row and its graph entry would be written twice).
_COPY_CHUNKS = (
    "COPY chunks (unit_id, field, span_start, span_end, scale, vec, code, text_hash,"
    " embedding, shared) FROM STDIN"
)
_INSERT_CHUNKS = (
    "INSERT INTO chunks (unit_id, field, span_start, span_end, scale, vec, code, text_hash,"
    " embedding, shared) SELECT u, f, s, e, sc, v, c, h, emb::vector, sh FROM"
    " unnest(?::bigint[], ?::text[], ?::int[], ?::int[], ?::real[], ?::bytea[], ?::bytea[],"
    " ?::bytea[], ?::text[], ?::boolean[]) AS x(u, f, s, e, sc, v, c, h, emb, sh)"
)
#: Each int8 value's text, for writing vectors without formatting floats.
_INT8_TEXT = [str(b - 256 if b > 127 else b) for b in range(256)]


def vector_text(values: np.ndarray) -> str:
    """A float vector in pgvector's text form."""
    return "[" + ",".join(f"{v:.6g}" for v in values.tolist()) + "]"


def int8_vector_text(vec: bytes) -> str:
    """A stored int8 vector as pgvector text, its scale left out: cosine, the only
    measure searched, does not change when a vector is scaled, and integers are written
    several times faster than floats."""
    return "[" + ",".join([_INT8_TEXT[b] for b in vec]) + "]"


class VectorsMixin(vectors.VectorsMixin, Connection):
    """Stored vectors and their search (see findsession.storage.base.VectorIndex)."""

    def clear_vectors(self) -> None:
        """Drop every vector: they belong to a model that is no longer the configured one.
        On a shared server only its admin may: a person's role would drop their own
        vectors and then be refused the model's change (schema step 4), so it is refused
        here first, before anything is deleted."""
        if self.scalar("SELECT row_security_active('settings')"):
            stored = self.setting("embedding_model")
            raise DatabaseError(
                f"the vectors on this shared server come from {stored}, and only its admin"
                " may replace that model",
                cli_hint=f"embed with the server's model: set [embedding] model to {stored}"
                " in the config file",
            )
        super().clear_vectors()

    def save_vectors(self, unit_id: int, unit_hash: str, chunks: list[Chunk]) -> bool:
        """Store a unit's (field, start, end, scale, vec, code, text_hash) chunks and mark
        it done; refused (False) when the unit changed or vanished since it was read."""
        return self.save_vectors_many([(unit_id, unit_hash, chunks)]) == 1

    def save_vectors_many(self, units: list[tuple[int, str, list[Chunk]]]) -> int:
        """Many units' chunks in four statements (hashes checked, old chunks deleted, new
        ones copied in, units marked), not four per unit: each statement is a round trip.
        Units whose text changed since it was read are left out. Rows join the HNSW
        graph when it exists; the first vectors wait for `pack_vectors` to build it."""
        if not units:
            return 0
        ids = [u[0] for u in units]
        current = {
            r[0]: (r[1], r[2])
            for r in self.query("SELECT id, hash, shared FROM units WHERE id = ANY(?)", (ids,))
        }
        kept = [u for u in units if current.get(u[0], ("",))[0] == u[1]]
        if not kept:
            return 0
        kept_ids = [u[0] for u in kept]
        shared = [current[unit_id][1] for unit_id in kept_ids]
        self.execute("DELETE FROM chunks WHERE unit_id = ANY(?)", (kept_ids,))
        rows = [
            (unit_id, *c[:7], int8_vector_text(c[4]), current[unit_id][1])
            for unit_id, _, chunks in kept
            for c in chunks
        ]
        if self.scalar("SELECT row_security_active('chunks')"):
            # A person's role on a shared server: PostgreSQL refuses COPY under
            # row-level security, and one INSERT over arrays is the next fastest.
            self.execute(_INSERT_CHUNKS, [list(c) for c in zip(*rows, strict=True)])
        else:
            with self.db.cursor() as cursor, cursor.copy(_COPY_CHUNKS) as copy:
                for row in rows:
                    copy.write_row(row)
        self.execute(
            "INSERT INTO embedded (unit_id, chunks, shared)"
            " SELECT * FROM unnest(?::bigint[], ?::int[], ?::boolean[])"
            f" ON CONFLICT {self.key('embedded')}"
            " DO UPDATE SET chunks = excluded.chunks",
            (kept_ids, [len(u[2]) for u in kept], shared),
        )
        return len(kept)

    def _ensure_graph(self, dims: int) -> None:
        """The HNSW graphs for vectors of `dims` dimensions, each made once: one per
        audience (a person's own vectors, the shared ones: schema step 12), of those the
        caller may read (the schema's owner: all). Made over rows already stored, a graph
        is built in memory in one pass (up to `BUILD_MEMORY`), many times faster than the
        same rows inserted one at a time. Made by `ensure_graph`, which runs as the
        schema's owner (on a shared server the person whose run embedded first may not
        create indexes) and only for vectors of the server's model's size."""
        if self.in_transaction:
            self.graph_build_memory()
        self.execute("SELECT ensure_graph(?)", (int(dims),))

    def graph_build_memory(self) -> None:
        """Let this transaction's HNSW build take `BUILD_MEMORY`, unless the server's own
        `maintenance_work_mem` is larger already: an administrator who raised it for a big
        first load (a 1M-unit graph needs about 4 GB) keeps the raise."""
        self.execute(
            "SELECT set_config('maintenance_work_mem', ?, true)"
            " WHERE pg_size_bytes(current_setting('maintenance_work_mem')) < pg_size_bytes(?)",
            (BUILD_MEMORY, BUILD_MEMORY),
        )

    def pack_vectors(self) -> bool:
        """Build the HNSW index when the vectors were loaded into an empty table (an
        embedding run's end); after that the server keeps it current with every write."""
        dims = self.setting("embedding_dims")
        if dims:
            self._ensure_graph(int(dims))
        return False

    def load_vectors(self) -> None:
        """Nothing to load: the server searches its own index."""

    def vector_search(self, vector: np.ndarray, filters: Filters, limit: int) -> list[VectorMatch]:
        """The best `limit` units by cosine to `vector`, filters inside the statement:
        `vector_ranked` (schema steps 8 and 12) walks, as the schema's owner, the graph
        of each audience the caller may read (their own vectors, the shared ones), and
        nothing else (people may not read the vectors themselves).
        The vectors are compared in half precision, as the graph holds them (step 5):
        the stored int8 values are exact in it, and the graph's expression must match."""
        dims = int(vector.shape[0])
        take = max(limit * CHUNKS_PER_UNIT, 40)
        with self.transaction() if self.in_transaction else self.snapshot():
            self.execute(f"SET LOCAL hnsw.ef_search = {min(max(EF_SEARCH, take), 1000)}")
            self.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
            rows = self.query(
                "SELECT * FROM vector_ranked(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    vector_text(vector),
                    dims,
                    take,
                    *filter_values(filters),
                    _FIELD.get(filters.speaker or ""),
                ],
            )
        rows.sort(key=lambda r: -r[4])
        return [
            VectorMatch(r[0], r[1], r[2], r[3], float(r[4]), r[5], r[6], r[7]) for r in rows[:limit]
        ]
