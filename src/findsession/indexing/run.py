"""An index run: scan the roots, read every changed file in commit groups, and record the
run in the `runs` table.

An unchanged file costs a stat. Each file is a savepoint of its own together with its
cursor, so a crash or Ctrl-C leaves a consistent index that the next run completes.
Transcripts are only ever opened for reading.
"""

from __future__ import annotations

import time
from collections.abc import Collection, Iterable
from contextlib import suppress
from typing import TYPE_CHECKING

from findsession.domain import Root
from findsession.errors import FindsessionError, IndexFull
from findsession.indexing.archiving import Copier, archive_unchanged
from findsession.indexing.failures import file_failed
from findsession.indexing.file import Abort, index_file
from findsession.indexing.readings import read_again_if_read_differently
from findsession.indexing.report import IndexReport, Progress
from findsession.indexing.scan import (
    Committed,
    Found,
    handle_vanished,
    known_changes,
    os_error,
    scan,
)
from findsession.interrupts import Held
from findsession.paths import expand
from findsession.redact import redact
from findsession.sources import SOURCES, SourceFile, file_stamp
from findsession.sources.git_index import tracked
from findsession.storage.base import FileState
from findsession.storage.views import IndexStore

if TYPE_CHECKING:
    from findsession.archive.keeper import Archive


def index_roots(
    store: IndexStore,
    roots: Iterable[Root],
    *,
    prune: bool = False,
    progress: Progress | None = None,
    exclude: Iterable[str] = (),
    only: Collection[str] | None = None,
    committed_stores: bool = False,
    archive: Archive | None = None,
) -> IndexReport:
    """Index every transcript under `roots` into `store` and report what changed.

    `exclude` holds globs of project directories whose sessions are not indexed. `only`
    names the files a watcher saw change: when the index already reads every one of
    them, only they are looked at (an appended turn costs milliseconds, not a walk of
    every root); a new or vanished file among them means a full scan.
    `committed_stores`: read the stores kept inside a project that its git repository
    tracks (see `scan.Committed`); what such a store gave before goes when it is left out.
    `archive`: where the transcripts of the sources it keeps are copied as they are read
    (and a file it lacks, whole), and from which `prune` drops the copies of the files it
    prunes.
    """
    excluded = tuple(str(expand(g)) for g in exclude)
    started = time.perf_counter()
    roots = list(roots)
    report = IndexReport(roots=[str(r.path) for r in roots])
    run_id = _start_run(store, report)
    seen: set[str] = set()
    copier = Copier(archive) if archive is not None else None
    try:
        changed = known_changes(store, roots, only) if only is not None else None
        if changed is not None and not committed_stores and _now_committed(changed[0]):
            changed = None  # a full scan leaves it out and forgets what it gave
        if changed is not None:
            found, known = changed
            report.files_seen = len(found)
            report.full_scan = False
        else:
            known = store.file_states()
            report.read_anew = read_again_if_read_differently(
                store, known, [r.source for r in roots]
            )
            if report.read_anew:
                known = store.file_states()
            unwalked: set[str] = set()
            committed = Committed(read=committed_stores)
            found = scan(roots, report, seen, unwalked, committed)
            _forget_left_out(store, committed.paths & set(known))
            walked = [r for r in roots if str(r.path) not in unwalked]
            if handle_vanished(store, walked, known, seen, prune, report, archive):
                known = store.file_states()
        work: list[tuple[SourceFile, str]] = []
        unchanged: list[tuple[Found, FileState]] = []
        for f in found:
            state = known.get(str(f.path))
            if (
                state is not None
                and state.status in ("ok", "binary")
                and (state.size, state.mtime_ns) == file_stamp(f.source, f.path, f.stat)
            ):
                report.files_unchanged += 1
                unchanged.append((f, state))
                continue
            if _named_with_a_secret(store, str(f.path), state is not None, report):
                continue
            try:
                work.append((SOURCES[f.source].describe(f.path), f.root))
            except OSError as exc:  # gone or unreadable between the scan and now
                report.errors.append((str(f.path), os_error(exc)))
            except FindsessionError:
                raise
            except Exception as exc:  # noqa: BLE001 - the source failed on this file alone
                file_failed(store, str(f.path), f.source, f.root, state, exc, report)
        work.sort(key=_copies_last)
        with _CommitGroups(store) as group:
            for done, (sf, root_key) in enumerate(work, 1):
                if progress:
                    progress(done - 1, len(work), str(sf.path))
                # On Abort the error is reported and the file's savepoint rolled back.
                # Ctrl-C stops the run after this file, never inside its writes.
                with Held():
                    with suppress(Abort):
                        state = known.get(str(sf.path))
                        index_file(store, sf, root_key, state, report, excluded, copier)
                    group.file_done(report.bytes_read)
        if progress and work:
            progress(len(work), len(work), "")
        archive_unchanged(copier, unchanged, report)
    except KeyboardInterrupt:
        report.interrupted = True
    except IndexFull as exc:
        # The file being indexed rolled back to its savepoint; the files before it are
        # committed and the index stays searchable.
        report.interrupted = True
        report.errors.append(("(index)", f"{exc}; free space and run `findsession index` again"))
        store.end_open_transaction(commit=False)
    finally:
        if copier is not None:
            copier.close(report)
    report.sessions_total, report.turns_total = store.totals()
    report.seconds = time.perf_counter() - started
    _finish_run(store, run_id, report)
    if report.files_read:
        store.scrub_wal()
    return report


