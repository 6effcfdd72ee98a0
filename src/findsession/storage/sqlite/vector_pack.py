"""The vector scan's arrays kept in the index, and kept current in a searcher.

A cold process loads the pack (one row, one read) and then the chunks of the units the
log names since the pack was written. A warm one, after an index run, loads only those
changes; a unit whose text changed loses its old chunks on the way. The pack is written
again by an embedding run once the changes since it grow large (`write_pack`), which
prunes the log up to the pack before it: every searcher that kept up still finds the
changes it has not seen, one that fell further behind loads the pack again.

`vector_epoch` (a random token) names one life of the vectors: a new index file or
vectors cleared for another model start a new one, and nothing carries across it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import numpy as np

from findsession.storage.sqlite.connection import Connection as Store
from findsession.storage.sqlite.vector_arrays import (
    COLUMNS,
    ChunkArrays,
    Room,
    in_room,
    with_changes,
)
from findsession.storage.sqlite.vector_rows import read_changes, scan_all

#: A searcher loads the changes since its arrays while they are fewer than this share
#: of its chunks (or this many); past that, a newer pack is cheaper to load.
CHANGES_SHARE = 0.25
CHANGES_MIN = 20_000
#: An embedding run writes the pack again when the logged changes since it exceed this
#: share of its chunks (or this many): a cold searcher then loads at most that on top.
REPACK_SHARE = 0.05
REPACK_MIN = 5_000


@dataclass(frozen=True, eq=False)
class Loaded:
    """Arrays and the point of the log they include; `origin` says how they were built:
    "scan" (every row), "pack" (the pack and the changes after it) or "changes" (the
    arrays before plus the changes since)."""

    arrays: ChunkArrays
    seq: int
    epoch: str
    dims: int
    origin: str


@dataclass(frozen=True)
class LogState:
    seq: int
    floor: int  # the log before this was pruned
    epoch: str
    dims: int


def log_state(store: Store) -> LogState:
    """Where the log stands: one small read, made before every search."""
    row = store.query(
        "SELECT (SELECT seq FROM sqlite_sequence WHERE name = 'vector_log'),"
        " (SELECT value FROM settings WHERE key = 'vector_log_floor'),"
        " (SELECT value FROM settings WHERE key = 'vector_epoch'),"
        " (SELECT value FROM settings WHERE key = 'embedding_dims')"
    )[0]
    return LogState(int(row[0] or 0), int(row[1] or 0), row[2] or "", int(row[3] or 0))


def current(store: Store, have: Loaded | None) -> Loaded:
    """The arrays as the index holds them now: `have` itself when nothing changed."""
    with store.snapshot():
        state = log_state(store)
        usable = (
            have is not None
            and have.epoch == state.epoch
            and have.dims == state.dims
            and have.seq >= state.floor
        )
        if usable and have is not None:
            if have.seq == state.seq:
                return have
            pending = store.scalar("SELECT count(*) FROM vector_log WHERE seq > ?", (have.seq,))
            pack_seq = store.scalar("SELECT log_seq FROM vector_pack")
            if (
                pending <= max(CHANGES_MIN, CHANGES_SHARE * len(have.arrays))
                or pack_seq is None
                or pack_seq <= have.seq
            ):
                return _changed(store, have, state, "changes")
        pack = store.query("SELECT log_seq, dims FROM vector_pack")
        if pack and pack[0][1] == state.dims and pack[0][0] >= state.floor:
            packed = Loaded(read_pack(store), pack[0][0], state.epoch, state.dims, "pack")
            return packed if packed.seq == state.seq else _changed(store, packed, state, "pack")
        arrays = in_room(scan_all(store, state.dims))
        return Loaded(arrays, state.seq, state.epoch, state.dims, "scan")


def _changed(store: Store, have: Loaded, state: LogState, origin: str) -> Loaded:
    units, rows = read_changes(store, have.seq)
    arrays = with_changes(have.arrays, units, rows)
    return Loaded(arrays, state.seq, state.epoch, state.dims, origin)


def write_pack(store: Store) -> bool:
    """Write the pack when there is none (and there are vectors) or the changes since it
    grew large; prune the log up to the pack before. Call inside a write transaction.

    Returns whether it wrote. A searcher's arrays in this process are not used: they may
    be written after (their room) by its own refresh, and what this transaction reads
    would be wrong for them if it rolled back.
    """
    old = store.query("SELECT log_seq, chunks FROM vector_pack")
    if old:
        pending = store.scalar("SELECT count(*) FROM vector_log WHERE seq > ?", (old[0][0],))
        if pending < max(REPACK_MIN, REPACK_SHARE * old[0][1]):
            return False
    elif not store.scalar("SELECT EXISTS (SELECT 1 FROM chunks)"):
        return False
    loaded = current(store, None)
    store.db.execute(
        "INSERT OR REPLACE INTO vector_pack (id, log_seq, dims, chunks, data)"
        " VALUES (1, ?, ?, ?, ?)",
        (loaded.seq, loaded.dims, len(loaded.arrays), encode(loaded.arrays)),
    )
    if old:  # a searcher that kept up stands past the old pack: it still finds its changes
        store.db.execute("DELETE FROM vector_log WHERE seq <= ?", (old[0][0],))
        store.set_setting("vector_log_floor", str(old[0][0]))
    return True


def drop_pack(store: Store) -> None:
    """Forget the pack and the log, and start a new epoch (every vector was dropped)."""
    store.db.execute("DELETE FROM vector_pack")
    store.db.execute("DELETE FROM vector_log")
    new_epoch(store)


def new_epoch(store: Store) -> None:
    store.db.execute(
        "INSERT OR REPLACE INTO settings (key, value)"
        " VALUES ('vector_epoch', lower(hex(randomblob(8))))"
    )


_MAGIC = b"FSVPACK1"


def encode(arrays: ChunkArrays) -> bytes:
    """The columns, sign bits and session ids as one blob: a JSON header that says where
    each array lies, then the raw arrays, each 8-byte aligned."""
    parts = {name: getattr(arrays, name) for name in (*COLUMNS, "codes")}
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


def read_pack(store: Store) -> ChunkArrays:
    """The pack's arrays read straight into storage with room after them: no copy of the
    blob is made (158 MB at 2M chunks), each array's bytes go where they will stay."""
    blob = store.db.blob_open("main", "vector_pack", "data", 1, False)
    try:
        if blob.read(8) != _MAGIC:
            raise ValueError("not a vector pack")
        size = int.from_bytes(blob.read(8), "little")
        header = json.loads(blob.read(size))
        start = 16 + size
        dtype, shape, offset = header.pop("sessions")
        blob.seek(start + offset)
        sessions = tuple(json.loads(blob.read(int(np.prod(shape)))))
        length = header["chunk_ids"][1][0]
        room = Room({n: (np.dtype(d), tuple(sh)) for n, (d, sh, _) in header.items()}, length)
        for name, (_, shape, offset) in header.items():
            target = room.buffers[name]
            rows = (
                [target[w, :length] for w in range(shape[0])]
                if name == "codes"
                else [target[:length]]
            )
            for row in rows:  # the sign bits: one word column after the other
                if not row.nbytes:
                    continue
                blob.seek(start + offset)
                blob.read_into(memoryview(row.view(np.uint8)).cast("B"))
                offset += row.nbytes
        room.used = length
    finally:
        blob.close()
    return room.views(sessions, {s: i for i, s in enumerate(sessions)})


def _padded(n: int) -> int:
    return (n + 7) // 8 * 8
