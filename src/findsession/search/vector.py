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

from dataclasses import dataclass
from datetime import datetime
from typing import ClassVar

import numpy as np

from findsession.search.filters import SearchOptions, session_filter_sql
from findsession.store import Store
from findsession.vectors import sign_codes

#: Candidates reranked exactly, at least; sign bits alone order near neighbours roughly.
CANDIDATES = 1000
#: Chunks whose int8 vectors a long-lived searcher keeps in memory (384 bytes each).
IN_MEMORY_CHUNKS = 400_000
KIND_CODES = {"turn": 0, "session": 1, "doc": 2}
_SPEAKER_FIELD = {"user": 1, "assistant": 2}
#: Stands for a unit without a time: never inside an --after/--before range.
NO_TIME = -(2**62)


@dataclass(frozen=True, slots=True)
class VectorMatch:
    """One unit found by meaning, with the chunk that matched it best."""

    unit_id: int
    session_id: str
    kind: str
    ordinal: int
    cosine: float
    field: str
    start: int
    end: int


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
        # Integer columns only, computed by SQLite: the load is one pass in C per value,
        # not Python work per row (a million chunks must load in about a second).
        with store.snapshot():  # both reads see the same state
            units = store.db.execute(
                "SELECT u.id, CASE u.kind WHEN 'turn' THEN 0 WHEN 'session' THEN 1 ELSE 2 END,"
                f" coalesce(CAST(strftime('%s', u.ts) AS INTEGER), {NO_TIME}), s.rowid"
                " FROM units u JOIN sessions s ON s.id = u.session_id ORDER BY u.id"
            ).fetchall()
            chunks = store.db.execute(
                "SELECT id, unit_id,"
                " CASE field WHEN 'prompt' THEN 1 WHEN 'reply' THEN 2 ELSE 0 END, code"
                " FROM chunks"
            ).fetchall()
        unit_columns = np.array(units, dtype=np.int64).reshape(-1, 4)
        unit_order = unit_columns[:, 0]
        n = len(chunks)
        ids, owners, speakers, codes = zip(*chunks, strict=True) if n else ((), (), (), ())
        self.chunk_ids = np.fromiter(ids, dtype=np.int64, count=n)
        self.unit_ids = np.fromiter(owners, dtype=np.int64, count=n)
        self.speaker = np.fromiter(speakers, dtype=np.int8, count=n)
        width = words * 8
        joined = b"".join(c if len(c) == width else c.ljust(width, b"\0")[:width] for c in codes)
        self.codes = np.frombuffer(joined, dtype=np.uint64).reshape(n, words)
        # Each chunk takes its unit's kind, time and session; chunks whose unit vanished
        # between the two reads cannot happen inside one snapshot, but stay harmless.
        at = np.clip(np.searchsorted(unit_order, self.unit_ids), 0, max(len(unit_order) - 1, 0))
        if len(unit_order):
            self.kind = unit_columns[at, 1].astype(np.int8)
            self.ts = unit_columns[at, 2]
            self.session = unit_columns[at, 3]
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
        self, store: Store, query: np.ndarray, opts: SearchOptions, limit: int
    ) -> list[VectorMatch]:
        """The best `limit` units by cosine to `query`, filters applied inside the scan."""
        mask = self._mask(store, opts)
        allowed = len(self) if mask is None else int(mask.sum())
        if allowed == 0:
            return []
        qcode = sign_codes(query[None, :])[0]
        distance = np.bitwise_count(self.codes ^ qcode).sum(axis=1, dtype=np.int32)
        if mask is not None:
            distance[~mask] = np.iinfo(np.int32).max
        take = min(allowed, max(CANDIDATES, limit * 4))
        if take < len(distance):
            candidates = np.argpartition(distance, take - 1)[:take]
        else:
            candidates = np.flatnonzero(distance < np.iinfo(np.int32).max)
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

    def _mask(self, store: Store, opts: SearchOptions) -> np.ndarray | None:
        mask: np.ndarray | None = None

        def narrow(condition: np.ndarray) -> None:
            nonlocal mask
            mask = condition if mask is None else mask & condition

        if opts.kind:
            narrow(self.kind == KIND_CODES[opts.kind])
        if opts.speaker:
            narrow(self.speaker == _SPEAKER_FIELD[opts.speaker])
        if opts.after:
            narrow(self.ts >= _epoch(opts.after))
        if opts.before:
            narrow((self.ts < _epoch(opts.before)) & (self.ts != NO_TIME))
        where, params = session_filter_sql(opts)
        if params:
            wanted = [
                r[0] for r in store.query(f"SELECT s.rowid FROM sessions s WHERE {where}", params)
            ]
            narrow(np.isin(self.session, np.array(wanted, dtype=np.int64)))
        return mask


def _epoch(when: str) -> int:
    """Seconds since 1970 of a normalised UTC time ('YYYY-MM-DDTHH:MM:SSZ')."""
    return int(datetime.fromisoformat(when.replace("Z", "+00:00")).timestamp())
