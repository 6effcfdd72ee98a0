"""Cut a range of bytes out of a file in place, while its agent may append to it.

An agent holds its transcript open with `O_APPEND` for as long as the session runs. A
file written anew and renamed over the transcript leaves that descriptor on the old,
unlinked file: every line the agent writes afterwards is lost, and a transcript that is a
symbolic link becomes a regular file. So the bytes are taken out of the file itself,
through the descriptor the guards checked, never by name.

Taking bytes out of the middle means moving what follows them and then shortening the
file, and `ftruncate` is not conditional: a line appended between the last look at the
size and the cut would be cut off with it. Where the file system can drop whole blocks
from inside a file (`fallocate` with `FALLOC_FL_COLLAPSE_RANGE`: ext4, XFS), nothing is
ever truncated: padding is appended (an append, ordered with the agent's), the bytes
after the range are written down to where they belong (below the end, where no append
lands), and the block-aligned span holding the range is collapsed, which the kernel does
under the same lock appends take. Every byte the agent appends at any moment stays, in
order. Elsewhere (tmpfs, btrfs, macOS) the tail is moved down, appends that came
meanwhile are moved after it, and the file is shortened right after one more look at
its size: an append landing between that look and the cut (a few microseconds, after a
quiet period) is the one thing that could be lost.

A crash in the middle (a few milliseconds) loses nothing either, but can leave blank
lines at the end or a stretch of lines twice; the cut is then refused next time, since
our line is no longer where it was recorded.
"""

from __future__ import annotations

import ctypes
import os
import stat
import sys
from pathlib import Path

#: `linux/falloc.h`: remove a block-aligned range and shift what follows it down.
FALLOC_FL_COLLAPSE_RANGE = 0x08
#: Block size known to collapse, per file system device (None: it cannot).
_COLLAPSES: dict[int, int | None] = {}


class CutFailed(Exception):
    """The bytes could not be taken out; the file is as it was (or says why not)."""


def cut(fd: int, path: str, offset: int, length: int, size: int) -> None:
    """Remove `length` bytes at `offset` from the file open (read, append) on `fd`,
    whose size was `size` when the bytes were checked. `path` names it (a link is
    followed) to reopen the same file without `O_APPEND`, for writing at an offset."""
    rw = _reopen(fd, path)
    try:
        block = _collapse_block(path, rw) if offset > 0 else None
        if block is not None:
            _cut_by_collapse(fd, rw, offset, length, size, block)
        else:
            _cut_by_moving(rw, offset, length, size)
        os.fsync(rw)
    finally:
        os.close(rw)


