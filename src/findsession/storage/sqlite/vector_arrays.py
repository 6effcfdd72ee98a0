"""The arrays the vector scan reads, one entry per chunk, and how changes enter them.

A chunk's sign bits and the values the filters test (its unit, its field, its unit's
kind, time and session) sit in numpy arrays in chunk id order, built from the rows
(`vector_rows`) or the pack (`vector_pack`). After an index run, `with_changes` drops the
chunks of the units that changed and adds their chunks now. New units only (what a live
session's appended turns bring) are written into spare room after the last entry, so a
search still reading the arrays before keeps seeing exactly them and nothing is copied;
a dropped chunk or an id out of order builds the arrays anew.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

import numpy as np

#: The per-chunk columns (the chunk axis first), then the sign bits (the chunk axis second).
COLUMNS = ("chunk_ids", "unit_ids", "speaker", "kind", "ts", "session")
_OPTIONAL = ("vectors", "scales")
#: Spare room made when the arrays are built anew: a share of their length, at least this.
_SPARE_SHARE = 0.125
_SPARE_MIN = 4096


@dataclass(frozen=True, eq=False)
class ChunkArrays:
    """Every chunk's scan columns, ascending by chunk id. Never changed once built (a
    search in another thread may be reading them): changes make new ones."""

    chunk_ids: np.ndarray  # int64
    unit_ids: np.ndarray  # int64
    speaker: np.ndarray  # int8: 0 title, 1 prompt (user), 2 reply (assistant)
    kind: np.ndarray  # int8: turn 0, session 1, doc 2
    ts: np.ndarray  # int64 seconds; NO_TIME for none
    session: np.ndarray  # int32: a position in `sessions`
    codes: np.ndarray  # uint64 (words, chunks): one word column at a time for the scan
    sessions: tuple[str, ...]  # session ids by position (stable: a session's rowid is not)
    #: Every chunk's int8 vector and scale, for a long-lived searcher; None: read from SQLite.
    vectors: np.ndarray | None = None
    scales: np.ndarray | None = None
    #: The storage these arrays are the first `len` entries of, with room after them.
    room: Room | None = field(default=None, repr=False)

    def __len__(self) -> int:
        return len(self.chunk_ids)

    @cached_property
    def session_positions(self) -> dict[str, int]:
        return {s: i for i, s in enumerate(self.sessions)}

    def parts(self) -> dict[str, np.ndarray]:
        """The arrays by name, the held vectors included."""
        names = [*COLUMNS, "codes", *_OPTIONAL]
        return {n: getattr(self, n) for n in names if getattr(self, n) is not None}

    @classmethod
    def empty(cls, dims: int) -> ChunkArrays:
        none = np.zeros(0, np.int64)
        small = np.zeros(0, np.int8)
        codes = np.zeros(((dims + 63) // 64, 0), np.uint64)
        return cls(none, none, small, small, none, np.zeros(0, np.int32), codes, ())


class Room:
    """Arrays longer than the entries in use. The first `used` entries belong to the
    newest ChunkArrays made from it; only one of that length may write after them."""

    def __init__(self, specs: dict[str, tuple[Any, tuple[int, ...]]], length: int) -> None:
        """Empty storage for `length` entries of arrays of these dtypes and shapes (the
        chunk axis as given), and room after them; the caller fills it, or `write`s."""
        self.capacity = length + max(_SPARE_MIN, int(length * _SPARE_SHARE))
        self.buffers = {}
        for name, (dtype, shape) in specs.items():
            sized = list(shape)
            sized[_axis(name)] = self.capacity
            self.buffers[name] = np.empty(sized, dtype)
        self.used = 0

    @classmethod
    def holding(cls, parts: dict[str, np.ndarray]) -> Room:
        room = cls({n: (a.dtype, a.shape) for n, a in parts.items()}, len(parts["chunk_ids"]))
        room.write(parts)
        return room

    def write(self, parts: dict[str, np.ndarray]) -> None:
        start, end = self.used, self.used + len(parts["chunk_ids"])
        for name, part in parts.items():
            if _axis(name):
                self.buffers[name][:, start:end] = part
            else:
                self.buffers[name][start:end] = part
        self.used = end

    def views(self, sessions: tuple[str, ...], positions: dict[str, int]) -> ChunkArrays:
        n = self.used
        views = {k: (b[:, :n] if _axis(k) else b[:n]) for k, b in self.buffers.items()}
        arrays = ChunkArrays(**views, sessions=sessions, room=self)
        arrays.__dict__["session_positions"] = positions  # known already: not built again
        return arrays


def in_room(arrays: ChunkArrays) -> ChunkArrays:
    """`arrays` copied into storage with spare room for what comes after."""
    return Room.holding(arrays.parts()).views(arrays.sessions, arrays.session_positions)


def with_changes(
    old: ChunkArrays, changed_units: np.ndarray, rows: list[tuple[Any, ...]]
) -> ChunkArrays:
    """`old` without the chunks of `changed_units`, plus `rows`: their chunks now, in id
    order, as (id, unit, speaker, kind, ts, session id, code, scale, vec)."""
    drop = np.isin(old.unit_ids, changed_units) if len(changed_units) else None
    if drop is not None and not drop.any():
        drop = None
    positions = old.session_positions
    added = [s for s in dict.fromkeys(r[5] for r in rows) if s not in positions]
    if added:
        positions = {**positions, **{s: len(old.sessions) + i for i, s in enumerate(added)}}
    sessions = old.sessions + tuple(added)
    new = _rows_as_parts(rows, positions, old)
    n = len(old)
    room = old.room
    in_order = not rows or not n or rows[0][0] > old.chunk_ids[-1]
    if (
        drop is None
        and in_order
        and room is not None
        and room.used == n  # nothing was written after these arrays yet
        and n + len(rows) <= room.capacity
        and room.buffers.keys() == new.keys()
    ):
        room.write(new)
        return room.views(sessions, positions)
    kept = old.parts() if drop is None else _without(old.parts(), ~drop)
    joined = {k: np.concatenate([kept[k], new[k]], axis=_axis(k)) for k in kept}
    if not in_order:
        joined = _in_id_order(joined)
    return Room.holding(joined).views(sessions, positions)


def holding_vectors(arrays: ChunkArrays, vectors: np.ndarray, scales: np.ndarray) -> ChunkArrays:
    """`arrays` with every chunk's int8 vector and scale (in its order)."""
    with_vectors = replace(arrays, vectors=vectors, scales=scales, room=None)
    with_vectors.__dict__["session_positions"] = arrays.session_positions
    return with_vectors


