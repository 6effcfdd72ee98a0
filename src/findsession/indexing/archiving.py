"""What an index run gives the archive of transcripts (`findsession.archive`): the span
each read covered, and a whole copy of a file it holds unchanged but the archive lacks
(a file indexed before the archive was on for its source).

The archive is beside the index, not part of it: a copy that cannot be written is one
line of the run's report, never the file's failure. It is written in line, from the
file the indexer has open: on a thread of its own it made a first index slower, not
faster, on a busy machine (the indexer and the copier took turns with the interpreter's
lock), and an append costs it a few milliseconds.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from findsession.archive.folder import key_of
from findsession.indexing.report import IndexReport
from findsession.indexing.scan import Found, os_error
from findsession.sources.opening import open_regular
from findsession.storage.base import FileState

if TYPE_CHECKING:
    from findsession.archive.keeper import Archive

class Copier:
    """The archive's side of one index run: `keep` copies what a read covered, `close`
    puts what was added, and what failed, in the run's report."""

    def __init__(self, archive: Archive) -> None:
        self.archive = archive
        self.added = 0
        self.errors: list[tuple[str, str]] = []

    def keep(self, path: str, source: str, fd: int, start: int, committed: int) -> None:
        """Copy what a read of `path` covered, from `start` (0: the file was read from
        the top), the source's cursor now at `committed`."""
        if not self.archive.keeps(source):
            return
        try:
            self.added += self.archive.keep(path, source, fd, start, committed)
        except Exception as exc:  # noqa: BLE001 - the archive's failure is not the file's
            self.errors.append((path, str(exc) or type(exc).__name__))

    def close(self, report: IndexReport) -> None:
        report.archived_bytes += self.added
        report.archive_errors.extend(self.errors)
        self.added, self.errors = 0, []


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
