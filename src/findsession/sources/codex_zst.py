"""Codex's compressed rollouts (`rollout-*.jsonl.zst`): decompressed safely, read in slices.

Codex compresses a rollout once it is old, so a `.zst` file is never appended to: it is
read again only when its content hash changed (like `cursor.read_whole`). The
decompressed lines go through the same JSON-lines reader as a plain rollout, so a bad
line is reported by its number, and `SLICE_BYTES` of them at a time (`Reading.more`), as
a plain rollout is read: the records of one slice are stored before the next is parsed,
so a large rollout costs the memory of one slice, not of the whole (a million messages
held at once took 1.26 GB). The decompressed lines wait in a temporary file (on disk past
`_IN_MEMORY`) between the slices of one read, whose cursor's `at` says where the next
slice starts. A read cut by its budget keeps what it gave, and the rest is not read while
the file stays as it is.

Decompression is bounded: the input is fed in small pieces (one KiB of zstd can expand
to tens of MB) and output stops at `budget.expanded_bytes` of the file's size (250 times
it: 15 KB of zstd held a million valid messages), or as soon as it holds more lines than
the file's read budget lets be parsed, or the budget's time is up (`sources.budget`: a
few KB of zstd held millions of `{}` lines); the first cuts the read, which the indexer
reports for the file once its last slice is read. A corrupt or truncated frame becomes
one problem for the file, and the lines decoded before it are kept.
"""

from __future__ import annotations

import hashlib
import io
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import IO

from findsession.domain import Problem
from findsession.sources import budget
from findsession.sources.cursor import Cursor, Reading
from findsession.sources.jsonl import SLICE_BYTES, ParseLine, ReadStats, iter_objects

#: Decompressed bytes kept in memory before spilling to a temporary file.
_IN_MEMORY = 32 << 20
#: Compressed bytes fed to the decompressor at a time, which bounds each output burst.
_STEP = 1024
_READ = 1 << 20


def is_compressed(name: str) -> bool:
    return name.endswith(".zst")


def digest_of(fh: IO[bytes]) -> str:
    """A hash of the compressed bytes: unchanged bytes need no decompressing."""
    fh.seek(0)
    h = hashlib.blake2b(digest_size=16)
    while chunk := fh.read(_READ):
        h.update(chunk)
    return "blake2b:" + h.hexdigest()


@dataclass
class Stopped:
    """Why decompression stopped early: a broken file (a problem of the file's), or a
    cap on decompressed bytes (a cut of its read)."""

    problem: str | None = None
    cut: str | None = None


@contextmanager
def decompressed(fh: IO[bytes]) -> Iterator[tuple[IO[bytes], Stopped]]:
    """A seekable file of the decompressed lines, and why decompression stopped early."""
    with tempfile.SpooledTemporaryFile(max_size=_IN_MEMORY) as out:
        stopped = _decompress(fh, out, _limit(fh), budget.current())
        out.seek(0)
        yield out, stopped  # type: ignore[misc]


def _limit(fh: IO[bytes]) -> int:
    """What the open file may be decompressed to (`budget.expanded_bytes`)."""
    return budget.expanded_bytes(os.fstat(fh.fileno()).st_size)


def _decompress(fh: IO[bytes], out: IO[bytes], limit: int, spend: budget.Budget) -> Stopped:
    # Imported here, not with the module: every index run imports every source, and
    # only compressed rollouts (and Zed's threads) need the decompressor.
    import zstandard

    fh.seek(0)
    written = lines = 0
    dobj = zstandard.ZstdDecompressor().decompressobj()
    mid_frame = False
    try:
        while block := fh.read(_READ):
            for start in range(0, len(block), _STEP):
                piece = block[start : start + _STEP]
                while piece:
                    data = dobj.decompress(piece)
                    mid_frame = True
                    if written + len(data) > limit:
                        out.write(data[: limit - written])
                        return Stopped(cut=_too_big(fh, limit))
                    out.write(data)
                    written += len(data)
                    lines += data.count(b"\n")
                    if lines > spend.lines_left or not spend.in_time():
                        return Stopped()  # the parser stops at the budget and says why
                    piece = b""
                    if dobj.eof:
                        # Frames may follow one another; each needs a fresh decompressor.
                        piece = dobj.unused_data
                        dobj = zstandard.ZstdDecompressor().decompressobj()
                        mid_frame = False
    except zstandard.ZstdError as exc:
        return Stopped(problem=f"corrupt zstd data: {exc}")
    return Stopped(problem="truncated zstd file: its last frame ends early" if mid_frame else None)