def _rows_as_parts(
    rows: list[tuple[Any, ...]], positions: dict[str, int], like: ChunkArrays
) -> dict[str, np.ndarray]:
    words = like.codes.shape[0]
    parts = {
        "chunk_ids": np.array([r[0] for r in rows], np.int64),
        "unit_ids": np.array([r[1] for r in rows], np.int64),
        "speaker": np.array([r[2] for r in rows], np.int8),
        "kind": np.array([r[3] for r in rows], np.int8),
        "ts": np.array([r[4] for r in rows], np.int64),
        "session": np.array([positions[r[5]] for r in rows], np.int32),
        "codes": codes_of([r[6] for r in rows], words),
    }
    if like.vectors is not None:
        dims = like.vectors.shape[1]
        vecs = np.frombuffer(b"".join(r[8] for r in rows), np.int8)
        parts["vectors"] = vecs.reshape(len(rows), dims)
        parts["scales"] = np.array([r[7] for r in rows], np.float32)
    return parts


def codes_of(blobs: list[bytes], words: int) -> np.ndarray:
    """Sign-bit blobs as a (words, n) uint64 matrix (a short or long blob is fitted)."""
    width = words * 8
    joined = b"".join(b if len(b) == width else b.ljust(width, b"\0")[:width] for b in blobs)
    return np.frombuffer(joined, dtype=np.uint64).reshape(-1, words).T


def _without(parts: dict[str, np.ndarray], keep: np.ndarray) -> dict[str, np.ndarray]:
    return {k: (a[:, keep] if _axis(k) else a[keep]) for k, a in parts.items()}


def _in_id_order(parts: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Sorted by chunk id again: SQLite gives a new row the highest id plus one, so an id
    freed at the top is reused, and a reused id lands among the old ones. The order
    decides which of two equal cosines ranks first, so it must not depend on history."""
    order = np.argsort(parts["chunk_ids"], kind="stable")
    return {k: (a[:, order] if _axis(k) else a[order]) for k, a in parts.items()}


def _axis(name: str) -> int:
    """The chunk axis of an array: the sign bits are stored one word column per row."""
    return 1 if name == "codes" else 0
