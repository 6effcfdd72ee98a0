"""Vector retrieval: a sign-bit scan of every chunk in memory, then an exact rerank.

sqlite-vec's vec0 scans (its PyPI build has no SIMD) took 62 ms for 100k sign-bit
vectors on the target machine, so a million would miss a 100 ms budget by far. Here the
sign bits (48 bytes per 384-dim vector) and the few columns the filters need live in
numpy arrays (`vector_arrays`), loaded from the pack with one read and kept current
from the log of changed units (`vector_pack`); Hamming distance picks a few thousand
candidates, whose int8 vectors are read back from SQLite (or held in memory by a
long-lived searcher) and scored by exact cosine. Filters are masks applied before the
candidates are picked, so a filtered search never loses the hits of the chosen session
to a global top-k.
"""

from __future__ import annotations

import threading
from collections import Counter
from dataclasses import replace
from datetime import datetime
from typing import ClassVar

import numpy as np

from findsession.quantize import sign_codes
from findsession.storage.base import Filters, VectorMatch
from findsession.storage.sql.filters import session_filter_sql
from findsession.storage.sqlite import vector_pack
from findsession.storage.sqlite.connection import Connection as Store
from findsession.storage.sqlite.vector_arrays import ChunkArrays, holding_vectors, in_room
from findsession.storage.sqlite.vector_rows import KIND_CODES, NO_TIME, SPEAKER_CODES

#: Candidates reranked exactly, at least; sign bits alone order near neighbours roughly.
CANDIDATES = 1000
#: Chunks whose int8 vectors a long-lived searcher keeps in memory (384 bytes each): 38 MB.
#: Reading a search's ~1,000 candidates back from SQLite costs 3-4 ms more (measured at
#: 476k chunks); holding 400k of them cost 150 MB of a searcher's 300 MB budget, half of
#: which the model takes.
IN_MEMORY_CHUNKS = 100_000
#: Hamming distance given to chunks a filter excludes (real ones are at most `dims`).
_EXCLUDED = 65_535


