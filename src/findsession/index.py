"""Bring the index up to date with the transcripts on disk, reading only what changed.

An unchanged file costs a stat. A file that grew is read from where the last run stopped
(after checking that the bytes before that point are still the same). A file that shrank
or was rewritten is read again from the start. Each file is committed in its own
transaction together with its cursor, so a crash or Ctrl-C leaves a consistent index
that the next run completes. Transcripts are only ever opened for reading.
"""

from __future__ import annotations

import fnmatch
import hashlib
import os
import stat
import time
import zlib
from collections import Counter
from collections.abc import Callable, Iterable
from contextlib import suppress
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import BinaryIO

import apsw

from findsession.model import Message, MessageKind, MetaEvent, MetaKind, Problem, Session
from findsession.redact import PRIVATE_MARKER, redact
from findsession.sources import SOURCES, Skip, SourceFile
from findsession.sources.jsonl import ReadStats, looks_binary
from findsession.store import FileState, Store, UnitRow
from findsession.turns import build_turns, choose_title, fingerprint

_HEAD = 4096
#: Characters of a skipped line kept to show where it is.
_PREVIEW = 100
_BLOCK = 1 << 20

#: Called as `progress(done, total, path)` while changed files are read.
Progress = Callable[[int, int, str], None]


@dataclass(frozen=True, slots=True)
class Root:
    """A folder (or file) to index, and the source format found there."""

    path: Path
    source: str


