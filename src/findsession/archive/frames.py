"""The archive's file format: one file per transcript, its bytes as zstd frames.

A file opens with a header, a zstd skippable frame naming the format and the transcript
(its path and source). Then, for each span of the transcript's bytes the index read, a
record (another skippable frame: which bytes, `start` to `end`; the size of the zstd
frame after it; how many bytes before `start` that frame was compressed against; and a
digest of the last 32 KiB up to `end`) and the zstd frame of those bytes, which carries
zstd's own checksum of them. A run that read 300 new bytes of a transcript adds one
record and one small frame: nothing written before is read or written again.

A frame after the first is compressed with the 32 KiB before it as its dictionary: one
turn's lines repeat the session's ids, paths and field names, and alone compress to
about half their size, against what came before to a seventh. The next read checks the
transcript still holds the bytes the last record's digest covers before it adds a frame
compressed against them (a file rewritten before its cursor is archived whole again
instead). Reading a file back goes from its first frame on and checks each as it comes:
zstd's checksum of its bytes, their length, and the digest of its last 32 KiB.

A span may be provisional: bytes past the source's cursor (a half-written last line, an
Aider run still going on), which the next read of the file reads again; the next keep
replaces it, so the archive ends where the transcript ended when it was last read.
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TypeAlias

import zstandard

#: Skippable-frame magic numbers (zstd keeps 0x184D2A50 to 0x184D2A5F for such frames).
HEAD_MAGIC = 0x184D2A5E
SPAN_MAGIC = 0x184D2A5F
FORMAT = b"findsession-archive 1\n"
_FRAME_HEAD = struct.Struct("<II")
#: start, end, frame size, dictionary length, flags, tail digest.
_SPAN = struct.Struct("<QQQIB8s")
PROVISIONAL = 1
#: The bytes before a frame that it is compressed against.
WINDOW = 32 << 10
#: The most one frame holds: reading back costs the memory of one frame.
FRAME_BYTES = 16 << 20
LEVEL = 1


#: Bytes, or a view of a buffer read into.
Buffer: TypeAlias = bytes | memoryview


class Damaged(Exception):
    """An archived file that cannot be read back as it was written; the message says where."""


@dataclass(frozen=True, slots=True)
class Span:
    """One record and its frame, as found in an archived file."""

    at: int  # where its record starts in the archived file
    start: int
    end: int
    frame: int
    dict_len: int
    flags: int
    #: A digest of the last `WINDOW` bytes up to `end`: the next frame's dictionary.
    tail: bytes

    @property
    def after(self) -> int:
        """Where the next record starts."""
        return self.at + _FRAME_HEAD.size + _SPAN.size + self.frame

    @property
    def provisional(self) -> bool:
        return bool(self.flags & PROVISIONAL)


@dataclass(frozen=True, slots=True)
class Layout:
    """An archived file as scanned: its transcript, its whole records, and where they end."""

    path: str
    source: str
    header_end: int
    spans: list[Span]
    #: Where the last whole record ends: bytes past it are a write cut short.
    clean_end: int

    @property
    def end(self) -> int:
        """The transcript's bytes it holds: 0 to this."""
        return self.spans[-1].end if self.spans else 0


def header(path: str, source: str) -> bytes:
    body = FORMAT + json.dumps({"path": path, "source": source}).encode()
    return _FRAME_HEAD.pack(HEAD_MAGIC, len(body)) + body