class VectorMatrix:
    """The in-memory part of the vector index for one database, kept current.

    `current` asks the log where it stands before every search (one small read) and
    brings the arrays up to date (see `vector_pack`); a search in another thread keeps
    the arrays it started with, since they are replaced, never changed.
    """

    _cache: ClassVar[dict[str, VectorMatrix]] = {}
    #: How this process's matrices were built, by `Loaded.origin`: what a test of the
    #: live path and the benchmark read.
    builds: ClassVar[Counter[str]] = Counter()
    #: One refresh at a time: new chunks are written into the room after the arrays.
    _refreshing: ClassVar[threading.Lock] = threading.Lock()

    def __init__(self, loaded: vector_pack.Loaded, searches: int = 0) -> None:
        self.loaded = loaded
        self.searches = searches

    @property
    def arrays(self) -> ChunkArrays:
        return self.loaded.arrays

    @classmethod
    def current(cls, store: Store) -> VectorMatrix:
        """The matrix for `store`, with the chunks changed since its last use applied."""
        key = str(store.path)
        if store.db.in_transaction:  # may roll back: what it reads is not for keeping
            return cls(vector_pack.current(store, None))
        with cls._refreshing:
            matrix = cls._cache.get(key)
            loaded = vector_pack.current(store, matrix.loaded if matrix else None)
            if matrix is not None and loaded is matrix.loaded:
                return matrix
            cls.builds[loaded.origin] += 1
            matrix = cls._cache[key] = cls(loaded, matrix.searches if matrix else 0)
            return matrix

    def _cosines(
        self, store: Store, arrays: ChunkArrays, query: np.ndarray, candidates: np.ndarray
    ) -> np.ndarray:
        """Exact cosine of each candidate chunk; NaN for one that no longer exists.

        A long-lived searcher (the MCP server, a benchmark) keeps every int8 vector in
        memory after its first search, up to `IN_MEMORY_CHUNKS`; a one-shot CLI search
        reads only its candidates back from SQLite, which is cheaper than loading all.
        """
        self.searches += 1
        if arrays.vectors is None and self.searches > 1 and len(arrays) <= IN_MEMORY_CHUNKS:
            arrays = self._load_vectors(store, arrays)
        if arrays.vectors is not None and arrays.scales is not None:
            block = arrays.vectors[candidates].astype(np.float32)
            return (block @ query) * arrays.scales[candidates]
        out = np.full(len(candidates), np.nan, dtype=np.float32)
        where = {int(c): i for i, c in enumerate(arrays.chunk_ids[candidates])}
        for at in range(0, len(candidates), 900):
            ids = [int(x) for x in arrays.chunk_ids[candidates[at : at + 900]]]
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

    def _load_vectors(self, store: Store, arrays: ChunkArrays) -> ChunkArrays:
        """`arrays` with every int8 vector; unchanged if the index moved on meanwhile
        (the next search brings the arrays up to date first, then loads)."""
        loaded = self.loaded
        with store.snapshot():
            if loaded.arrays is not arrays or vector_pack.log_state(store).seq != loaded.seq:
                return arrays
            rows = store.db.execute("SELECT id, scale, vec FROM chunks ORDER BY id").fetchall()
        ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        if not np.array_equal(ids, arrays.chunk_ids):
            return arrays
        vectors = np.frombuffer(b"".join(r[2] for r in rows), dtype=np.int8)
        scales = np.fromiter((r[1] for r in rows), dtype=np.float32, count=len(rows))
        arrays = in_room(holding_vectors(arrays, vectors.reshape(len(rows), -1), scales))
        self.loaded = replace(loaded, arrays=arrays)
        return arrays

    def __len__(self) -> int:
        return len(self.arrays)

    def search(
        self, store: Store, query: np.ndarray, filters: Filters, limit: int
    ) -> list[VectorMatch]:
        """The best `limit` units by cosine to `query`, filters applied inside the scan."""
        arrays = self.arrays  # one set throughout, whatever another thread replaces
        mask = _mask(store, arrays, filters)
        allowed = len(arrays) if mask is None else int(mask.sum())
        if allowed == 0:
            return []
        qcode = sign_codes(query[None, :])[0]
        codes = arrays.codes
        distance = np.bitwise_count(codes[0] ^ qcode[0]).astype(np.uint16)
        for word in range(1, len(qcode)):
            distance += np.bitwise_count(codes[word] ^ qcode[word])
        if mask is not None:
            distance[~mask] = _EXCLUDED
        # Distances are small integers: a histogram finds the cut-off for the `take`
        # nearest in one pass, faster than a partial sort of millions.
        take = min(allowed, max(CANDIDATES, limit * 4))
        counts = np.cumsum(np.bincount(distance, minlength=_EXCLUDED + 1)[:_EXCLUDED])
        cutoff = int(np.searchsorted(counts, take))
        candidates = np.flatnonzero(distance <= min(cutoff, _EXCLUDED - 1))
        return self._rerank(store, arrays, query, candidates, limit)

    def _rerank(
        self,
        store: Store,
        arrays: ChunkArrays,
        query: np.ndarray,
        candidates: np.ndarray,
        limit: int,
    ) -> list[VectorMatch]:
        cosines = self._cosines(store, arrays, query, candidates)
        live = ~np.isnan(cosines)  # chunks deleted since the matrix was loaded have none
        candidates, cosines = candidates[live], cosines[live]
        order = np.argsort(-cosines, kind="stable")
        units = arrays.unit_ids[candidates][order]
        _, first = np.unique(units, return_index=True)  # each unit's best chunk
        best = order[np.sort(first)][:limit]
        ranked = [
            (
                int(arrays.unit_ids[candidates[i]]),
                (float(cosines[i]), int(arrays.chunk_ids[candidates[i]])),
            )
            for i in best
        ]
        if not ranked:
            return []
        chunk_info = {
            r[0]: r[1:]
            for r in store.query(
                "SELECT c.id, u.session_id, u.kind, u.ordinal, c.field, c.span_start, c.span_end"
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


def _mask(store: Store, arrays: ChunkArrays, filters: Filters) -> np.ndarray | None:
    mask: np.ndarray | None = None

    def narrow(condition: np.ndarray) -> None:
        nonlocal mask
        mask = condition if mask is None else mask & condition

    if filters.kind:
        narrow(arrays.kind == KIND_CODES[filters.kind])
    if filters.speaker:
        narrow(arrays.speaker == SPEAKER_CODES[filters.speaker])
    if filters.after:
        narrow(arrays.ts >= _epoch(filters.after))
    if filters.before:
        narrow((arrays.ts < _epoch(filters.before)) & (arrays.ts != NO_TIME))
    where, params = session_filter_sql(store, filters)
    if params:
        positions = arrays.session_positions
        wanted = [
            positions[r[0]]
            for r in store.query(f"SELECT s.id FROM sessions s WHERE {where}", params)
            if r[0] in positions
        ]
        narrow(np.isin(arrays.session, np.array(wanted, dtype=np.int32)))
    return mask


def _epoch(when: str) -> int:
    """Seconds since 1970 of a normalised UTC time ('YYYY-MM-DDTHH:MM:SSZ')."""
    return int(datetime.fromisoformat(when.replace("Z", "+00:00")).timestamp())
