"""Take out exactly the title lines findsession wrote, and nothing else.

A line is removed only while the bytes at its recorded offset are still exactly the
bytes we wrote, at the start of a line. Lines the agent appended after ours stay, in
order: removing our line from the middle is as exact as cutting it off the end (the
bytes before it and after it are kept as they are). Our line last in the file is cut
off with `ftruncate`; otherwise the file is written again beside itself (a temporary
file in the same folder, its mode kept, flushed) and renamed over it, so a crash leaves
either the old file or the new one. The writer machine must be this one, as for
writing, and a file with lines after ours must have been quiet for the quiet period: an
agent appending while we rewrite would lose its line. Our line still last needs no wait:
nothing was written since our write, and that write waited for a quiet period itself.
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

from findsession.config import Config
from findsession.storage.base import Storage, TitleWrite
from findsession.titles.append import open_transcript
from findsession.titles.guard import MISSING, machine_refusal, quiet_refusal
from findsession.titles.refresh import refresh_file, retitle
from findsession.titles.report import Reason, UndoReport, UndoResult

CHANGED_WHILE = Reason(
    "changed_while_undoing",
    "the transcript changed while the title line was being taken out: nothing was"
    " removed; try again",
)


def undo_titles(store: Storage, config: Config, session_id: str | None = None) -> UndoReport:
    """Take back every title we gave (or one session's), and bring the index in step."""
    report = UndoReport()
    not_writer = machine_refusal(config.titles.writer, config.machine)
    #: Files this run changed, as it left them: our own change starts no quiet period.
    left: dict[str, tuple[int, int]] = {}
    for write in store.title_writes(session_id):
        if write.offset is None:
            with store.transaction():
                store.drop_title_write(write)
            session = store.get_session(write.session_id)
            if session is not None:
                retitle(store, session.id, session.source, write.file_path)
            report.results.append(
                UndoResult(write.session_id, write.file_path, write.title, None, "removed")
            )
            continue
        if not_writer is not None:
            report.results.append(
                UndoResult(
                    write.session_id,
                    write.file_path,
                    write.title,
                    write.offset,
                    "refused",
                    not_writer,
                )
            )
            continue
        result = remove_line(
            write, quiet_minutes=config.titles.quiet_minutes, now=time.time(), left=left
        )
        report.results.append(result)
        if result.status in ("removed", "gone"):
            with store.transaction():
                store.drop_title_write(write)
    states = store.file_states()
    excluded = tuple(str(Path(g).expanduser()) for g in config.exclude)
    for path in left:
        if path in states:
            note = refresh_file(store, states[path], excluded)
            if note:
                report.notes.append(note)
    return report


def remove_line(
    write: TitleWrite, *, quiet_minutes: float, now: float, left: dict[str, tuple[int, int]]
) -> UndoResult:
    """Remove one recorded title line from its transcript, or say why not; `left` gets
    the size and mtime the file is left with."""
    line, offset = write.line or b"", write.offset or 0

    def result(status: str, reason: Reason | None = None, note: str | None = None) -> UndoResult:
        return UndoResult(
            write.session_id, write.file_path, write.title, offset, status, reason, note
        )

    fd = open_transcript(write.file_path)
    if fd == MISSING:
        return result("gone", MISSING)
    if isinstance(fd, Reason):
        return result("refused", fd)
    try:
        st = os.fstat(fd)
        os.lseek(fd, max(0, offset - 1), os.SEEK_SET)
        found = os.read(fd, len(line) + (1 if offset else 0))
        if found != (b"\n" if offset else b"") + line:
            return result(
                "refused",
                Reason(
                    "not_ours_any_more",
                    f"the bytes at offset {offset} are no longer the line findsession wrote"
                    " (the file was rewritten or edited before it): left as it is",
                ),
            )
        end = offset + len(line)
        if end == st.st_size:
            # Still the last line: nothing was written since our write, which came after
            # a quiet period of its own, so it is cut off without waiting another one.
            if os.fstat(fd).st_size != end:
                return result("refused", CHANGED_WHILE)
            os.ftruncate(fd, offset)
            os.fsync(fd)
            done = os.fstat(fd)
            left[write.file_path] = (done.st_size, done.st_mtime_ns)
            return result("removed")
        ours = left.get(write.file_path) == (st.st_size, st.st_mtime_ns)
        refusal = None if ours else quiet_refusal(st, now, quiet_minutes)
        if refusal is not None:
            return result("refused", refusal)
        os.lseek(fd, 0, os.SEEK_SET)
        data = _read_all(fd, st.st_size)
        os.close(fd)  # before the rename: some systems refuse to replace an open file
        fd = -1
        if not _same_file(write.file_path, st):
            return result("refused", CHANGED_WHILE)
        _replace(write.file_path, data[:offset] + data[end:], st)
        done = os.stat(write.file_path)
        left[write.file_path] = (done.st_size, done.st_mtime_ns)
        copies = data[end:].count(line)
        note = (
            f"the agent wrote the same title line {copies} more time{'s' if copies != 1 else ''}"
            " after ours; those lines are its own and stay"
            if copies
            else None
        )
        return result("removed", note=note)
    finally:
        if fd >= 0:
            os.close(fd)


def _read_all(fd: int, size: int) -> bytes:
    chunks, left = [], size
    while left > 0:
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _same_file(path: str, st: os.stat_result) -> bool:
    """The path still names the file we read, unchanged since (no append in between)."""
    try:
        now = os.stat(path)
    except OSError:
        return False
    return (now.st_ino, now.st_dev, now.st_size, now.st_mtime_ns) == (
        st.st_ino,
        st.st_dev,
        st.st_size,
        st.st_mtime_ns,
    )


def _replace(path: str, data: bytes, st: os.stat_result) -> None:
    """Write `data` beside `path` and rename it over `path`: all or nothing."""
    folder = Path(path).parent
    fd, temp = tempfile.mkstemp(prefix=f".{Path(path).name}.", suffix=".undo", dir=folder)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            if hasattr(os, "fchmod"):
                os.fchmod(fh.fileno(), st.st_mode & 0o7777)
            os.fsync(fh.fileno())
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    _sync_folder(folder)


def _sync_folder(folder: Path) -> None:
    """Make the rename itself durable (not possible, nor needed, on Windows)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
