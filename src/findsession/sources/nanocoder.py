"""Nanocoder's sessions: where they are, and the `Source` that reads them.

Nanocoder (from 1.24) saves each conversation of its terminal app, and each ACP session
an editor runs through it, as one JSON document, `<session id>.json` (a UUID), in its
sessions folder: `sessions/` of its data folder (`$NANOCODER_DATA_DIR`, else
`$XDG_DATA_HOME/nanocoder` on any system, else `~/.local/share/nanocoder`,
`~/Library/Application Support/nanocoder` on macOS, `%APPDATA%\\nanocoder` on Windows),
or the folder `nanocoder.sessions.directory` names in its config folder's
`nanocoder-preferences.json` (`agents.config.json` before 1.26). The document is
`{id, title, titleManuallySet?, createdAt, lastAccessedAt, messageCount, provider,
model, workingDirectory, messages}`; `sessions.json` beside it lists them without their
messages and is not read. Nanocoder writes a session again whole (to a temporary file
renamed into place) at every save, so it is read whole when its content changed
(`json_doc`). It deletes a session not used for 30 days, and the oldest beyond 100, by
default. `/compact` replaces the messages it summarises, in the file too: what the
index read before stays, and the document carries on after it (`nanocoder_compaction`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from findsession.domain import Resume, Session
from findsession.sources.base import Skip, Source, SourceFile
from findsession.sources.cursor import Cursor, Reading
from findsession.sources.generations import texts_by_generation
from findsession.sources.json_doc import load_or_none, read_document
from findsession.sources.nanocoder_compaction import follow
from findsession.sources.nanocoder_records import document_records
from findsession.sources.opening import open_regular
from findsession.sources.registry import SourceKind
from findsession.sources.resuming import option, resume_anywhere
from findsession.sources.walking import walk

KIND = SourceKind.NANOCODER
#: The names Nanocoder gives its session files (`isValidSessionId`); nothing else in a
#: sessions folder (its list, a save's `.tmp` file) is a session.
_SESSION = re.compile(r"\A[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.json\Z")
_NOTE = "Nanocoder 1.24 to 1.28 have no --resume: type /resume and the id in Nanocoder instead."


class NanocoderSource(Source):
    """Nanocoder's `sessions/<id>.json`."""

    kind = KIND
    #: 2: what was read before a compaction stays (the cursor keeps where the session's
    #: messages stand); an index made before has its sessions read again once.
    reads = 2

    def discover(self, root: Path, skip: Skip) -> Iterator[Path]:
        """Every session file under `root` (a sessions folder, a copy of the data folder,
        or one file)."""
        if root.is_file():
            if _SESSION.match(root.name):
                yield root
            return
        for folder, _dirs, names in walk(root, skip):
            yield from (folder / name for name in names if _SESSION.match(name))

    def describe(self, path: Path) -> SourceFile:
        return SourceFile(path=path, source=KIND, session_id=path.name[: -len(".json")])

    def read(self, sf: SourceFile, fh: IO[bytes], cursor: Cursor | None) -> Reading:
        return read_document(fh, cursor, document_records, follow)

    def read_back(self, path: Path, lines: set[int]) -> dict[tuple[int, int], str]:
        """Each wanted message as the file holds it now, numbered as `read` did: in each
        generation a wanted line is of (the reader keeps the stored text of a line the
        file no longer holds, which no longer redacts to it)."""
        with open_regular(str(path)) as fh:
            doc = load_or_none(fh.read())
        return texts_by_generation(document_records(doc, []) if doc is not None else [], lines)

    def resume(self, session: Session) -> Resume:
        """`nanocoder --resume <id>` (1.29 and later): Nanocoder loads a session by its id
        whatever folder it starts in, and its tools work in that folder: it is run in the
        session's own folder when that still exists."""
        return resume_anywhere(session, "nanocoder", *option("--resume", session.id), note=_NOTE)

    def title_line(self, sf: SourceFile, title: str) -> bytes | None:
        """None: Nanocoder keeps a title inside the session's document, which it writes
        again whole; a line appended would break the document."""
        return None