@dataclass
class IndexReport:
    """What one `index` run did; the CLI prints it and `--json` emits it."""

    roots: list[str]
    files_seen: int = 0
    files_read: int = 0
    files_unchanged: int = 0
    files_missing: int = 0
    files_pruned: int = 0
    bytes_read: int = 0
    lines_read: int = 0
    sessions_changed: int = 0
    units_written: int = 0
    sessions_total: int = 0
    turns_total: int = 0
    problems: list[tuple[str, Problem]] = field(default_factory=list)
    errors: list[tuple[str, str]] = field(default_factory=list)
    seconds: float = 0.0
    interrupted: bool = False
    #: Secrets replaced by `[REDACTED:kind]` before storing, by kind.
    redacted: dict[str, int] = field(default_factory=dict)
    #: Why the run stopped early other than Ctrl-C (a full disk), or None.
    failed: str | None = None
    #: Files and folders left out, with the reason: unreadable folders, FIFOs, links out
    #: of the roots, binary files.
    skipped: list[tuple[str, str]] = field(default_factory=list)

    def skipped_by_reason(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for _, problem in self.problems:
            counts[problem.reason] = counts.get(problem.reason, 0) + 1
        return counts


def index_roots(
    store: Store,
    roots: Iterable[Root],
    *,
    prune: bool = False,
    progress: Progress | None = None,
    exclude: Iterable[str] = (),
) -> IndexReport:
    """Index every transcript under `roots` into `store` and report what changed.

    `exclude` holds globs of project directories whose sessions are not indexed.
    """
    excluded = tuple(str(Path(g).expanduser()) for g in exclude)
    started = time.perf_counter()
    roots = list(roots)
    report = IndexReport(roots=[str(r.path) for r in roots])
    run_id = _start_run(store, report)
    known = store.file_states()
    found: list[tuple[Path, str, str, os.stat_result]] = []
    seen: set[str] = set()
    inside = _Inside(roots)

    def skip(path: Path, reason: str) -> None:
        report.skipped.append((str(path), reason))

    try:
        for root in roots:
            source = SOURCES[root.source]
            for path in source.discover(root.path, skip):
                key = str(path)
                if key in seen:
                    continue
                seen.add(key)
                report.files_seen += 1
                st = _regular_file(path, inside, skip)
                if st is not None:
                    found.append((path, root.source, str(root.path), st))
        reread = _handle_vanished(store, roots, known, seen, prune, report)
        if reread:
            known = store.file_states()
        work: list[tuple[SourceFile, str]] = []
        for path, kind, root_key, st in found:
            state = known.get(str(path))
            if (
                state is not None
                and state.status in ("ok", "binary")
                and state.size == st.st_size
                and state.mtime_ns == st.st_mtime_ns
            ):
                report.files_unchanged += 1
                continue
            work.append((SOURCES[kind].describe(path), root_key))
        with _CommitGroups(store) as group:
            for done, (sf, root_key) in enumerate(work, 1):
                if progress:
                    progress(done - 1, len(work), str(sf.path))
                # On _Abort the error is reported and the file's savepoint rolled back.
                with suppress(_Abort):
                    _index_file(store, sf, root_key, known.get(str(sf.path)), report, excluded)
                group.file_done(report.bytes_read)
        if progress and work:
            progress(len(work), len(work), "")
    except KeyboardInterrupt:
        report.interrupted = True
    except apsw.FullError as exc:
        # The file being indexed rolled back to its savepoint; the files before it are
        # committed and the index stays searchable.
        report.interrupted = True
        report.errors.append(
            (
                "(index)",
                f"the disk or database is full ({exc}); free space"
                " and run `findsession index` again",
            )
        )
        with suppress(apsw.Error):
            if store.db.in_transaction:
                store.db.execute("ROLLBACK")
    report.sessions_total = int(store.scalar("SELECT count(*) FROM sessions"))
    # From the small sessions table: counting turn units scans every unit row.
    report.turns_total = int(store.scalar("SELECT coalesce(sum(n_turns), 0) FROM sessions"))
    report.seconds = time.perf_counter() - started
    _finish_run(store, run_id, report)
    if report.files_read:
        store.scrub_wal()
    return report


class _Inside:
    """Whether a path lies inside one of the run's roots, links resolved."""

    def __init__(self, roots: list[Root]) -> None:
        self.roots = [os.path.realpath(r.path) for r in roots]

    def __call__(self, path: str) -> bool:
        real = os.path.realpath(path)
        return any(real == r or real.startswith(r.rstrip(os.sep) + os.sep) for r in self.roots)


def _regular_file(path: Path, inside: _Inside, skip: Skip) -> os.stat_result | None:
    """The file's stat when it may be read; else None, and `skip` says why.

    A FIFO named `*.jsonl` hung every run (opening it blocks until a writer comes); a
    link to `/etc/passwd` was followed and stored. Only regular files are read, and a
    link only when it leads to one inside the indexed folders.
    """
    try:
        lst = os.lstat(path)
        st = os.stat(path) if stat.S_ISLNK(lst.st_mode) else lst
    except FileNotFoundError:
        gone = "a symbolic link to nothing" if os.path.islink(path) else "vanished"
        skip(path, gone)
        return None
    except OSError as exc:
        skip(path, _os_error(exc))
        return None
    if stat.S_ISLNK(lst.st_mode) and not inside(str(path)):
        skip(path, "a symbolic link to a file outside the indexed folders; not followed")
        return None
    if not stat.S_ISREG(st.st_mode):
        skip(path, f"not a regular file ({_file_type(st.st_mode)}); not read")
        return None
    return st


def _file_type(mode: int) -> str:
    for test, name in (
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
    ):
        if test(mode):
            return name
    return "not a file"


def _handle_vanished(
    store: Store,
    roots: list[Root],
    known: dict[str, FileState],
    seen: set[str],
    prune: bool,
    report: IndexReport,
) -> set[str]:
    """Keep sessions whose file is gone (marked missing) unless asked to prune them.

    A pruned file's lines may live on in another file that repeated them (a copy in an
    archive root, a project folder moved within a root, a resumed session): those lines
    were skipped as replays, so each such file is read again, and the session stays
    while any indexed file still holds it. Returns the files to read again.
    """
    root_keys = {str(r.path) for r in roots}
    reread: set[str] = set()
    for path, state in known.items():
        if path in seen or state.root not in root_keys or os.path.exists(path):
            continue
        with store.transaction():
            if prune:
                replaying = store.replaying_files(path)
                store.remove_file(path)
                report.files_pruned += 1
                for other in replaying:
                    if other in known and other != path:
                        store.read_again(other)
                        reread.add(other)
            elif state.status != "missing":
                store.set_file_status(path, "missing")
                report.files_missing += 1
    return reread


def _index_file(
    store: Store,
    sf: SourceFile,
    root: str,
    state: FileState | None,
    report: IndexReport,
    excluded: tuple[str, ...] = (),
) -> None:
    path = str(sf.path)
    try:
        fh = _open_regular(path)
    except FileNotFoundError:
        report.errors.append((path, "vanished before it could be read"))
        return
    except _NotRegular as exc:
        report.skipped.append((path, str(exc)))
        return
    except OSError as exc:
        report.errors.append((path, _os_error(exc)))
        if state is not None:
            with store.transaction():
                store.set_file_status(path, "error", _os_error(exc))
        return
    with fh, store.transaction():
        st = os.fstat(fh.fileno())
        head = fh.read(_HEAD)
        session_id = state.session_id if state and state.session_id else _claim_id(store, sf)
        new_state = FileState(
            path, sf.source, root, session_id, st.st_size, st.st_mtime_ns, 0, 0, None
        )
        start_offset, start_line = 0, 0
        forgotten: set[str] = set()
        if state is not None and _can_resume(fh, state, st.st_size):
            start_offset, start_line = state.offset, state.lines
        else:
            # Sessions that lose lines are rebuilt below, with those that gain them.
            forgotten = set(store.forget_file_content(path))
        stats = ReadStats(end_offset=start_offset, end_line=start_line)
        try:
            records = list(SOURCES[sf.source].read(sf, fh, start_offset, start_line, stats))
        except OSError as exc:
            report.errors.append((path, _os_error(exc)))
            raise _Abort from exc
        if start_offset == 0 and not records and looks_binary(head):
            # Nothing of it is a transcript line: a binary file under a transcript's name.
            report.skipped.append((path, "binary: no line of it is JSON"))
            new_state.status = "binary"
            store.save_file(new_state)
            return
        report.files_read += 1
        report.bytes_read += stats.bytes_read
        report.lines_read += stats.lines_read
        problems = [_redacted_problem(p) for p in stats.problems]
        report.problems.extend((path, p) for p in problems)
        store.add_problems(path, problems)
        sessions = _store_records(store, sf, session_id, path, records, report, excluded)
        if sf.is_subagent and sf.parent_id is None:
            # 2.0.x flat agent files name their parent only in the records.
            parent = next(
                (
                    r.record_session_id
                    for r in records
                    if isinstance(r, Message) and r.record_session_id
                ),
                None,
            )
            if parent and parent != session_id:
                sf = replace(sf, parent_id=parent)
        for sid in sorted(sessions | forgotten):
            _rebuild_session(store, sid, sf, session_id, path, report)
        new_state.offset, new_state.lines = stats.end_offset, stats.end_line
        new_state.tail_hash = _prefix_hash(fh, stats.end_offset)
        store.save_file(new_state)


class _NotRegular(OSError):
    """The path turned into something other than a regular file after it was listed."""


def _open_regular(path: str) -> BinaryIO:
    """Open for reading without blocking (a FIFO would) and only if it is a regular file."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise _NotRegular(f"not a regular file ({_file_type(mode)}); not read")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


class _CommitGroups:
    """Commit finished files together, about every `COMMIT_SECONDS` or `COMMIT_BYTES`.

    Each file is still a savepoint of its own, so a file's content and cursor always
    land together; a commit per small file cost 15% of indexing time. An interrupt
    commits the files already finished; a kill loses at most the current group.
    """

    COMMIT_SECONDS = 0.5
    COMMIT_BYTES = 16 << 20

    def __init__(self, store: Store) -> None:
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
        if self.store.db.in_transaction:
            self.store.db.execute("COMMIT")


class _Abort(Exception):
    """Raised inside a file's transaction to roll it back after an I/O error."""


def _can_resume(fh: BinaryIO, state: FileState, size: int) -> bool:
    """True when the file only grew: every byte before the old offset is unchanged.

    The whole prefix is checked, not only its last KiB: an edit in place that kept the
    size (a token masked with `sed`) lay before that KiB and was never seen, so the old
    token stayed searchable. The check is a CRC-32 of the prefix (3.8 GB/s here, four
    times blake2b: it guards against edits, not adversaries) plus blake2b of the last
    KiB; it reads the prefix once per changed file, and an unchanged file still costs
    only a stat.
    """
    if state.status != "ok" or state.offset > size or state.offset == 0:
        return False
    return _prefix_hash(fh, state.offset) == state.tail_hash


def _prefix_hash(fh: BinaryIO, offset: int) -> str:
    """A digest of the file's first `offset` bytes (the part already indexed)."""
    crc = 0
    fh.seek(0)
    buffer = bytearray(min(offset, _BLOCK) or 1)
    view = memoryview(buffer)
    left = offset
    while left > 0:
        n = fh.readinto(view[: min(left, _BLOCK)])
        if not n:
            break
        crc = zlib.crc32(view[:n], crc)
        left -= n
    start = max(0, offset - 1024)
    fh.seek(start)
    tail = hashlib.blake2b(fh.read(offset - start), digest_size=16).hexdigest()
    return f"crc32:{crc:08x}:{offset - left}:{tail}"


def _claim_id(store: Store, sf: SourceFile) -> str:
    """The file's session id, made unique if another file already holds that id."""
    owner = store.scalar("SELECT file_path FROM sessions WHERE id = ?", (sf.session_id,))
    if owner is None or owner == str(sf.path):
        return sf.session_id
    suffix = hashlib.blake2b(str(sf.path).encode(), digest_size=4).hexdigest()
    return f"{sf.session_id}@{suffix}"


def _store_records(
    store: Store,
    sf: SourceFile,
    session_id: str,
    path: str,
    records: list[Message | MetaEvent],
    report: IndexReport,
    excluded: tuple[str, ...] = (),
) -> set[str]:
    """Store new records, secrets redacted, skipping replays; return the sessions touched.

    A session whose prompt holds `PRIVATE_MARKER` is marked private: nothing of it (or of
    its subagents) is stored, now or after later appends.
    """
    found: Counter[str] = Counter()
    private = store.private_sessions()
    if sf.parent_id in private:
        private.add(session_id)
    known = store.get_session(session_id) if excluded else None
    if excluded and (
        (known is not None and known.cwd and _excluded_dir(known.cwd, excluded))
        or any(isinstance(r, Message) and r.cwd and _excluded_dir(r.cwd, excluded) for r in records)
    ):
        private.add(session_id)  # for this run only: the config may change
        store.drop_session_content(session_id)
    for rec in records:
        if (
            isinstance(rec, Message)
            and rec.kind is MessageKind.PROMPT
            and PRIVATE_MARKER in rec.text
        ):
            sid = f"{session_id}:{rec.session_key}" if rec.session_key else session_id
            for marked in {sid, session_id} - private:
                store.mark_private(marked)
                private.add(marked)
    uuids = {r.uuid for r in records if isinstance(r, Message) and r.uuid}
    # A uuid belongs to the first line that carries it; later copies are replays
    # (a resumed session, a compaction agent replaying its parent).
    owners = store.uuid_owners(uuids) if uuids else {}
    owner_line: dict[str, int] = {}
    rows: list[tuple[str, int, Message | MetaEvent]] = []
    parts: dict[int, int] = {}
    touched: set[str] = set()
    replayed_from: set[str] = set()
    for rec in records:
        if isinstance(rec, Message) and rec.uuid:
            owner = owners.get(rec.uuid, (path, rec.line))
            if owner != (path, rec.line):
                if owner[0] != path:
                    replayed_from.add(owner[0])
                continue
            if owner_line.setdefault(rec.uuid, rec.line) != rec.line:
                continue
        sid = f"{session_id}:{rec.session_key}" if rec.session_key else session_id
        if sid in private or session_id in private:
            touched.add(sid)  # rebuilt from nothing: its row and units go
            continue
        rec = _redacted(rec, found)
        part = parts.get(rec.line, 0)
        parts[rec.line] = part + 1
        rows.append((sid, part, rec))
        touched.add(sid)
    store.add_records(path, rows)
    if replayed_from:
        store.add_replays(path, replayed_from)
    if found:
        store.add_redactions(path, found)
        for kind, n in found.items():
            report.redacted[kind] = report.redacted.get(kind, 0) + n
    if rows or store.get_session(session_id) is not None:
        touched.add(session_id)
    return touched


def _excluded_dir(cwd: str, globs: tuple[str, ...]) -> bool:
    """A project directory the config excludes: it, or a folder above it, matches a glob."""
    path = cwd.rstrip("/")
    return any(
        fnmatch.fnmatchcase(path, g) or fnmatch.fnmatchcase(path, g.rstrip("/") + "/*")
        for g in globs
    )


def _redacted(rec: Message | MetaEvent, found: Counter[str]) -> Message | MetaEvent:
    """The record with secrets in its text replaced; the only text the index ever sees.

    The paths a tool touched are redacted too: they become the hit's files list.
    """
    if isinstance(rec, Message):
        text, counts = redact(rec.text)
        files = rec.files
        for n, name in enumerate(rec.files):
            clean, more = redact(name)
            if more:
                files = (*files[:n], clean, *files[n + 1 :])
                counts.update(more)
        if counts:
            found.update(counts)
            return replace(rec, text=text, files=files)
        return rec
    value, counts = redact(rec.value)
    if counts:
        found.update(counts)
        return replace(rec, value=value)
    return rec


def _redacted_problem(problem: Problem) -> Problem:
    """A skipped line's preview quotes the transcript: it is stored redacted too, then
    shortened (the reader cut it on a token boundary, so a secret is whole to redact)."""
    detail, counts = redact(problem.detail or "")
    if len(detail) > _PREVIEW:
        detail = detail[:_PREVIEW] + "…"
    return replace(problem, detail=detail) if counts or detail != problem.detail else problem


def _rebuild_session(
    store: Store, sid: str, sf: SourceFile, file_session_id: str, path: str, report: IndexReport
) -> None:
    """Recompute a session's row, turns and fingerprint from its stored messages."""
    messages = store.session_messages(sid)
    if not any(m.kind is not MessageKind.HARNESS for m in messages):
        if store.get_session(sid) is not None:
            store.delete_session(sid)
            report.sessions_changed += 1
        return
    meta: dict[MetaKind, str] = {}
    uuids = {m.uuid for m in messages if m.uuid}
    trusted_summary = None
    for event in store.session_meta(sid):
        if event.kind is MetaKind.SUMMARY:
            if event.leaf_uuid in uuids:
                trusted_summary = event.value
        else:
            meta[event.kind] = event.value
    turns = build_turns(messages)
    # Lines the parser routed to a child session (inline subagents) live in the
    # file of their parent.
    inline_child = sid != file_session_id
    parent_id = file_session_id if inline_child else sf.parent_id
    if sf.is_subagent and parent_id is None:
        parent_id = store.scalar("SELECT parent_id FROM sessions WHERE id = ?", (sid,))
    agent_label = None
    description = redact(sf.agent_description)[0] if sf.agent_description else None
    if description and not inline_child:
        agent_label = f"{sf.agent_type or 'agent'}: {description}"
    timestamps = sorted(m.timestamp for m in messages if m.timestamp)
    session = Session(
        id=sid,
        source=sf.source,
        file_path=path,
        cwd=next((m.cwd for m in messages if m.cwd), None),
        title=choose_title(meta, trusted_summary, turns, agent_label),
        first_ts=timestamps[0] if timestamps else None,
        last_ts=timestamps[-1] if timestamps else None,
        git_branch=next((m.git_branch for m in reversed(messages) if m.git_branch), None),
        version=next((m.version for m in reversed(messages) if m.version), None),
        parent_id=parent_id,
        is_subagent=sf.is_subagent or inline_child,
        agent_type=sf.agent_type if not inline_child else None,
        n_turns=len(turns),
        n_messages=len(messages),
    )
    store.save_session(session, description if not inline_child else None)
    units = [
        UnitRow(
            kind="turn",
            ordinal=t.ordinal,
            source=sf.source,
            ts=t.timestamp,
            title="",
            prompt=t.prompt,
            reply=t.reply,
            tools=t.tools_text,
            tool_names=t.tool_names,
            files=t.files,
        )
        for t in turns
    ]
    fp = fingerprint(turns)
    if fp is not None:
        units.append(
            UnitRow(
                kind="session",
                ordinal=0,
                source=sf.source,
                ts=session.last_ts,
                title=session.title or "",
                prompt=fp.prompt,
                reply=fp.reply,
                tools="",
                tool_names=[],
                files=[],
            )
        )
    report.units_written += store.sync_units(sid, units)
    report.sessions_changed += 1


def _os_error(exc: OSError) -> str:
    return exc.strerror or str(exc)


def _start_run(store: Store, report: IndexReport) -> int:
    with store.transaction():
        store.db.execute(
            "INSERT INTO runs (started_at, roots) VALUES (?, ?)",
            (_now(), "\n".join(report.roots)),
        )
        return int(store.db.last_insert_rowid())


def _finish_run(store: Store, run_id: int, report: IndexReport) -> None:
    with store.transaction():
        store.db.execute(
            "UPDATE runs SET finished_at=?, files_seen=?, files_read=?, bytes_read=?,"
            " lines_read=?, sessions=?, problems=?, interrupted=? WHERE id=?",
            (
                _now(),
                report.files_seen,
                report.files_read,
                report.bytes_read,
                report.lines_read,
                report.sessions_changed,
                len(report.problems),
                int(report.interrupted),
                run_id,
            ),
        )


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


__all__ = ["IndexReport", "Root", "index_roots"]
