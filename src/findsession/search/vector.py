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
from typing import ClassVar

import numpy as np

from findsession.search.filters import SearchOptions, session_filter_sql
from findsession.store import Store
from findsession.vectors import sign_codes

#: Candidates reranked exactly, at least; sign bits alone order near neighbours roughly.
CANDIDATES = 1000
KIND_CODES = {"turn": 0, "session": 1, "doc": 2}
SPEAKER_CODES = {"title": 0, "prompt": 1, "reply": 2}
_SPEAKER_FIELD = {"user": 1, "assistant": 2}
_READ_ROWS = 65536


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
        n = int(store.scalar("SELECT count(*) FROM chunks"))
        words = (self.dims + 63) // 64
        self.chunk_ids = np.empty(n, dtype=np.int64)
        self.unit_ids = np.empty(n, dtype=np.int64)
        self.codes = np.empty((n, words), dtype=np.uint64)
        self.speaker = np.empty(n, dtype=np.int8)
        self.kind = np.empty(n, dtype=np.int8)
        self.session = np.empty(n, dtype=np.int32)
        self.sessions: list[str] = []
        positions: dict[str, int] = {}
        stamps: list[str] = []
        cursor = store.db.execute(
            "SELECT c.id, c.unit_id, c.field, c.code, u.kind, u.ts, u.session_id"
            " FROM chunks c JOIN units u ON u.id = c.unit_id"
        )
        i = 0
        code_bytes = bytearray()
        for chunk_id, unit_id, field, code, kind, ts, session_id in cursor:
            if i >= n:  # rows added after the count by a concurrent writer
                break
            self.chunk_ids[i] = chunk_id
            self.unit_ids[i] = unit_id
            self.speaker[i] = SPEAKER_CODES.get(field, 0)
            self.kind[i] = KIND_CODES.get(kind, 0)
            pos = positions.get(session_id)
            if pos is None:
                pos = positions[session_id] = len(self.sessions)
                self.sessions.append(session_id)
            self.session[i] = pos
            stamps.append(ts[:19] if ts else "NaT")
            code_bytes += code.ljust(words * 8, b"\0")
            i += 1
        self._resize(i)
        self.codes = np.frombuffer(bytes(code_bytes), dtype=np.uint64).reshape(i, words)
        self.ts = np.array(stamps, dtype="datetime64[s]")
        self.positions = positions

    def _resize(self, n: int) -> None:
        for name in ("chunk_ids", "unit_ids", "speaker", "kind", "session"):
            setattr(self, name, getattr(self, name)[:n])

    @classmethod
    def current(cls, store: Store) -> VectorMatrix:
        """The matrix for `store`, reloaded only when an index run has changed vectors."""
        generation = store.setting("vector_generation")
        key = str(store.path)
        matrix = cls._cache.get(key)
        if matrix is None or matrix.generation != generation:
            matrix = cls._cache[key] = cls(store, generation)
        return matrix

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
        take = min(allowed, max(CANDIDATES, limit * 8))
        if take < len(distance):
            candidates = np.argpartition(distance, take - 1)[:take]
        else:
            candidates = np.flatnonzero(distance < np.iinfo(np.int32).max)
        return self._rerank(store, query, candidates, limit)

    def _rerank(
        self, store: Store, query: np.ndarray, candidates: np.ndarray, limit: int
    ) -> list[VectorMatch]:
        scores: dict[int, float] = {}
        for at in range(0, len(candidates), 900):
            ids = [int(x) for x in self.chunk_ids[candidates[at : at + 900]]]
            marks = ",".join("?" * len(ids))
            rows = store.query(f"SELECT id, scale, vec FROM chunks WHERE id IN ({marks})", ids)
            if not rows:
                continue
            matrix = np.frombuffer(b"".join(r[2] for r in rows), dtype=np.int8)
            matrix = matrix.reshape(len(rows), -1).astype(np.float32)
            scales = np.array([r[1] for r in rows], dtype=np.float32)
            cosines = (matrix @ query) * scales
            scores.update(zip((r[0] for r in rows), cosines.tolist(), strict=True))
        best: dict[int, tuple[float, int]] = {}
        unit_of = dict(
            zip(
                self.chunk_ids[candidates].tolist(), self.unit_ids[candidates].tolist(), strict=True
            )
        )
        for chunk_id, cosine in scores.items():
            unit_id = unit_of[chunk_id]
            if unit_id not in best or cosine > best[unit_id][0]:
                best[unit_id] = (cosine, chunk_id)
        ranked = sorted(best.items(), key=lambda kv: -kv[1][0])[:limit]
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
            narrow(self.ts >= np.datetime64(opts.after[:19]))
        if opts.before:
            narrow(self.ts < np.datetime64(opts.before[:19]))
        where, params = session_filter_sql(opts)
        if params:
            wanted = [
                self.positions[r[0]]
                for r in store.query(f"SELECT s.id FROM sessions s WHERE {where}", params)
                if r[0] in self.positions
            ]
            narrow(np.isin(self.session, np.array(wanted, dtype=np.int32)))
        return mask
