"""What an index run gives the archive of transcripts (`findsession.archive`): the span
each read covered, and a whole copy of a file it holds unchanged but the archive lacks
(a file indexed before the archive was on for its source).

The copying runs on a thread of its own (`Copier`), on its own duplicate of each file
the indexer read: compressing and hashing release the interpreter's lock, so on a
machine with a second core the archive costs a first index of 520 MB almost no time,
where done in line it cost a tenth. The archive is beside the index, not part of it: a
copy that cannot be written is one line of the run's report, never the file's failure,
and the run ends only once every copy it handed over is written.
"""

from __future__ import annotations

import os
import queue
import threading
from typing import TYPE_CHECKING

from findsession.archive.folder import key_of
from findsession.indexing.report import IndexReport
from findsession.indexing.scan import Found, os_error
from findsession.sources.opening import open_regular
from findsession.storage.base import FileState

if TYPE_CHECKING:
    from findsession.archive.keeper import Archive

#: Files handed over and not yet copied: each holds an open descriptor.
WAITING = 16


class Copier:
    """The archive's side of one index run: `keep` hands a read over, `close` waits for
    every copy and puts what it added, and what failed, in the run's report."""

    def __init__(self, archive: Archive) -> None:
        self.archive = archive
        self.added = 0
        self.errors: list[tuple[str, str]] = []
        self._queue: queue.Queue[tuple[str, str, int, int, int] | None] = queue.Queue(WAITING)
        self._thread: threading.Thread | None = None

    def keep(self, path: str, source: str, fd: int, start: int, committed: int) -> None:
        """Copy what a read of `path` covered, from `start` (0: the file was read from
        the top), the source's cursor now at `committed`; `fd` stays the caller's."""
        if not self.archive.keeps(source):
            return
        try:
            mine = os.dup(fd)
        except OSError as exc:
            self.errors.append((path, os_error(exc)))
            return
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="archive", daemon=True)
            self._thread.start()
        self._queue.put((path, source, mine, start, committed))

    def close(self, report: IndexReport) -> None:
        if self._thread is not None:
            self._queue.put(None)
            self._thread.join()
            self._thread = None
        report.archived_bytes += self.added
        report.archive_errors.extend(self.errors)
        self.added, self.errors = 0, []

    def _run(self) -> None:
        while (item := self._queue.get()) is not None:
            path, source, fd, start, committed = item
            try:
                self.added += self.archive.keep(path, source, fd, start, committed)
            except Exception as exc:  # noqa: BLE001 - the archive's failure is not the file's
                self.errors.append((path, str(exc) or type(exc).__name__))
            finally:
                os.close(fd)


def archive_unchanged(
    copier: Copier | None, unchanged: list[tuple[Found, FileState]], report: IndexReport
) -> None:
    """A whole copy of each file the index holds as it is, of a source the archive
    keeps, that the archive lacks: one listing of the archive's folder, then only those
    files are read."""
    if copier is None:
        return
    wanted = [(f, s) for f, s in unchanged if copier.archive.keeps(s.source) and s.status == "ok"]
    if not wanted:
        return
    try:
        keys = copier.archive.keys()
    except OSError as exc:
        report.archive_errors.append((str(copier.archive.path), os_error(exc)))
        return
    for found, state in wanted:
        path = str(found.path)
        if key_of(path) in keys:
            continue
        try:
            with open_regular(path) as fh:
                copier.keep(path, state.source, fh.fileno(), 0, state.offset)
        except OSError as exc:
            report.archive_errors.append((path, os_error(exc)))