def _copies_last(item: tuple[SourceFile, str]) -> tuple[bool, float]:
    """The order files are read in: one that began as a copy of another's history after
    the others, so the lines it shares stay the file's they were first written in, and
    copies by when their session began where the file says so, else by when they were
    last written (a fork of a fork after the fork it copies)."""
    sf = item[0]
    if not sf.copies_history:
        return False, 0
    if sf.began is not None:
        return True, sf.began
    try:
        return True, sf.path.stat().st_mtime
    except OSError:
        return True, 0


def _now_committed(found: list[Found]) -> bool:
    """Whether a changed file the index reads is a store kept inside a project that its
    git repository has come to track since (a watcher's run looks at no other file)."""
    return any(
        SOURCES[f.source].kept_in_project(f.path) and tracked(f.path) is not None for f in found
    )


def _forget_left_out(store: IndexStore, paths: set[str]) -> None:
    """What stores now left out as committed gave before (indexed before the setting,
    or before they were committed)."""
    for path in sorted(paths):
        with store.transaction():
            store.remove_file(path)


def _named_with_a_secret(store: IndexStore, path: str, known: bool, report: IndexReport) -> bool:
    """True (and the file left out, named redacted) when the file's path holds what
    looks like a secret (`notes/token-github_pat_….md`): the index keeps every file's
    path, so such a file cannot be indexed without keeping the secret. What it gave
    before goes."""
    hidden, kinds = redact(path)
    if not kinds:
        return False
    report.skipped.append(
        (
            hidden,
            f"its path holds what looks like a secret ({', '.join(sorted(kinds))}):"
            " rename it to index it",
        )
    )
    if known:
        with store.transaction():
            store.remove_file(path)
    return True


class _CommitGroups:
    """Commit finished files together, about every `COMMIT_SECONDS` or `COMMIT_BYTES`.

    Each file is still a savepoint of its own, so a file's content and cursor always
    land together; a commit per small file cost 15% of indexing time. An interrupt
    commits the files already finished; a kill loses at most the current group.
    """

    COMMIT_SECONDS = 0.5
    COMMIT_BYTES = 16 << 20

    def __init__(self, store: IndexStore) -> None:
        self.store = store
        self.since = time.perf_counter()
        self.bytes_at_commit = 0

    def __enter__(self) -> _CommitGroups:
        self.store.begin()
        return self

    def file_done(self, bytes_read: int) -> None:
        if (
            time.perf_counter() - self.since >= self.COMMIT_SECONDS
            or bytes_read - self.bytes_at_commit >= self.COMMIT_BYTES
        ):
            self.store.commit()
            self.store.begin()
            self.since, self.bytes_at_commit = time.perf_counter(), bytes_read

    def __exit__(self, kind: type[BaseException] | None, *exc: object) -> None:
        # Finished files are whole (a failing file rolled back its own savepoint), so
        # they are kept even when the run stops early. Ctrl-C may land between a COMMIT
        # and the next BEGIN: then there is nothing left to commit.
        self.store.end_open_transaction(commit=True)


def _start_run(store: IndexStore, report: IndexReport) -> int:
    return store.start_run(report.roots)


def _finish_run(store: IndexStore, run_id: int, report: IndexReport) -> None:
    store.finish_run(
        run_id,
        files_seen=report.files_seen,
        files_read=report.files_read,
        bytes_read=report.bytes_read,
        lines_read=report.lines_read,
        sessions=report.sessions_changed,
        problems=len(report.problems),
        interrupted=report.interrupted,
    )
