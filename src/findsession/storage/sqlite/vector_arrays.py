"""The arrays the vector scan reads, one entry per chunk, and the ways they are built.

A chunk's sign bits and the values the filters test (its unit, its field, its unit's
kind, time and session) sit in numpy arrays in chunk id order. They are built from every
row (`scan_all`: seconds at a quarter of a million units), from the pack (`decode`: one
blob), or from older arrays plus the chunks of the units changed since (`with_changes`:
what an index run of a few seconds leaves behind costs milliseconds).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from functools import cached_property
from itertools import islice
from typing import Any

import numpy as np

from findsession.storage.sqlite.connection import Connection as Store

KIND_CODES = {"turn": 0, "session": 1, "doc": 2}
#: The chunk's field as the speaker filter sees it: prompt 1 (user), reply 2, title 0.
SPEAKER_CODES = {"user": 1, "assistant": 2}
#: Stands for a unit without a time: never inside an --after/--before range.
NO_TIME = -(2**62)
_BATCH = 100_000
_KIND_SQL = "CASE u.kind WHEN 'turn' THEN 0 WHEN 'session' THEN 1 ELSE 2 END"
_TS_SQL = f"coalesce(CAST(strftime('%s', u.ts) AS INTEGER), {NO_TIME})"
_FIELD_SQL = "CASE c.field WHEN 'prompt' THEN 1 WHEN 'reply' THEN 2 ELSE 0 END"
#: The per-chunk columns, in the pack's order (the sign bits and sessions follow).
COLUMNS = ("chunk_ids", "unit_ids", "speaker", "kind", "ts", "session")
_MAGIC = b"FSVPACK1"


@dataclass(frozen=True, eq=False)
class ChunkArrays:
    """Every chunk's scan columns, ascending by chunk id; never changed once built (a
    search in another thread may be reading them), only replaced."""

    chunk_ids: np.ndarray  # int64
    unit_ids: np.ndarray  # int64
    speaker: np.ndarray  # int8, SPEAKER_CODES
    kind: np.ndarray  # int8, KIND_CODES
    ts: np.ndarray  # int64 seconds, NO_TIME for none
    session: np.ndarray  # int32: a position in `sessions`
    codes: np.ndarray  # uint64 (words, chunks): column-major, one word column at a time
    sessions: tuple[str, ...]  # session ids by position (stable: a session's rowid is not)
    #: Every chunk's int8 vector and scale, for a long-lived searcher; None: read from SQLite.
    vectors: np.ndarray | None = None
    scales: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.chunk_ids)

    @cached_property
    def session_positions(self) -> dict[str, int]:
        return {s: i for i, s in enumerate(self.sessions)}

    @classmethod
    def empty(cls, dims: int) -> ChunkArrays:
        none = np.zeros(0, np.int64)
        words = (dims + 63) // 64
        return cls(
            none,
            none,
            none.astype(np.int8),
            none.astype(np.int8),
            none,
            none.astype(np.int32),
            np.zeros((words, 0), np.uint64),
            (),
        )


def scan_all(store: Store, dims: int) -> ChunkArrays:
    """Every chunk from its row; call inside one snapshot so both reads agree."""
    words = (dims + 63) // 64
    sessions = store.query("SELECT rowid, id FROM sessions ORDER BY rowid")
    session_rowids = np.array([r[0] for r in sessions], dtype=np.int64)
    # Integer columns computed by SQLite, read in batches straight into numpy: Python
    # tuples for two million rows at once cost a gigabyte.
    units = _batched_ints(
        store.db.execute(
            f"SELECT u.id, {_KIND_SQL}, {_TS_SQL}, s.rowid"
            " FROM units u JOIN sessions s ON s.id = u.session_id ORDER BY u.id"
        ),
        4,
    )
    id_parts, code_parts = [], []
    cursor = store.db.execute(f"SELECT c.id, c.unit_id, {_FIELD_SQL}, c.code FROM chunks c")
    while batch := list(islice(cursor, _BATCH)):
        id_parts.append(np.array([r[:3] for r in batch], dtype=np.int64))
        code_parts.append(_codes([r[3] for r in batch], words))
    if not id_parts:
        return ChunkArrays.empty(dims)
    columns = np.concatenate(id_parts)
    del id_parts
    codes = np.ascontiguousarray(np.concatenate(code_parts, axis=1))
    del code_parts
    unit_ids = columns[:, 1].copy()
    # Each chunk takes its unit's kind, time and session.
    at = np.clip(np.searchsorted(units[:, 0], unit_ids), 0, max(len(units) - 1, 0))
    if len(units):
        kind, ts = units[at, 1].astype(np.int8), units[at, 2]
        session = np.searchsorted(session_rowids, units[at, 3]).astype(np.int32)
    else:
        kind, ts = np.zeros(len(unit_ids), np.int8), np.full(len(unit_ids), NO_TIME)
        session = np.zeros(len(unit_ids), np.int32)
    names = tuple(r[1] for r in sessions)
    speaker = columns[:, 2].astype(np.int8)
    return ChunkArrays(columns[:, 0].copy(), unit_ids, speaker, kind, ts, session, codes, names)


def read_changes(store: Store, since: int) -> tuple[np.ndarray, list[tuple[Any, ...]]]:
    """The units logged as changed after `since`, and the chunks they have now (with
    their vectors), in chunk id order; call inside one snapshot."""
    changed = store.query("SELECT DISTINCT unit_id FROM vector_log WHERE seq > ?", (since,))
    rows = store.query(
        f"SELECT c.id, c.unit_id, {_FIELD_SQL}, {_KIND_SQL}, {_TS_SQL}, u.session_id, c.code,"
        " c.scale, c.vec FROM chunks c JOIN units u ON u.id = c.unit_id WHERE c.unit_id IN"
        " (SELECT unit_id FROM vector_log WHERE seq > ?) ORDER BY c.id",
        (since,),
    )
    return np.array([r[0] for r in changed], dtype=np.int64), rows


def with_changes(
    old: ChunkArrays, changed_units: np.ndarray, rows: list[tuple[Any, ...]]
) -> ChunkArrays:
    """`old` without the chunks of `changed_units`, plus `rows` (their chunks now)."""
    keep = ~np.isin(old.unit_ids, changed_units) if len(changed_units) else None

    def kept(a: np.ndarray) -> np.ndarray:
        return a if keep is None else a[keep]

    positions = old.session_positions
    added = [s for s in dict.fromkeys(r[5] for r in rows) if s not in positions]
    if added:
        positions = {**positions, **{s: len(old.sessions) + i for i, s in enumerate(added)}}
    width = old.codes.shape[0]
    kept_codes = old.codes if keep is None else old.codes[:, keep]
    new = ChunkArrays(
        np.concatenate([kept(old.chunk_ids), np.array([r[0] for r in rows], np.int64)]),
        np.concatenate([kept(old.unit_ids), np.array([r[1] for r in rows], np.int64)]),
        np.concatenate([kept(old.speaker), np.array([r[2] for r in rows], np.int8)]),
        np.concatenate([kept(old.kind), np.array([r[3] for r in rows], np.int8)]),
        np.concatenate([kept(old.ts), np.array([r[4] for r in rows], np.int64)]),
        np.concatenate([kept(old.session), np.array([positions[r[5]] for r in rows], np.int32)]),
        np.concatenate([kept_codes, _codes([r[6] for r in rows], width)], axis=1),
        old.sessions + tuple(added),
    )
    if old.vectors is not None and old.scales is not None:
        vecs = np.frombuffer(b"".join(r[8] for r in rows), np.int8).reshape(len(rows), -1)
        new = replace(
            new,
            vectors=np.concatenate([kept(old.vectors), vecs]),
            scales=np.concatenate([kept(old.scales), np.array([r[7] for r in rows], np.float32)]),
        )
    return _in_id_order(new)


def _in_id_order(arrays: ChunkArrays) -> ChunkArrays:
    """Sorted by chunk id again: SQLite gives a new row the highest id plus one, so an id
    freed at the top is reused, and a reused id lands among the old ones. The order
    decides which of two equal cosines ranks first, so it must not depend on history."""
    ids = arrays.chunk_ids
    if len(ids) < 2 or bool(np.all(ids[1:] > ids[:-1])):
        return arrays
    order = np.argsort(ids, kind="stable")
    return replace(
        arrays,
        **{name: getattr(arrays, name)[order] for name in COLUMNS},
        codes=np.ascontiguousarray(arrays.codes[:, order]),
        vectors=None if arrays.vectors is None else arrays.vectors[order],
        scales=None if arrays.scales is None else arrays.scales[order],
    )


def encode(arrays: ChunkArrays) -> bytes:
    """The columns, sign bits and session ids as one blob (a header, then raw arrays)."""
    parts = {name: getattr(arrays, name) for name in COLUMNS}
    parts["codes"] = arrays.codes
    parts["sessions"] = np.frombuffer(json.dumps(arrays.sessions).encode(), np.uint8)
    header: dict[str, list[Any]] = {}
    offset = 0
    for name, a in parts.items():
        header[name] = [a.dtype.str, list(a.shape), offset]
        offset += _padded(a.nbytes)
    head = json.dumps(header).encode()
    head += b" " * (_padded(len(head)) - len(head))
    out = [_MAGIC, len(head).to_bytes(8, "little"), head]
    for a in parts.values():
        raw = np.ascontiguousarray(a).tobytes()
        out.append(raw + b"\0" * (_padded(len(raw)) - len(raw)))
    return b"".join(out)


def decode(blob: bytes) -> ChunkArrays:
    """The arrays of `encode`, as read-only views of `blob` (no copy)."""
    if blob[:8] != _MAGIC:
        raise ValueError("not a vector pack")
    size = int.from_bytes(blob[8:16], "little")
    header = json.loads(blob[16 : 16 + size])
    start = 16 + size
    parts = {}
    for name, (dtype, shape, offset) in header.items():
        count = int(np.prod(shape)) if shape else 1
        parts[name] = np.frombuffer(blob, dtype, count, start + offset).reshape(shape)
    sessions = tuple(json.loads(parts.pop("sessions").tobytes()))
    return ChunkArrays(**parts, sessions=sessions)


def _padded(n: int) -> int:
    return (n + 7) // 8 * 8


def _codes(blobs: list[bytes], words: int) -> np.ndarray:
    """Sign-bit blobs as a (words, n) uint64 matrix (a short or long blob is fitted)."""
    width = words * 8
    joined = b"".join(b if len(b) == width else b.ljust(width, b"\0")[:width] for b in blobs)
    return np.frombuffer(joined, dtype=np.uint64).reshape(-1, words).T


def _batched_ints(cursor: Any, columns: int) -> np.ndarray:
    """All rows of an integer-only query as one int64 matrix, built batch by batch."""
    parts = []
    while batch := list(islice(cursor, _BATCH)):
        parts.append(np.array(batch, dtype=np.int64).reshape(-1, columns))
    return np.concatenate(parts) if parts else np.zeros((0, columns), np.int64)
