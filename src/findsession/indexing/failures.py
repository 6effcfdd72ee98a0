"""A file whose reading failed: what to say about it, and what its row keeps.

A source's reader is format code facing whatever real files hold; a record it did not
expect (a `null` where text was, a list where an object was) must cost that one file,
never the run. The file's row then keeps the cursor of its last good read with status
`error` and the reason, so `status` names it, the next run reads it again from that
cursor (a fixed reader picks up exactly where the index stopped), and what it gave
before stays searchable.
"""

from __future__ import annotations

import os
import traceback

from findsession.indexing.report import IndexReport
from findsession.redact import redact
from findsession.storage.base import FileState
from findsession.storage.views import IndexStore

#: Characters of an exception's message kept: enough to recognise it in a report.
_MESSAGE = 200
_PACKAGE = os.sep + "findsession" + os.sep


def failure_reason(exc: BaseException) -> str:
    """`AttributeError in codex_records.py:129: 'NoneType' object has no attribute …`:
    the kind, the place in findsession's code it came from (what a bug report needs) and
    the message, redacted (a message may quote the record) and cut short."""
    places = [
        f"{os.path.basename(frame.f_code.co_filename)}:{line}"
        for frame, line in traceback.walk_tb(exc.__traceback__)
        if _PACKAGE in frame.f_code.co_filename
    ]
    where = ""
    if places:
        # Where it was raised, and the module that called into it (a format's parser
        # calling a shared helper): the helper alone would not say which format.
        where = f" in {places[-1]}"
        callers = [p for p in places[:-1] if p.split(":")[0] != places[-1].split(":")[0]]
        if callers:
            where += f" (from {callers[-1]})"
    message, _ = redact(" ".join(str(exc).split()))
    if len(message) > _MESSAGE:
        message = message[:_MESSAGE] + "…"
    return f"{type(exc).__name__}{where}: {message}" if message else type(exc).__name__ + where


def file_failed(
    store: IndexStore,
    path: str,
    source: str,
    root: str,
    state: FileState | None,
    exc: Exception,
    report: IndexReport,
) -> None:
    """Report a file its source failed on (describing or reading it), and keep its row
    for the next run; the file's own savepoint, if any, is rolled back already."""
    reason = failure_reason(exc)
    report.errors.append((path, f"{reason}; read again on the next run"))
    with store.transaction():
        keep_for_next_run(store, path, source, root, state, reason)


def keep_for_next_run(
    store: IndexStore, path: str, source: str, root: str, state: FileState | None, reason: str
) -> None:
    """Mark the file `error` with `reason`, keeping the cursor of its last good read (a
    file never read well gets a row with none), so the next run reads it again."""
    if state is None:
        store.save_file(FileState(path, source, root, None, 0, 0, 0, 0, None, "error", reason))
    elif state.status == "ok" or (state.status == "error" and state.tail_hash is not None):
        store.set_file_status(path, "error", reason)
    else:
        # A stale, binary or missing row was to be read from the start: still is.
        store.save_file(
            FileState(path, source, root, state.session_id, 0, 0, 0, 0, None, "error", reason)
        )
        store.set_file_status(path, "error", reason)  # its sessions are not missing