def _too_big(fh: IO[bytes], limit: int) -> str:
    try:
        size = os.fstat(fh.fileno()).st_size
    except (OSError, io.UnsupportedOperation):  # a blob held in memory (`inflate`)
        size = len(fh.getbuffer()) if isinstance(fh, io.BytesIO) else None
    if size is None or limit >= budget.MAX_DECOMPRESSED:
        return f"over {limit >> 20:,} MB decompressed"
    if limit > budget.MAX_EXPANSION * size:  # the floor every small file gets
        return f"over {limit >> 20:,} MB decompressed from {size / 1e3:,.1f} KB"
    return (
        f"over {limit / 1e6:,.1f} MB decompressed, {budget.MAX_EXPANSION} times its"
        f" {size / 1e3:,.1f} KB"
    )


def inflate(data: bytes) -> tuple[bytes, Stopped]:
    """One zstd blob held in memory (a database's compressed column), decompressed under
    the same caps as a file (`budget.expanded_bytes` of its own size): its bytes, and
    why decompression stopped early."""
    out = io.BytesIO()
    limit = budget.expanded_bytes(len(data))
    stopped = _decompress(io.BytesIO(data), out, limit, budget.current())
    return out.getvalue(), stopped


def read_compressed(fh: IO[bytes], cursor: Cursor | None, parse: ParseLine) -> Reading:
    """The records of a compressed rollout's next slice: from its start, unless its bytes
    hash to the cursor's digest; then from where the cursor's `at` says the slice before
    ended, or nothing (unchanged) when the read ended."""
    digest = digest_of(fh)
    size = fh.tell()
    at = _resumed_at(cursor, digest)
    if cursor is not None and at is None:
        return Reading([], Cursor(offset=size, lines=0, digest=digest), fresh=False, unchanged=True)
    held = _held(fh, digest)
    start, first_line = (at, cursor.lines) if at and cursor is not None else (0, 0)
    stats = ReadStats(end_offset=start, end_line=first_line)
    records = [
        rec
        for n, obj in iter_objects(held.lines, start, first_line, stats, max_bytes=SLICE_BYTES)
        for rec in parse(n, obj)
    ]
    spend = budget.current()
    problems = stats.problems
    if stats.more and spend.cut is None:  # a slice's end: the next slice goes on from it
        through = min(size - 1, stats.end_offset * size // max(held.length, 1))
        end = Cursor(through, stats.end_line, digest, {"at": stats.end_offset})
    else:
        _release()
        if held.stopped.problem:
            problems.append(Problem(stats.end_line + 1, held.stopped.problem))
        if held.stopped.cut:
            spend.stop(held.stopped.cut)
        end = Cursor(offset=size, lines=stats.end_line, digest=digest)
    return Reading(
        records,
        end,
        fresh=not start,
        bytes_read=size if not start else 0,
        lines_read=stats.lines_read,
        problems=problems,
        more=stats.more,
    )


def _resumed_at(cursor: Cursor | None, digest: str) -> int | None:
    """Where the slice before of a read of these same bytes ended (0: from the start);
    None when that read ended."""
    if cursor is None or cursor.digest != digest:
        return 0
    at = (cursor.state or {}).get("at")
    return at if isinstance(at, int) and at > 0 else None


@dataclass
class _Held:
    """The decompressed lines of the file being read, kept between its slices."""

    digest: str
    lines: IO[bytes]
    length: int
    stopped: Stopped


#: At most one file's lines are held: the one the indexer is reading.
_holding: list[_Held] = []


def _held(fh: IO[bytes], digest: str) -> _Held:
    """This file's decompressed lines: those held since its previous slice, else its bytes
    decompressed now (a file read on from an earlier run is decompressed again)."""
    if _holding and _holding[0].digest == digest:
        return _holding[0]
    _release()
    lines = tempfile.SpooledTemporaryFile(max_size=_IN_MEMORY)  # noqa: SIM115 - kept open
    stopped = _decompress(fh, lines, _limit(fh), budget.current())
    length = lines.tell()
    lines.seek(0)
    _holding.append(_Held(digest, lines, length, stopped))  # type: ignore[arg-type]
    return _holding[0]


def _release() -> None:
    while _holding:
        _holding.pop().lines.close()
