"""Index one changed file: open it safely, let its source read what changed since the
stored cursor, store the records and rebuild the sessions they touch, all in one
savepoint with the new cursor. Whatever goes wrong inside rolls that savepoint back and
is the file's problem alone (`failures`); only the index's own failures (a full disk)
end the run."""

from __future__ import annotations

import hashlib
import os
import time
from dataclasses import replace
from typing import IO, TYPE_CHECKING

from findsession.domain import Message
from findsession.errors import FindsessionError
from findsession.indexing.archiving import Copier
from findsession.indexing.failures import file_failed
from findsession.indexing.records import redacted_problem, store_records
from findsession.indexing.report import IndexReport
from findsession.indexing.revisions import newer_copies_kept
from findsession.indexing.scan import os_error
from findsession.indexing.session import rebuild_session
from findsession.sources import SOURCES, Cursor, SourceFile, budget, file_stamp
from findsession.sources.cursor import Reading
from findsession.sources.opening import NotRegular, open_regular
from findsession.storage.base import FileState
from findsession.storage.views import IndexStore

if TYPE_CHECKING:
    from findsession.archive.keeper import Archive


class Abort(Exception):
    """Raised inside a file's transaction to roll it back after an I/O error."""


def index_file(
    store: IndexStore,
    sf: SourceFile,
    root: str,
    state: FileState | None,
    report: IndexReport,
    excluded: tuple[str, ...] = (),
    copier: Copier | None = None,
) -> None:
    """Bring one file's part of the index up to date (and hand what was read to
    `copier`, for the archive); on `Abort` the caller's savepoint is rolled back and the
    error is in the report.

    Any other exception while the file is read (a reader meeting a record it did not
    expect) rolls the file's savepoint back too, and is reported as the file's: its row
    keeps its old cursor with status `error`, so the next run reads it again from there.
    """
    path = str(sf.path)
    try:
        fh = open_regular(path)
    except FileNotFoundError:
        report.errors.append((path, "vanished before it could be read"))
        return
    except NotRegular as exc:
        report.skipped.append((path, str(exc)))
        return
    except OSError as exc:
        report.errors.append((path, os_error(exc)))
        if state is not None:
            with store.transaction():
                store.set_file_status(path, "error", os_error(exc))
        return
    # The file's counts join the run's only if its savepoint holds.
    part = IndexReport(roots=[])
    try:
        with fh, store.transaction():
            _index_open_file(store, sf, root, state, part, excluded, fh, copier)
    except Abort:
        report.errors.extend(part.errors)  # the I/O error, said once
        raise
    except FindsessionError:
        raise  # the index's own failure (a full disk, a lock): the run's, not the file's
    except Exception as exc:  # noqa: BLE001 - one file's failure must not end the run
        file_failed(store, path, sf.source, root, state, exc, report)
        return
    report.absorb(part)


def _index_open_file(
    store: IndexStore,
    sf: SourceFile,
    root: str,
    state: FileState | None,
    report: IndexReport,
    excluded: tuple[str, ...],
    fh: IO[bytes],
    copier: Copier | None = None,
) -> None:
    """`index_file`'s work once the file is open, inside its savepoint."""
    path = str(sf.path)
    size, mtime_ns = file_stamp(sf.source, sf.path, os.fstat(fh.fileno()))
    for old in sf.supersedes if state is None else ():
        _drop_superseded(store, str(old), path, copier.archive if copier else None)
    session_id = state.session_id if state and state.session_id else _claim_id(store, sf)
    reads = _Reads(sf, fh, report)
    stored = _stored_cursor(state)
    reading = reads.next(stored)
    # Where this read began, for the archive: 0 when the file is read from the top.
    began = 0 if reading.fresh or stored is None else stored.offset
    new_state = FileState(path, sf.source, root, session_id, size, mtime_ns, 0, 0, None)
    if reading.unchanged:
        report.files_unchanged += 1
        if copier is not None:
            copier.keep(path, sf.source, fh.fileno(), began, reading.cursor.offset)
        store.save_file(_ended(new_state, reading.cursor, reads.cut, fh, report))
        return
    # Sessions that lose records are rebuilt below, with those that gain them.
    forgotten = set(store.forget_file_content(path)) if reading.fresh else set()
    if reading.kept is not None and not reading.fresh:
        forgotten |= set(store.forget_file_lines(path, reading.kept))
    reading = newer_copies_kept(store, session_id, path, reading)
    for key in sorted(reading.replaced):
        replaced = f"{session_id}:{key}"
        holder = store.session_file(replaced)
        if holder is not None and holder != path:
            # The other file's copy goes: pruning this file must read that one again.
            store.add_replays(holder, [path])
        store.drop_session_content(replaced)
        forgotten.add(replaced)
    if reading.binary:
        report.skipped.append((path, reading.binary))
        new_state = _ended(new_state, reading.cursor, reads.cut, fh, report)
        new_state.status = "binary"
        store.save_file(new_state)
        return
    report.files_read += 1
    sessions: set[str] = set()
    parent = None
    while True:
        report.bytes_read += reading.bytes_read
        report.lines_read += reading.lines_read
        problems = [redacted_problem(p) for p in reading.problems]
        report.problems.extend((path, p) for p in problems)
        store.add_problems(path, problems)
        records = reading.records
        sessions |= store_records(store, sf, session_id, path, records, report, excluded)
        parent = parent or next(
            (m.record_session_id for m in records if _names_its_session(m)), None
        )
        done, more = reading.cursor, reading.more and not reads.cut and not reads.spent()
        del records, reading  # a slice's records go before the next is read
        if not more:
            break
        reading = reads.next(done)
        if reading.cursor.offset <= done.offset:  # it started again: read on next run
            break
        if reading.fresh:  # it read from the top again: what it gave before goes
            forgotten |= set(store.forget_file_content(path))
            began = 0
    new_state = _ended(new_state, done, reads.cut, fh, report)
    if sf.is_subagent and sf.parent_id is None and parent and parent != session_id:
        # A layout that does not name a subagent's parent (Claude Code 2.0.x flat
        # agent files) leaves it to the records.
        sf = replace(sf, parent_id=parent)
    for sid in sorted(sessions | forgotten):
        rebuild_session(store, sid, sf, session_id, path, report)
    if copier is not None:
        copier.keep(path, sf.source, fh.fileno(), began, done.offset)
    store.save_file(new_state)


