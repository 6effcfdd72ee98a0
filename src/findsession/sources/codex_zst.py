"""Codex's compressed rollouts (`rollout-*.jsonl.zst`): decompressed safely, read whole.

Codex compresses a rollout once it is old, so a `.zst` file is never appended to: it is
read again, whole, only when its content hash changed (like `cursor.read_whole`). The
decompressed lines go through the same JSON-lines reader as a plain rollout, so a bad
line is reported by its number. Decompression is bounded: the input is fed in small
pieces (one KiB of zstd can expand to tens of MB) and output stops at
`MAX_DECOMPRESSED`, or as soon as it holds more lines than the file's read budget lets
be parsed, or the budget's time is up (`sources.budget`: a few KB of zstd held millions
of `{}` lines); either cuts the read, which the indexer reports for the file. A corrupt
or truncated frame becomes one problem for the file, and the lines decoded before it are
kept.
"""

from __future__ import annotations

import hashlib
import io
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import IO

import zstandard

from findsession.domain import Problem
from findsession.sources import budget
from findsession.sources.cursor import Cursor, Reading
from findsession.sources.jsonl import ParseLine, ReadStats, iter_objects

#: Decompressed bytes read from one file at most; the rest is reported, not read.
MAX_DECOMPRESSED = 1 << 30
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
def decompressed(
    fh: IO[bytes], limit: int = MAX_DECOMPRESSED
) -> Iterator[tuple[IO[bytes], Stopped]]:
    """A seekable file of the decompressed lines, and why decompression stopped early."""
    with tempfile.SpooledTemporaryFile(max_size=_IN_MEMORY) as out:
        stopped = _decompress(fh, out, limit, budget.current())
        out.seek(0)
        yield out, stopped  # type: ignore[misc]


def _decompress(fh: IO[bytes], out: IO[bytes], limit: int, spend: budget.Budget) -> Stopped:
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
                        return Stopped(cut=f"over {limit >> 20} MB decompressed")
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


def inflate(data: bytes, limit: int = MAX_DECOMPRESSED) -> tuple[bytes, Stopped]:
    """One zstd blob held in memory (a database's compressed column), decompressed under
    the same caps as a file: its bytes, and why decompression stopped early."""
    out = io.BytesIO()
    stopped = _decompress(io.BytesIO(data), out, limit, budget.current())
    return out.getvalue(), stopped


def read_compressed(fh: IO[bytes], cursor: Cursor | None, parse: ParseLine) -> Reading:
    """Every record of a compressed rollout, unless its bytes hash to the cursor's digest."""
    digest = digest_of(fh)
    size = fh.tell()
    now = Cursor(offset=size, lines=0, digest=digest)
    if cursor is not None and cursor.digest == digest:
        return Reading([], now, fresh=False, unchanged=True)
    with decompressed(fh) as (lines, stopped):
        stats = ReadStats(end_offset=0, end_line=0)
        records = [rec for n, obj in iter_objects(lines, 0, 0, stats) for rec in parse(n, obj)]
    problems = stats.problems
    if stopped.problem:
        problems.append(Problem(stats.end_line + 1, stopped.problem))
    if stopped.cut:
        budget.current().stop(stopped.cut)
    return Reading(
        records,
        Cursor(offset=size, lines=stats.end_line, digest=digest),
        fresh=True,
        bytes_read=size,
        lines_read=stats.lines_read,
        problems=problems,
    )