def _reopen(fd: int, path: str) -> int:
    """A second descriptor on the very file `fd` holds, without `O_APPEND` (on Linux a
    positioned write on an `O_APPEND` descriptor appends)."""
    try:
        rw = os.open(path, os.O_RDWR | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except OSError as exc:
        raise CutFailed(f"cannot open it again to edit it ({exc.strerror or exc})") from None
    mine, theirs = os.fstat(fd), os.fstat(rw)
    if (mine.st_dev, mine.st_ino) != (theirs.st_dev, theirs.st_ino) or not stat.S_ISREG(
        theirs.st_mode
    ):
        os.close(rw)
        raise CutFailed("the path now names another file")
    return rw


def _cut_by_collapse(fd: int, rw: int, offset: int, length: int, size: int, block: int) -> None:
    """Pad by appending, write the kept bytes above the aligned span, collapse the span."""
    start = (offset - 1) // block * block  # below our range, so the kept part is not empty
    span = -(-(offset + length - start) // block) * block
    pad = span - length
    tail = _pread(rw, size - offset - length, offset + length)
    free = os.fstatvfs(rw)
    if free.f_bavail * free.f_frsize < 4 * span:
        raise CutFailed("the disk is full: nothing was changed")
    written = os.write(fd, b"\n" * pad)  # O_APPEND: after anything appended so far
    end = os.lseek(fd, 0, os.SEEK_CUR)
    if written != pad:
        raise CutFailed(f"the disk filled up: {written} blank bytes were appended to it")
    appended = _pread(rw, end - pad - size, size)  # what the agent wrote since we looked
    kept = _pread(rw, offset - start, start) + tail + appended
    before = _pread(rw, end - start - span, start + span)
    _pwrite(rw, kept, start + span)
    os.fsync(rw)
    if _fallocate(rw, FALLOC_FL_COLLAPSE_RANGE, start, span) != 0:
        err = ctypes.get_errno()
        _pwrite(rw, before, start + span)  # as it was, then the padding taken out again
        _cut_by_moving(rw, end - pad, pad, os.fstat(rw).st_size)
        raise CutFailed(f"the file system refused to collapse the range ({os.strerror(err)})")


def _cut_by_moving(rw: int, offset: int, length: int, size: int) -> None:
    """Move everything after the range down by `length`, then shorten the file."""
    moved_to = offset
    at = offset + length
    end = size
    while True:
        chunk = _pread(rw, end - at, at)
        _pwrite(rw, chunk, moved_to)
        moved_to += len(chunk)
        at = end
        end = os.fstat(rw).st_size
        if end == at:  # nothing appended while we moved: cut now
            os.ftruncate(rw, moved_to)
            return


def _pread(fd: int, n: int, at: int) -> bytes:
    chunks = []
    while n > 0:
        chunk = os.pread(fd, min(n, 1 << 24), at)
        if not chunk:
            raise CutFailed("the file shrank while it was being edited")
        chunks.append(chunk)
        n -= len(chunk)
        at += len(chunk)
    return b"".join(chunks)


def _pwrite(fd: int, data: bytes, at: int) -> None:
    view = memoryview(data)
    while view:
        done = os.pwrite(fd, view[: 1 << 24], at)
        view, at = view[done:], at + done


def _fallocate(fd: int, mode: int, offset: int, length: int) -> int:
    libc = _libc()
    if libc is None:
        ctypes.set_errno(95)  # EOPNOTSUPP
        return -1
    return int(libc(fd, mode, ctypes.c_int64(offset), ctypes.c_int64(length)))


def _libc():  # noqa: ANN202 - a ctypes function, or None
    if not sys.platform.startswith("linux"):
        return None
    try:
        lib = ctypes.CDLL(None, use_errno=True)
        fn = getattr(lib, "fallocate64", None) or lib.fallocate
    except (OSError, AttributeError):
        return None
    fn.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int64, ctypes.c_int64]
    fn.restype = ctypes.c_int
    return fn


def collapses(path: str) -> bool:
    """Whether the file system holding `path` cuts without ever truncating."""
    fd = os.open(path, os.O_RDONLY)
    try:
        return _collapse_block(path, fd) is not None
    finally:
        os.close(fd)


def _collapse_block(path: str, rw: int) -> int | None:
    """The block size at which this file's file system collapses ranges, or None when
    it cannot: tried once per file system on a scratch file beside the transcript."""
    device = os.fstat(rw).st_dev
    if device in _COLLAPSES:
        return _COLLAPSES[device]
    block = None
    if _libc() is not None:
        size = os.fstatvfs(rw).f_bsize
        folder = Path(os.path.realpath(path)).parent
        block = _probe(folder / f".{Path(path).name}.findsession-probe", size)
    _COLLAPSES[device] = block
    return block


def _probe(scratch: Path, block: int) -> int | None:
    try:
        fd = os.open(scratch, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError:
        return None
    try:
        os.write(fd, b"a" * block + b"b" * block + b"c" * block)
        if _fallocate(fd, FALLOC_FL_COLLAPSE_RANGE, block, block) != 0:
            return None
        ok = os.fstat(fd).st_size == 2 * block and os.pread(fd, 1, block) == b"c"
        return block if ok else None
    finally:
        os.close(fd)
        scratch.unlink(missing_ok=True)