class _Reads:
    """The reads of one file by its source: one, or one per slice of an append-only file
    (`Reading.more`), all within one budget of lines and seconds (`sources.budget`),
    which only the reading spends, not the storing between slices."""

    def __init__(self, sf: SourceFile, fh: IO[bytes], report: IndexReport) -> None:
        self.sf, self.fh, self.report = sf, fh, report
        self.lines, self.seconds = budget.MAX_LINES, budget.MAX_SECONDS
        self.cut: str | None = None

    def next(self, cursor: Cursor | None) -> Reading:
        started = time.monotonic()
        try:
            with budget.limit(self.lines, self.seconds) as spent:
                reading = SOURCES[self.sf.source].read(self.sf, self.fh, cursor)
        except OSError as exc:
            self.report.errors.append((str(self.sf.path), os_error(exc)))
            raise Abort from exc
        self.lines = max(0, self.lines - spent.lines)
        self.seconds = max(0.0, self.seconds - (time.monotonic() - started))
        self.cut = spent.cut
        return reading

    def spent(self) -> bool:
        """Whether the slices read so far used up the file's budget (then `cut` says so)."""
        if self.lines <= 0:
            self.cut = self.cut or f"over {budget.MAX_LINES:,} lines in one read"
        elif self.seconds <= 0:
            self.cut = self.cut or f"over {budget.MAX_SECONDS:g} s in one read"
        return self.cut is not None


def _names_its_session(record: object) -> bool:
    return isinstance(record, Message) and bool(record.record_session_id)


def _ended(
    state: FileState, cursor: Cursor, cut: str | None, fh: IO[bytes], report: IndexReport
) -> FileState:
    """`state` with the cursor the last read ended at, and why it was cut short if it was."""
    ended = replace(state, offset=cursor.offset, lines=cursor.lines, tail_hash=cursor.stored())
    if cut:
        _cut_short(ended, cut, os.fstat(fh.fileno()).st_size, report)
    return ended


def _cut_short(state: FileState, why: str, size: int, report: IndexReport) -> None:
    """A read that ran out of its budget (`sources.budget`): named in the run's summary
    and kept in the file's row for `status`. A file read on from an offset is read on
    from the cut on the next run (its stored size is left unmatched, so the next run
    does not take it for unchanged); one read whole keeps what it gave."""
    more = state.offset < size
    rest = "read on the next run" if more else "not read while the file stays as it is"
    state.error = f"{why}; the rest is {rest}"
    report.cut.append((state.path, state.error))
    if more:
        state.size = -1


def _stored_cursor(state: FileState | None) -> Cursor | None:
    """The cursor kept in the file's row; none when it is to be read from the start (a
    binary, missing or stale file, or one whose last good read left no cursor). A file
    whose last read failed (`error`) goes on from the cursor of the read before. The
    row's `tail_hash` holds the text `Cursor.stored` gave (its digest, and its source's
    state), or a cursor's text as an older release stored it."""
    if state is None or state.status not in ("ok", "error"):
        return None
    if state.status == "error" and state.tail_hash is None:
        return None
    return Cursor.restored(state.offset, state.lines, state.tail_hash)


def _drop_superseded(store: IndexStore, old: str, path: str, archive: Archive | None) -> None:
    """Remove the file `path` replaces (and its archived copy: `path` holds the session
    now), and read again the files that skipped its lines as replays (as pruning a
    vanished file does), so nothing it held is lost."""
    if not store.file_sources([old]):
        return
    if archive is not None:
        archive.drop([old])
    replaying = store.replaying_files(old)
    store.remove_file(old)
    for other in replaying:
        if other != path:
            store.read_again(other)


def _claim_id(store: IndexStore, sf: SourceFile) -> str:
    """The file's session id, made unique if another file already holds that id."""
    owner = store.session_file(sf.session_id)
    if owner is None or owner == str(sf.path):
        return sf.session_id
    suffix = hashlib.blake2b(str(sf.path).encode(), digest_size=4).hexdigest()
    return f"{sf.session_id}@{suffix}"
