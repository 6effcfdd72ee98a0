"""Keep the index in step with a title we wrote or took back, without a full index run.

After an append the file is read on from its stored cursor, by its own source, exactly
as an index run would: only our line is new, the session's title becomes it, and the
file's new size and mtime are recorded, so the next run reads nothing. After an undo the
same call finds the file shorter and reads it again. A title kept in the index only
needs no file at all: the session is rebuilt from what the index holds.
"""

from __future__ import annotations

from pathlib import Path

from findsession.indexing.file import Abort, index_file
from findsession.indexing.report import IndexReport
from findsession.indexing.session import rebuild_session
from findsession.sources import SOURCES
from findsession.storage.base import FileState
from findsession.storage.views import TitleStore


def refresh_file(store: TitleStore, state: FileState, excluded: tuple[str, ...]) -> str | None:
    """Read what changed in one indexed file; a note for the person when it could not
    be read now (the next index run will)."""
    report = IndexReport(roots=[state.root or str(Path(state.path).parent)])
    try:
        sf = SOURCES[state.source].describe(Path(state.path))
        index_file(store, sf, state.root or "", state, report, excluded)
    except (Abort, OSError) as exc:
        report.errors.append((state.path, str(exc) or type(exc).__name__))
    if report.errors:
        return f"the index will read {state.path} again on its next run ({report.errors[0][1]})"
    return None


def retitle(store: TitleStore, session_id: str, source: str, path: str) -> None:
    """Rebuild a main session from the index (its row, units and so its title), as an
    index run would after reading its file, without reading the file again."""
    sf = SOURCES[source].describe(Path(path))
    with store.transaction():
        rebuild_session(store, session_id, sf, session_id, path, IndexReport(roots=[]))
