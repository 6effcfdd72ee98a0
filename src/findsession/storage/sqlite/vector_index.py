"""Vector retrieval: a sign-bit scan of every chunk in memory, then an exact rerank.

sqlite-vec's vec0 scans (its PyPI build has no SIMD) took 62 ms for 100k sign-bit
vectors on the target machine, so a million would miss a 100 ms budget by far. Here the
sign bits (48 bytes per 384-dim vector) and the few columns the filters need live in
numpy arrays loaded once per process; Hamming distance picks a few thousand candidates,
whose int8 vectors are read back from SQLite and scored by exact cosine. Filters are
masks applied before the candidates are picked, so a filtered search never loses the
hits of the chosen session to a global top-k.
"""

from __future__ import annotations

from datetime import datetime
from itertools import islice
from typing import ClassVar

import numpy as np

from findsession.quantize import sign_codes
from findsession.storage.base import Filters, VectorMatch
from findsession.storage.sqlite.connection import Connection as Store
from findsession.storage.sqlite.filters import session_filter_sql

#: Candidates reranked exactly, at least; sign bits alone order near neighbours roughly.
CANDIDATES = 1000
#: Chunks whose int8 vectors a long-lived searcher keeps in memory (384 bytes each).
IN_MEMORY_CHUNKS = 400_000
KIND_CODES = {"turn": 0, "session": 1, "doc": 2}
_SPEAKER_FIELD = {"user": 1, "assistant": 2}
_BATCH = 100_000
#: Hamming distance given to chunks a filter excludes (real ones are at most `dims`).
_EXCLUDED = 65_535
#: Stands for a unit without a time: never inside an --after/--before range.
NO_TIME = -(2**62)


