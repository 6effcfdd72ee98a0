"""Codex's compressed rollouts (`rollout-*.jsonl.zst`): decompressed safely, read whole.

Codex compresses a rollout once it is old, so a `.zst` file is never appended to: it is
read again, whole, only when its content hash changed (like `cursor.read_whole`). The
decompressed lines go through the same JSON-lines reader as a plain rollout, so a bad
line is reported by its number. Decompression is bounded: the input is fed in small
pieces (one KiB of zstd can expand to tens of MB) and output stops at
`MAX_DECOMPRESSED`; a corrupt or truncated frame becomes one problem for the file, and
the lines decoded before it are kept.
"""

from __future__ import annotations

import hashlib
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO

import zstandard

from findsession.domain import Problem
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


@contextmanager
def decompressed(
    fh: IO[bytes], limit: int = MAX_DECOMPRESSED
) -> Iterator[tuple[IO[bytes], str | None]]:
    """A seekable file of the decompressed lines, and why decompression stopped early
    (None when it did not)."""
    with tempfile.SpooledTemporaryFile(max_size=_IN_MEMORY) as out:
        problem = _decompress(fh, out, limit)
        out.seek(0)
        yield out, problem  # type: ignore[misc]


def _decompress(fh: IO[bytes], out: IO[bytes], limit: int) -> str | None:
    fh.seek(0)
    written = 0
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
                        return f"over {limit >> 20} MB decompressed; the rest is not read"
                    out.write(data)
                    written += len(data)
                    piece = b""
                    if dobj.eof:
                        # Frames may follow one another; each needs a fresh decompressor.
                        piece = dobj.unused_data
                        dobj = zstandard.ZstdDecompressor().decompressobj()
                        mid_frame = False
    except zstandard.ZstdError as exc:
        return f"corrupt zstd data: {exc}"
    return "truncated zstd file: its last frame ends early" if mid_frame else None


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
    if stopped:
        problems.append(Problem(stats.end_line + 1, stopped))
    return Reading(
        records,
        Cursor(offset=size, lines=stats.end_line, digest=digest),
        fresh=True,
        bytes_read=size,
        lines_read=stats.lines_read,
        problems=problems,
    )
