"""Take out exactly the title lines findsession wrote, and nothing else.

A line is removed only while the bytes at its recorded offset are still exactly the
bytes we wrote, at the start of a line. Lines the agent appended after ours stay, in
order: removing our line from the middle is as exact as cutting it off the end (the
bytes before it and after it are kept as they are). The file is edited in place,
through the descriptor the checks ran on (`cut`): never written anew and renamed over,
which would leave an agent holding it open appending to a deleted file, and would turn a
transcript that is a symbolic link into a regular file. The writer machine must be this
one, as for writing, and a file with lines after ours must have been quiet for the
quiet period. Our line still last needs no wait: nothing was written since our write,
and that write waited for a quiet period itself.
"""

from __future__ import annotations

import os
import time

from findsession.config import Config
from findsession.paths import expand
from findsession.storage.base import TitleWrite
from findsession.storage.views import TitleStore
from findsession.titles.append import open_transcript
from findsession.titles.cut import CutFailed, cut
from findsession.titles.guard import MISSING, machine_refusal, quiet_refusal
from findsession.titles.refresh import refresh_file, retitle
from findsession.titles.report import Reason, UndoReport, UndoResult


def undo_titles(store: TitleStore, config: Config, session_id: str | None = None) -> UndoReport:
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
    excluded = tuple(str(expand(g)) for g in config.exclude)
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
        # Our line still last needs no wait: nothing was written since our write, which
        # came after a quiet period of its own.
        ours = end == st.st_size or left.get(write.file_path) == (st.st_size, st.st_mtime_ns)
        refusal = None if ours else quiet_refusal(st, now, quiet_minutes)
        if refusal is not None:
            return result("refused", refusal)
        os.lseek(fd, end, os.SEEK_SET)
        after = _read_all(fd, st.st_size - end)
        try:
            cut(fd, write.file_path, offset, len(line), st.st_size)
        except CutFailed as exc:
            return result("refused", Reason("cannot_edit", f"{exc}; nothing was lost"))
        done = os.fstat(fd)
        left[write.file_path] = (done.st_size, done.st_mtime_ns)
        copies = after.count(line)
        note = (
            f"the agent wrote the same title line {copies} more time{'s' if copies != 1 else ''}"
            " after ours; those lines are its own and stay"
            if copies
            else None
        )
        return result("removed", note=note)
    finally:
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
