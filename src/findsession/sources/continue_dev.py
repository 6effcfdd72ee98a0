"""Continue: where its sessions are, and the `Source` that reads them.

Continue's editor extensions (VS Code, JetBrains) and its CLI (`cn`) keep every chat in
one folder, `$CONTINUE_GLOBAL_DIR/sessions`, else `~/.continue/sessions` (on every
system): one `<session id>.json` per session, rewritten whole after each change, and
`sessions.json`, the list of them with each one's creation time. A session file is read
whole when its content changed (`json_doc`). Continue deletes a session only when the
person does.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path
from typing import IO, Any

from findsession.domain import Resume, Session
from findsession.sources.base import Skip, Source, SourceFile, texts_by_line
from findsession.sources.continue_records import (
    created_at,
    load_listing,
    session_records,
)
from findsession.sources.cursor import Cursor, Reading
from findsession.sources.epoch import epoch_iso
from findsession.sources.json_doc import load_or_none, read_document
from findsession.sources.opening import open_regular
from findsession.sources.registry import SourceKind
from findsession.sources.resuming import option, resume_in_cwd
from findsession.sources.walking import top_files

KIND = SourceKind.CONTINUE
LISTING = "sessions.json"
_LISTING_BYTES = 64 << 20
_NOTE = (
    "Continue goes on from a saved session by forking it: `cn --fork` starts a new "
    "session with this one's history (the editor's chat picks it from its history view)."
)


class ContinueSource(Source):
    """Continue's `sessions/<id>.json`."""

    kind = KIND
    #: 2: the first extension's sessions (2023), which gave nothing, give their steps.
    #: 3: what a call of the CLI's gave back, kept only in its item's `toolCallStates`
    #: (`output`), is its output, failed when the call errored; none was read.
    reads = 3

    def discover(self, root: Path, skip: Skip) -> Iterator[Path]:
        """Every session file at `root`'s top (or `root` itself); the list is not one."""
        return top_files(root, skip, _is_session)

    def describe(self, path: Path) -> SourceFile:
        return SourceFile(path=path, source=KIND, session_id=path.name[: -len(".json")])

    def read(self, sf: SourceFile, fh: IO[bytes], cursor: Cursor | None) -> Reading:
        made, saved = session_times(sf.path, fh)
        return read_document(fh, cursor, lambda doc, problems: session_records(
            doc, made, saved, problems))  # fmt: skip

    def read_back(self, path: Path, lines: set[int]) -> dict[tuple[int, int], str]:
        """Each wanted message as the file holds it now, numbered as `read` did."""
        with open_regular(str(path)) as fh:
            doc = load_or_none(fh.read())
        records = session_records(doc, None, None, []) if doc is not None else []
        return texts_by_line(records, lines)

    def resume(self, session: Session) -> Resume:
        """`cn --fork <id>`: Continue's CLI has no way back into a session by its id
        (`--resume` takes the latest only), but forks one, a new session that starts
        with its history, in the folder the session worked in."""
        return resume_in_cwd(session, "cn", *option("--fork", session.id), note=_NOTE)

    def title_line(self, sf: SourceFile, title: str) -> bytes | None:
        """None: Continue rewrites the session whole; a line appended would be lost."""
        return None


def _is_session(name: str) -> bool:
    return name.endswith(".json") and name != LISTING


def session_times(path: Path, fh: IO[bytes]) -> tuple[str | None, str | None]:
    """When the session was made (the list beside it), and when its file was last
    written: Continue's layout, which Kiro IDE's sessions keep too."""
    saved = epoch_iso(os.fstat(fh.fileno()).st_mtime)
    listing = path.with_name(LISTING)
    try:
        st = os.stat(listing)
    except OSError:
        return saved, saved
    made = created_at(_listing(str(listing), st.st_size, st.st_mtime_ns), path.stem)
    return epoch_iso(made) or saved, saved


@lru_cache(maxsize=4)
def _listing(path: str, size: int, mtime_ns: int) -> Any:
    """Continue's list of sessions, read once per version of the file."""
    try:
        with open_regular(path) as fh:
            return load_listing(fh.read(_LISTING_BYTES))
    except OSError:
        return None
