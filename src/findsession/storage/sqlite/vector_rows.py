"""The vector scan's arrays read from the `chunks` and `units` rows.

`scan_all` reads every row: seconds at a quarter of a million units, so it runs only when
there is no pack. `read_changes` reads the chunks of the units the log names since a
point: what an index run of a few seconds leaves, in milliseconds.
"""

from __future__ import annotations

from itertools import islice
from typing import Any

import numpy as np

from findsession.storage.sqlite.connection import Connection as Store
from findsession.storage.sqlite.vector_arrays import ChunkArrays, codes_of

KIND_CODES = {"turn": 0, "session": 1, "doc": 2}
#: The chunk's field as the speaker filter sees it: prompt 1 (user), reply 2, title 0.
SPEAKER_CODES = {"user": 1, "assistant": 2}
#: Stands for a unit without a time: never inside an --after/--before range.
NO_TIME = -(2**62)
_BATCH = 100_000
_KIND_SQL = "CASE u.kind WHEN 'turn' THEN 0 WHEN 'session' THEN 1 ELSE 2 END"
_TS_SQL = f"coalesce(CAST(strftime('%s', u.ts) AS INTEGER), {NO_TIME})"
_FIELD_SQL = "CASE c.field WHEN 'prompt' THEN 1 WHEN 'reply' THEN 2 ELSE 0 END"


def scan_all(store: Store, dims: int) -> ChunkArrays:
    """Every chunk from its row; call inside one snapshot so the reads agree."""
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
    cursor = store.db.execute(
        f"SELECT c.id, c.unit_id, {_FIELD_SQL}, c.code FROM chunks c ORDER BY c.id"
    )
    while batch := list(islice(cursor, _BATCH)):
        id_parts.append(np.array([r[:3] for r in batch], dtype=np.int64))
        code_parts.append(codes_of([r[3] for r in batch], words))
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
    their vectors) as `with_changes` takes them, in chunk id order; inside one snapshot."""
    changed = store.query("SELECT DISTINCT unit_id FROM vector_log WHERE seq > ?", (since,))
    rows = store.query(
        f"SELECT c.id, c.unit_id, {_FIELD_SQL}, {_KIND_SQL}, {_TS_SQL}, u.session_id, c.code,"
        " c.scale, c.vec FROM chunks c JOIN units u ON u.id = c.unit_id WHERE c.unit_id IN"
        " (SELECT unit_id FROM vector_log WHERE seq > ?) ORDER BY c.id",
        (since,),
    )
    return np.array([r[0] for r in changed], dtype=np.int64), rows


def _batched_ints(cursor: Any, columns: int) -> np.ndarray:
    """All rows of an integer-only query as one int64 matrix, built batch by batch."""
    parts = []
    while batch := list(islice(cursor, _BATCH)):
        parts.append(np.array(batch, dtype=np.int64).reshape(-1, columns))
    return np.concatenate(parts) if parts else np.zeros((0, columns), np.int64)
