"""The one change findsession makes to a transcript: one title line, appended.

Guarded (see `guard`), recorded before it is written (so `titles --undo` can always find
exactly the bytes we added), written with one `write` on a descriptor opened with
`O_APPEND` (the kernel puts it at the end even if the agent appends at the same moment),
and flushed to the disk. The file's mtime advances as any append's does: sync tools
read it, so it is never set back. The index then reads the new line itself, from its
stored cursor, and records the file's new size and mtime (`refresh`), so the next index
run finds nothing to read.
"""

from __future__ import annotations

import os
from dataclasses import replace

from findsession.domain import Session
from findsession.errors import FindsessionError
from findsession.storage.base import FileState, TitleWrite
from findsession.storage.views import TitleStore
from findsession.titles.guard import MISSING, transcript_refusal
from findsession.titles.report import Reason

#: Read and append, never create, never block on a FIFO, never become a terminal's.
FLAGS = (
    os.O_RDWR
    | os.O_APPEND
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_NOCTTY", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)


class TitleWriteFailed(FindsessionError):
    """The title line could not be written whole; the transcript is left as it was."""


def open_transcript(path: str) -> int | Reason:
    """A descriptor for reading and appending, or the reason there is none."""
    try:
        return os.open(path, FLAGS)
    except FileNotFoundError:
        return MISSING
    except OSError as exc:
        return Reason(
            "cannot_open",
            f"its transcript cannot be opened for writing ({exc.strerror or exc}): check its"
            " permissions",
        )


def append_title(
    store: TitleStore,
    session: Session,
    state: FileState | None,
    title: str,
    line: bytes,
    *,
    quiet_minutes: float,
    now: float,
) -> Reason | None:
    """Append `line` to the session's transcript when every check passes; else the
    reason it was not. `TitleWriteFailed` when the disk refused part of it."""
    path = session.file_path or ""
    fd = open_transcript(path)
    if isinstance(fd, Reason):
        return fd
    try:
        st = os.fstat(fd)
        refusal = transcript_refusal(fd, st, state, quiet_minutes, now)
        if refusal is not None:
            return refusal
        intent = TitleWrite(session.id, path, title, st.st_size, line)
        with store.transaction():
            store.record_title_write(intent)
        try:
            _write_whole(fd, line, st.st_size)
            os.fsync(fd)
        except OSError as exc:
            with store.transaction():
                store.drop_title_write(intent)
            raise TitleWriteFailed(
                f"the title line could not be written to {path} ({exc.strerror or exc});"
                " the transcript is as it was"
            ) from exc
        end = os.fstat(fd).st_size
        if end != st.st_size + len(line):  # the agent appended at the same moment
            offset = _find_line(fd, line, st.st_size, end)
            if offset is not None and offset != st.st_size:
                with store.transaction():
                    store.drop_title_write(intent)
                    store.record_title_write(replace(intent, offset=offset))
    finally:
        os.close(fd)
    return None


def _write_whole(fd: int, line: bytes, start: int) -> None:
    """One `write` of the whole line; a short write (a full disk) is taken back."""
    written = os.write(fd, line)
    if written == len(line):
        return
    if os.fstat(fd).st_size == start + written:
        os.ftruncate(fd, start)  # only our bytes follow `start`
    raise OSError(28, "only part of the line could be written (is the disk full?)")


def _find_line(fd: int, line: bytes, start: int, end: int) -> int | None:
    """Where our line landed among lines appended at the same moment: at a line start."""
    os.lseek(fd, start, os.SEEK_SET)
    data = os.read(fd, end - start)
    at = data.find(line)
    while at > 0 and data[at - 1 : at] != b"\n":
        at = data.find(line, at + 1)
    return start + at if at >= 0 else None
