"""Adding what one read of a transcript covered to its archived copy.

The indexer says where its read began (`start`: 0 when it read the file from the top),
where the source's cursor now stands (`committed`: the bytes the next read will not
read again) and hands over the open file. The copy keeps its records that end by
`start`, drops the rest (a provisional tail, or records a rolled-back run wrote), and
adds the transcript's bytes from there: up to `committed` for good, the rest of the
file as provisional. An append of a few lines therefore costs those lines; only a file
read from the top is archived whole again.

The bytes come from the file the source just read (`os.pread`: its pages are still in
memory), never from its path again, so they are the bytes the index saw.
"""

from __future__ import annotations

import os
import threading

from findsession.archive import frames
from findsession.archive.folder import Folder, key_of

#: The first bytes of every SQLite database: another agent's store is not copied whole.
SQLITE = b"SQLite format 3\x00"
#: The most kept past the cursor: a half-written line, an Aider run still going on.
PROVISIONAL_MAX = 8 << 20


def is_database(fd: int) -> bool:
    return os.pread(fd, len(SQLITE), 0) == SQLITE


def keep(folder: Folder, path: str, source: str, fd: int, start: int, committed: int) -> int:
    """Bring the archived copy of `path` up to what was just read of it from the open
    file `fd`; the bytes written to the archive (0: nothing to add, or not kept)."""
    key = key_of(path)
    if key in folder.forgotten() or is_database(fd):
        return 0
    size = os.fstat(fd).st_size
    committed = min(committed, size)
    with folder.opened(key, create=True) as out:
        assert out is not None
        try:
            layout = frames.scan(out)
        except frames.Damaged:
            layout = None  # written again from the transcript, which is still here
        kept = _kept(fd, layout, path, start)
        have = kept.end if kept else 0
        at = kept.after if kept else _restart(out, path, source)
        _cut(out, at)
        written = at
        # A long unread rest (a read cut at its budget) waits for the reads that take it.
        rest = size if size - committed <= PROVISIONAL_MAX else committed
        for low, high, provisional in (
            (have, committed, False),
            (max(have, committed), rest, True),
        ):
            at = _append(fd, out, at, low, high, provisional)
        return at - written


def _kept(fd: int, layout: frames.Layout | None, path: str, start: int) -> frames.Span | None:
    """The last record the copy keeps: those that end by `start`, before any provisional
    one, if the transcript still holds the bytes the last of them ends with (a file
    rewritten before its cursor is archived whole again); None to start afresh."""
    if layout is None or layout.path != path or start <= 0:
        return None
    last = None
    for span in layout.spans:
        if span.provisional or span.end > start:
            break
        last = span
    if last is None:
        return None
    before = _read(fd, max(0, last.end - frames.WINDOW), last.end)
    return last if frames.tail_digest(b"", before) == last.tail else None


def _restart(out: int, path: str, source: str) -> int:
    """The copy emptied down to its header; where records go."""
    head = frames.header(path, source)
    _cut(out, 0)
    _write(out, head, 0)
    return len(head)


def _cut(out: int, at: int) -> None:
    """The copy ended at `at`: a truncation only when it is longer (each one is a
    metadata write of the file system, a new copy's thousands of them a second of a
    first index)."""
    if os.fstat(out).st_size > at:
        os.ftruncate(out, at)


def _append(fd: int, out: int, at: int, low: int, high: int, provisional: bool) -> int:
    """Records for the transcript's bytes `low` to `high`, written at `at` of the
    archived file; where they end."""
    if low >= high:
        return at
    before = _read(fd, max(0, low - frames.WINDOW), low) if low else b""
    position = low
    while position < high:
        data = _read_into(fd, position, min(high, position + frames.FRAME_BYTES))
        if not data:
            break  # the file shrank since it was read: the next read says what it is
        record = frames.record(position, data, before, provisional)
        _write(out, record, at)
        at += len(record)
        position += len(data)
        before = bytes(data[len(data) - frames.WINDOW :])
    return at


#: One buffer the transcripts' bytes are read into, frame after frame: a new one per
#: file cost the indexer a page fault for every 4 KiB of every transcript.
_BUFFER = bytearray()
_LOCK = threading.Lock()


def _read_into(fd: int, low: int, high: int) -> memoryview:
    """The file's bytes `low` to `high` (fewer if it ends first), in the shared buffer:
    valid until the next call."""
    global _BUFFER
    with _LOCK:
        if len(_BUFFER) < high - low:
            _BUFFER = bytearray(high - low)
        view = memoryview(_BUFFER)[: high - low]
    done = 0
    while done < len(view):
        n = os.preadv(fd, [view[done:]], low + done)
        if not n:
            break
        done += n
    return view[:done]


def _write(out: int, data: bytes, at: int) -> None:
    view = memoryview(data)
    while view:
        done = os.pwrite(out, view, at)
        view, at = view[done:], at + done


def _read(fd: int, low: int, high: int) -> bytes:
    parts = []
    while low < high:
        part = os.pread(fd, high - low, low)
        if not part:
            break
        parts.append(part)
        low += len(part)
    return b"".join(parts)