class VectorMatrix:
    """The in-memory part of the vector index, for one database at one generation."""

    _cache: ClassVar[dict[str, VectorMatrix]] = {}

    def __init__(self, store: Store, generation: str | None) -> None:
        self.generation = generation
        self.dims = int(store.setting("embedding_dims") or 0)
        self.searches = 0
        self.vectors: np.ndarray | None = None
        self.scales: np.ndarray | None = None
        words = (self.dims + 63) // 64
        # Integer columns computed by SQLite, read in batches straight into numpy: Python
        # tuples for two million rows at once cost a gigabyte.
        with store.snapshot():  # both reads see the same state
            units = _batched_ints(
                store.db.execute(
                    "SELECT u.id, CASE u.kind WHEN 'turn' THEN 0 WHEN 'session' THEN 1"
                    f" ELSE 2 END, coalesce(CAST(strftime('%s', u.ts) AS INTEGER), {NO_TIME}),"
                    " s.rowid FROM units u JOIN sessions s ON s.id = u.session_id ORDER BY u.id"
                ),
                4,
            )
            id_parts, code_parts = [], []
            cursor = store.db.execute(
                "SELECT id, unit_id,"
                " CASE field WHEN 'prompt' THEN 1 WHEN 'reply' THEN 2 ELSE 0 END, code"
                " FROM chunks"
            )
            width = words * 8
            while batch := list(islice(cursor, _BATCH)):
                id_parts.append(np.array([r[:3] for r in batch], dtype=np.int64))
                joined = b"".join(
                    r[3] if len(r[3]) == width else r[3].ljust(width, b"\0")[:width] for r in batch
                )
                # Column-major: the scan XORs one contiguous 64-bit word column at a time.
                code_parts.append(np.frombuffer(joined, dtype=np.uint64).reshape(-1, words).T)
        chunk_columns = np.concatenate(id_parts) if id_parts else np.zeros((0, 3), np.int64)
        self.chunk_ids = chunk_columns[:, 0].copy()
        self.unit_ids = chunk_columns[:, 1].copy()
        self.speaker = chunk_columns[:, 2].astype(np.int8)
        del chunk_columns, id_parts
        self.codes = (
            np.ascontiguousarray(np.concatenate(code_parts, axis=1))
            if code_parts
            else np.zeros((words, 0), np.uint64)
        )
        del code_parts
        # Each chunk takes its unit's kind, time and session.
        unit_order = units[:, 0]
        n = len(self.chunk_ids)
        at = np.clip(np.searchsorted(unit_order, self.unit_ids), 0, max(len(unit_order) - 1, 0))
        if len(unit_order):
            self.kind = units[at, 1].astype(np.int8)
            self.ts = units[at, 2]
            self.session = units[at, 3]
        else:
            self.kind = np.zeros(n, np.int8)
            self.ts = np.full(n, NO_TIME, np.int64)
            self.session = np.zeros(n, np.int64)

    @classmethod
    def current(cls, store: Store) -> VectorMatrix:
        """The matrix for `store`, reloaded only when an index run has changed vectors."""
        generation = store.setting("vector_generation")
        key = str(store.path)
        matrix = cls._cache.get(key)
        if matrix is None or matrix.generation != generation:
            matrix = cls._cache[key] = cls(store, generation)
        return matrix

    def _cosines(self, store: Store, query: np.ndarray, candidates: np.ndarray) -> np.ndarray:
        """Exact cosine of each candidate chunk; NaN for one that no longer exists.

        A long-lived searcher (the MCP server, a benchmark) keeps every int8 vector in
        memory after its first search, up to `IN_MEMORY_CHUNKS`; a one-shot CLI search
        reads only its candidates back from SQLite, which is cheaper than loading all.
        """
        self.searches += 1
        if self.vectors is None and self.searches > 1 and len(self) <= IN_MEMORY_CHUNKS:
            self._load_vectors(store)
        if self.vectors is not None:
            block = self.vectors[candidates].astype(np.float32)
            return (block @ query) * self.scales[candidates]
        out = np.full(len(candidates), np.nan, dtype=np.float32)
        where = {int(c): i for i, c in enumerate(self.chunk_ids[candidates])}
        for at in range(0, len(candidates), 900):
            ids = [int(x) for x in self.chunk_ids[candidates[at : at + 900]]]
            rows = store.query(
                f"SELECT id, scale, vec FROM chunks WHERE id IN ({','.join('?' * len(ids))})", ids
            )
            if not rows:
                continue
            block = np.frombuffer(b"".join(r[2] for r in rows), dtype=np.int8)
            block = block.reshape(len(rows), -1).astype(np.float32)
            scales = np.array([r[1] for r in rows], dtype=np.float32)
            out[[where[r[0]] for r in rows]] = (block @ query) * scales
        return out

    def _load_vectors(self, store: Store) -> None:
        rows = store.db.execute("SELECT id, scale, vec FROM chunks ORDER BY id").fetchall()
        ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        order = np.argsort(self.chunk_ids, kind="stable")
        if not np.array_equal(ids, self.chunk_ids[order]):
            return  # changed since the matrix was loaded; the next generation reloads
        vectors = np.frombuffer(b"".join(r[2] for r in rows), dtype=np.int8)
        vectors = vectors.reshape(len(rows), -1)
        scales = np.fromiter((r[1] for r in rows), dtype=np.float32, count=len(rows))
        inverse = np.empty_like(order)
        inverse[order] = np.arange(len(order))
        self.vectors, self.scales = vectors[inverse], scales[inverse]

    def __len__(self) -> int:
        return len(self.chunk_ids)

    def search(
        self, store: Store, query: np.ndarray, filters: Filters, limit: int
    ) -> list[VectorMatch]:
        """The best `limit` units by cosine to `query`, filters applied inside the scan."""
        mask = self._mask(store, filters)
        allowed = len(self) if mask is None else int(mask.sum())
        if allowed == 0:
            return []
        qcode = sign_codes(query[None, :])[0]
        distance = np.bitwise_count(self.codes[0] ^ qcode[0]).astype(np.uint16)
        for word in range(1, len(qcode)):
            distance += np.bitwise_count(self.codes[word] ^ qcode[word])
        if mask is not None:
            distance[~mask] = _EXCLUDED
        # Distances are small integers: a histogram finds the cut-off for the `take`
        # nearest in one pass, faster than a partial sort of millions.
        take = min(allowed, max(CANDIDATES, limit * 4))
        counts = np.cumsum(np.bincount(distance, minlength=_EXCLUDED + 1)[:_EXCLUDED])
        cutoff = int(np.searchsorted(counts, take))
        candidates = np.flatnonzero(distance <= min(cutoff, _EXCLUDED - 1))
        return self._rerank(store, query, candidates, limit)

    def _rerank(
        self, store: Store, query: np.ndarray, candidates: np.ndarray, limit: int
    ) -> list[VectorMatch]:
        cosines = self._cosines(store, query, candidates)
        live = ~np.isnan(cosines)  # chunks deleted since the matrix was loaded have none
        candidates, cosines = candidates[live], cosines[live]
        order = np.argsort(-cosines, kind="stable")
        units = self.unit_ids[candidates][order]
        _, first = np.unique(units, return_index=True)  # each unit's best chunk
        best = order[np.sort(first)][:limit]
        ranked = [
            (
                int(self.unit_ids[candidates[i]]),
                (float(cosines[i]), int(self.chunk_ids[candidates[i]])),
            )
            for i in best
        ]
        if not ranked:
            return []
        chunk_info = {
            r[0]: r[1:]
            for r in store.query(
                "SELECT c.id, u.session_id, u.kind, u.ordinal, c.field, c.start, c.end"
                " FROM chunks c JOIN units u ON u.id = c.unit_id WHERE c.id IN"
                f" ({','.join('?' * len(ranked))})",
                [chunk for _, (_, chunk) in ranked],
            )
        }
        matches = []
        for unit_id, (cosine, chunk_id) in ranked:
            info = chunk_info.get(chunk_id)
            if info is None:  # removed by a concurrent index run
                continue
            session_id, kind, ordinal, field, start, end = info
            matches.append(
                VectorMatch(unit_id, session_id, kind, ordinal, cosine, field, start, end)
            )
        return matches

    def _mask(self, store: Store, filters: Filters) -> np.ndarray | None:
        mask: np.ndarray | None = None

        def narrow(condition: np.ndarray) -> None:
            nonlocal mask
            mask = condition if mask is None else mask & condition

        if filters.kind:
            narrow(self.kind == KIND_CODES[filters.kind])
        if filters.speaker:
            narrow(self.speaker == _SPEAKER_FIELD[filters.speaker])
        if filters.after:
            narrow(self.ts >= _epoch(filters.after))
        if filters.before:
            narrow((self.ts < _epoch(filters.before)) & (self.ts != NO_TIME))
        where, params = session_filter_sql(filters)
        if params:
            wanted = [
                r[0] for r in store.query(f"SELECT s.rowid FROM sessions s WHERE {where}", params)
            ]
            narrow(np.isin(self.session, np.array(wanted, dtype=np.int64)))
        return mask


def _epoch(when: str) -> int:
    """Seconds since 1970 of a normalised UTC time ('YYYY-MM-DDTHH:MM:SSZ')."""
    return int(datetime.fromisoformat(when.replace("Z", "+00:00")).timestamp())


def _batched_ints(cursor: object, columns: int) -> np.ndarray:
    """All rows of an integer-only query as one int64 matrix, built batch by batch."""
    parts = []
    while batch := list(islice(cursor, _BATCH)):  # type: ignore[call-overload]
        parts.append(np.array(batch, dtype=np.int64).reshape(-1, columns))
    return np.concatenate(parts) if parts else np.zeros((0, columns), np.int64)


class VectorSearchMixin(Store):
    """The store's vector search (see findsession.storage.base.VectorIndex)."""

    def load_vectors(self) -> None:
        VectorMatrix.current(self)

    def vector_search(self, vector: np.ndarray, filters: Filters, limit: int) -> list[VectorMatch]:
        return VectorMatrix.current(self).search(self, vector, filters, limit)
