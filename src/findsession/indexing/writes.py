"""The files a session wrote, derived from its stored messages: what `blame` reads.

Called by `rebuild_session` for every session it rebuilds, and by `derive_backlog` for the
sessions indexed before the table existed. A call whose output says it failed (an edit
whose old text was not found, a write refused) wrote nothing and is left out, as is an
Aider block aider reported failed to match; a block an agent logged twice counts once.
Paths are kept as the call named them and resolved against the directory the call ran in
(its own, the message's, else the session's).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable

from findsession.domain import Message, MessageKind
from findsession.sources.file_writes import AIDER_FORMAT, file_writes
from findsession.sources.patches import search_replace
from findsession.storage.base import WriteRow
from findsession.storage.views import IndexStore
from findsession.turns import numbered

#: Sessions whose writes one backlog transaction derives.
BACKLOG_BATCH = 200
_WINDOWS = re.compile(r"^[A-Za-z]:[\\/]")


def write_rows(messages: list[Message], source: str, session_cwd: str | None) -> list[WriteRow]:
    """One row per file each successful writing call of the session wrote, in order."""
    failed = {
        m.tool_id
        for m in messages
        if m.kind is MessageKind.TOOL_OUTPUT and m.tool_id and m.is_error
    }
    rows: list[WriteRow] = []
    seen: set[tuple[str | None, str | None, str]] = set()
    for turn, m in numbered(messages):
        if m.kind is not MessageKind.TOOL_CALL or (m.tool_id and m.tool_id in failed):
            continue
        if source in AIDER_FORMAT and not m.files:
            _drop_failed_block(rows, m.text, turn)
            continue
        key = (m.tool_id, m.message_id, m.text)
        if (m.tool_id or m.message_id) and key in seen:
            continue
        seen.add(key)
        for w in file_writes(m, source):
            cwd = w.cwd or m.cwd or session_cwd
            rows.append(
                WriteRow(
                    turn=turn,
                    seq=len(rows),
                    ts=m.timestamp,
                    tool=w.tool,
                    op=w.op,
                    path=w.path,
                    abs_path=absolute(w.path, cwd),
                    name=file_name(w.path),
                    cwd=cwd,
                    text=w.text,
                    removed=w.removed,
                    truncated=w.truncated,
                )
            )
    return rows


def _drop_failed_block(rows: list[WriteRow], echo: str, turn: int) -> None:
    """Aider repeats a block that failed to match, under `SearchReplaceNoExactMatch`, with
    no file named (its parser keeps it as an edit without one): the block of this turn
    whose SEARCH side it repeats was never applied."""
    blocks = search_replace(echo)
    if blocks is None:
        return
    wanted = " ".join(blocks[1].split())
    for i in range(len(rows) - 1, -1, -1):
        if rows[i].turn == turn and " ".join(rows[i].removed.split()) == wanted:
            del rows[i]
            return


def absolute(path: str, cwd: str | None) -> str | None:
    """`path` made absolute against `cwd`, normalised, in `/` form (a Windows path too);
    None when it is relative with no directory known, or under `~` (whose home?)."""
    path = _slashes(path)
    if path.startswith("~"):
        return None
    if not posixpath.isabs(path) and not _WINDOWS.match(path):
        if not cwd:
            return None
        path = posixpath.join(_slashes(cwd), path)
    return posixpath.normpath(path)


def file_name(path: str) -> str:
    """The last part of a path, `/` or `\\` separated."""
    return _slashes(path).rstrip("/").rsplit("/", 1)[-1]


def _slashes(path: str) -> str:
    return path.replace("\\", "/") if _WINDOWS.match(path) or "\\" in path else path


def derive_backlog(store: IndexStore, progress: Callable[[int], None] | None = None) -> int:
    """Derive the writes of every session on the backlog (those indexed before the index
    of files written existed), a batch per transaction, so an interrupted run keeps what
    it did. Returns how many sessions it derived."""
    done = 0
    while True:
        batch = store.file_writes_backlog(BACKLOG_BATCH)
        if not batch:
            return done
        with store.transaction():
            for sid in batch:
                session = store.get_session(sid)
                rows = (
                    write_rows(store.session_messages(sid), session.source, session.cwd)
                    if session is not None
                    else []
                )
                store.save_file_writes(sid, rows)
        done += len(batch)
        if progress is not None:
            progress(done)
