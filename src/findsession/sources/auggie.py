"""Augment's Auggie CLI: where its sessions are, and the `Source` that reads them.

Auggie keeps every session in `~/.augment/sessions/<session id>.json` (its cache folder
moves only with its `--augment-cache-dir` flag; no variable moves it), rewritten whole
after each exchange through a temporary file renamed over it. Beside them it may keep
`<session id>-backup<N>.json`: a copy of a local history it replaced with the one its
server held, not a session of its own, so not read. A session file is read whole when
its content changed (`json_doc`). Auggie deletes a session only when the person does
(`auggie session delete`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from findsession.domain import Resume, Session
from findsession.sources.auggie_records import session_records
from findsession.sources.base import Skip, Source, SourceFile, texts_by_line
from findsession.sources.cursor import Cursor, Reading
from findsession.sources.json_doc import load_or_none, read_document
from findsession.sources.opening import open_regular
from findsession.sources.registry import SourceKind
from findsession.sources.resuming import option, resume_in_cwd
from findsession.sources.walking import top_files

KIND = SourceKind.AUGGIE
_BACKUP = re.compile(r"-backup\d+\.json\Z")


class AuggieSource(Source):
    """Auggie's `sessions/<id>.json`."""

    kind = KIND

    def discover(self, root: Path, skip: Skip) -> Iterator[Path]:
        """Every session file at `root`'s top (or `root` itself); no backup copy."""
        return top_files(root, skip, _is_session)

    def describe(self, path: Path) -> SourceFile:
        return SourceFile(path=path, source=KIND, session_id=path.name[: -len(".json")])

    def read(self, sf: SourceFile, fh: IO[bytes], cursor: Cursor | None) -> Reading:
        return read_document(fh, cursor, session_records)

    def read_back(self, path: Path, lines: set[int]) -> dict[tuple[int, int], str]:
        """Each wanted message as the file holds it now, numbered as `read` did."""
        with open_regular(str(path)) as fh:
            doc = load_or_none(fh.read())
        records = session_records(doc, []) if doc is not None else []
        return texts_by_line(records, lines)

    def resume(self, session: Session) -> Resume:
        """`auggie --resume <id>`, in the folder the session worked in."""
        return resume_in_cwd(session, "auggie", *option("--resume", session.id))

    def title_line(self, sf: SourceFile, title: str) -> bytes | None:
        """None: Auggie rewrites the session whole; a line appended would be lost."""
        return None


def _is_session(name: str) -> bool:
    return name.endswith(".json") and not _BACKUP.search(name)