def scan(fd: int) -> Layout | None:
    """The layout of the archived file open on `fd`; None when it holds no header (new,
    or cut short before its header was whole). Reads the records' heads only."""
    size = os.fstat(fd).st_size
    head = os.pread(fd, _FRAME_HEAD.size, 0)
    if len(head) < _FRAME_HEAD.size:
        return None
    magic, length = _FRAME_HEAD.unpack(head)
    body = os.pread(fd, length, _FRAME_HEAD.size) if magic == HEAD_MAGIC else b""
    if magic != HEAD_MAGIC or len(body) < length or not body.startswith(FORMAT):
        if size > _FRAME_HEAD.size + len(FORMAT) + 2:
            raise Damaged("its header is not findsession's")
        return None
    try:
        named = json.loads(body[len(FORMAT) :])
        path, source = str(named["path"]), str(named["source"])
    except (ValueError, KeyError, TypeError) as exc:
        raise Damaged("its header does not name a transcript") from exc
    at = header_end = _FRAME_HEAD.size + length
    spans: list[Span] = []
    while True:
        raw = os.pread(fd, _FRAME_HEAD.size + _SPAN.size, at)
        if len(raw) < _FRAME_HEAD.size + _SPAN.size:
            break
        magic, length = _FRAME_HEAD.unpack_from(raw)
        if magic != SPAN_MAGIC or length != _SPAN.size:
            break
        span = Span(at, *_SPAN.unpack_from(raw, _FRAME_HEAD.size))
        if span.start != (spans[-1].end if spans else 0) or span.end <= span.start:
            break
        if span.frame == 0 or span.after > size or span.dict_len > min(span.start, WINDOW):
            break
        spans.append(span)
        at = span.after
    return Layout(path, source, header_end, spans, at)


def record(start: int, data: Buffer, before: bytes, provisional: bool) -> bytes:
    """The record and frame of `data` (the transcript's bytes from `start`), compressed
    against `before` (the bytes just before it, at most `WINDOW`)."""
    if before:
        raw = zstandard.ZstdCompressionDict(before, dict_type=zstandard.DICT_TYPE_RAWCONTENT)
        compressor = zstandard.ZstdCompressor(level=LEVEL, dict_data=raw, write_checksum=True)
    else:
        compressor = _PLAIN
    frame = compressor.compress(data)
    flags = PROVISIONAL if provisional else 0
    end = start + len(data)
    fields = (start, end, len(frame), len(before), flags, tail_digest(before, data))
    return _FRAME_HEAD.pack(SPAN_MAGIC, _SPAN.size) + _SPAN.pack(*fields) + frame


def tail_digest(before: bytes, data: Buffer) -> bytes:
    """The digest of the last `WINDOW` bytes of `before` followed by `data`."""
    if len(data) >= WINDOW:
        return _digest(data[len(data) - WINDOW :])
    return _digest((before + bytes(data))[-WINDOW:])


_PLAIN = zstandard.ZstdCompressor(level=LEVEL, write_checksum=True)


def contents(fd: int, layout: Layout) -> Iterator[bytes]:
    """The transcript's bytes, frame by frame, each checked before it is given: zstd's
    checksum of it, its length and its tail against its record; `Damaged` at the first
    that fails."""
    if layout.clean_end != os.fstat(fd).st_size:
        raise Damaged(
            f"it holds {os.fstat(fd).st_size - layout.clean_end} bytes no record accounts for"
        )
    tail = b""
    for span in layout.spans:
        before = tail[len(tail) - span.dict_len :] if span.dict_len else b""
        frame = os.pread(fd, span.frame, span.after - span.frame)
        try:
            if before:
                dictionary = zstandard.ZstdCompressionDict(
                    before, dict_type=zstandard.DICT_TYPE_RAWCONTENT
                )
                data = zstandard.ZstdDecompressor(dict_data=dictionary).decompress(frame)
            else:
                data = zstandard.ZstdDecompressor().decompress(frame)
        except zstandard.ZstdError as exc:
            raise Damaged(
                f"the frame of bytes {span.start}-{span.end} does not decompress"
            ) from exc
        if len(data) != span.end - span.start or tail_digest(tail, data) != span.tail:
            raise Damaged(f"bytes {span.start}-{span.end} are not the bytes that were archived")
        tail = (tail + data)[-WINDOW:]
        yield data


def _digest(data: Buffer) -> bytes:
    return hashlib.sha256(data).digest()[:8]
