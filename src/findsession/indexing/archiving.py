"""What an index run gives the archive of transcripts (`findsession.archive`): the span
each read covered, and a whole copy of a file it holds unchanged but the archive lacks
(a file indexed before the archive was on for its source).

The archive is beside the index, not part of it: a copy that cannot be written is
reported for its file and the run goes on, the index no worse for it.
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


def archive_read(
    archive: Archive | None,
    path: str,
    source: str,
    fd: int,
    start: int,
    committed: int,
    report: IndexReport,
) -> None:
    """Keep what a read of `path` covered, from `start` (0: it read the file from the
    top) with the source's cursor now at `committed`."""
    if archive is None or not archive.keeps(source):
        return
    try:
        report.archived_bytes += archive.keep(path, source, fd, start, committed)
    except Exception as exc:  # noqa: BLE001 - the archive's failure is not the file's
        report.archive_errors.append((path, str(exc) or type(exc).__name__))


def archive_unchanged(
    archive: Archive | None,
    unchanged: list[tuple[Found, FileState]],
    report: IndexReport,
) -> None:
    """A whole copy of each file the index holds as it is, of a source the archive
    keeps, that the archive lacks: one listing of the archive's folder, then only those
    files are read."""
    if archive is None:
        return
    wanted = [(f, s) for f, s in unchanged if archive.keeps(s.source) and s.status == "ok"]
    if not wanted:
        return
    try:
        keys = archive.keys()
    except OSError as exc:
        report.archive_errors.append((str(archive.path), os_error(exc)))
        return
    for found, state in wanted:
        path = str(found.path)
        if key_of(path) in keys:
            continue
        try:
            with open_regular(path) as fh:
                archive_read(archive, path, state.source, fh.fileno(), 0, state.offset, report)
        except OSError as exc:
            report.archive_errors.append((path, os_error(exc)))
