"""IndexStore a file's new records: secrets redacted, private and excluded sessions dropped,
replays of lines another file holds skipped and remembered."""

from __future__ import annotations

import fnmatch
import functools
from collections import Counter
from dataclasses import replace

from findsession.domain import Message, MessageKind, MetaEvent, Problem
from findsession.indexing.report import IndexReport
from findsession.redact import PRIVATE_MARKER, redact
from findsession.sources import SourceFile
from findsession.sources.jsonl import clean_text
from findsession.storage.views import IndexStore

#: Characters of a skipped line kept to show where it is.
_PREVIEW = 100


def store_records(
    store: IndexStore,
    sf: SourceFile,
    session_id: str,
    path: str,
    records: list[Message | MetaEvent],
    report: IndexReport,
    excluded: tuple[str, ...] = (),
) -> set[str]:
    """IndexStore new records, secrets redacted, skipping replays; return the sessions touched.

    A session whose prompt holds `PRIVATE_MARKER` is marked private: nothing of it (or of
    its subagents) is stored, now or after later appends.
    """
    found: Counter[tuple[str, int, str]] = Counter()
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
            and rec.kind in (MessageKind.PROMPT, MessageKind.STEER, MessageKind.SECTION)
            and PRIVATE_MARKER in rec.text
        ):
            sid = f"{session_id}:{rec.session_key}" if rec.session_key else session_id
            for marked in ({sid} if sf.sibling_sessions else {sid, session_id}) - private:
                store.mark_private(marked)
                private.add(marked)
    uuids = {r.uuid for r in records if isinstance(r, Message) and r.uuid}
    # A uuid belongs to the first line that carries it; later copies are replays
    # (a resumed session, a compaction agent replaying its parent).
    owners = store.uuid_owners(uuids, path) if uuids else {}
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
        counts: Counter[str] = Counter()
        rec = _redacted(rec, counts)
        for kind, n in counts.items():
            found[(sid, rec.line, kind)] += n
        part = parts.get(rec.line, 0)
        parts[rec.line] = part + 1
        rows.append((sid, part, rec))
        touched.add(sid)
    store.add_records(path, rows)
    if replayed_from:
        store.add_replays(path, replayed_from)
    if found:
        store.add_redactions(path, found)
        for (_sid, _line, kind), n in found.items():
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

    The paths a tool touched are redacted too (they become the hit's files list), and
    every other text the index keeps of a message: its working directory, git branch,
    tool name and agent version.
    """
    if isinstance(rec, Message):
        text, counts = redact(rec.text)
        files = rec.files
        for n, name in enumerate(rec.files):
            clean, more = redact(name)
            if more:
                files = (*files[:n], clean, *files[n + 1 :])
                counts.update(more)
        heading = rec.heading
        if heading:
            heading, more = redact(heading)
            counts.update(more)
        # A working directory is a path the agent recorded, like a tool's file, and may
        # hold what the person pasted into a folder name; a branch is named by hand too.
        named = {}
        for field in ("cwd", "git_branch", "tool_name", "version"):
            value = getattr(rec, field)
            if value:
                named[field], more = _redact_name(value)
                counts.update(more)
        if counts:
            found.update(counts)
            return replace(rec, text=text, files=files, heading=heading, **named)
        return rec
    value, counts = redact(rec.value)
    if counts:
        found.update(counts)
        return replace(rec, value=value)
    return rec


@functools.lru_cache(maxsize=4096)
def _redact_name(value: str) -> tuple[str, Counter[str]]:
    """`redact` of a short value every message of a session repeats (its folder, branch,
    tool, version): worked out once, not once a message. Callers never change it."""
    return redact(value)


def redacted_problem(problem: Problem) -> Problem:
    """A skipped line's preview quotes the transcript: it is stored redacted too, then
    shortened (the reader cut it on a token boundary, so a secret is whole to redact).
    Reason and detail may quote a value of the file (an unknown kind's name): lone
    surrogates are replaced, as in any stored text."""
    detail, counts = redact(clean_text(problem.detail or ""))
    if len(detail) > _PREVIEW:
        detail = detail[:_PREVIEW] + "…"
    reason = clean_text(problem.reason)
    if counts or detail != problem.detail or reason != problem.reason:
        return replace(problem, reason=reason, detail=detail)
    return problem
