"""JetBrains Junie: where its sessions are, and the `Source` that reads them.

Junie (its CLI, and the IDE plugin that now runs inside AI Assistant) keeps every session
in `$JUNIE_HOME/sessions`, else `~/.junie/sessions` (on Windows too, under the user's
folder): a folder per session, `session-<yymmdd>-<hhmmss>-<random>/`, holding
`events.jsonl` (`junie_records`), and beside the folders `index.jsonl`, one line per
session with its `taskName` (the title), `projectDir` and times. Junie is closed source
and JetBrains documents none of this: it is what other tools' readers found in captured
sessions. Junie re-sends a block of the agent's work each time it changes, so a log is
read whole when its content (or its index entry) changed, each block once.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import IO, Any

from findsession.domain import MetaEvent, MetaKind, Problem, Resume, Session
from findsession.sources.base import Skip, Source, SourceFile, texts_by_line
from findsession.sources.cursor import HEAD, Cursor, Reading, Record, looks_binary
from findsession.sources.jsonl import ReadStats, clean_text, iter_objects
from findsession.sources.junie_records import index_entries, log_records
from findsession.sources.opening import open_regular
from findsession.sources.registry import SourceKind
from findsession.sources.resuming import no_resume
from findsession.sources.walking import walk

KIND = SourceKind.JUNIE
LOG = "events.jsonl"
INDEX = "index.jsonl"
_INDEX_BYTES = 64 << 20
_NO_RESUME = (
    "Junie documents no command that opens a session by its id: open the project in the "
    "IDE (or start `junie` there) and pick the session from Junie's history."
)


class JunieSource(Source):
    """Junie's `sessions/<session>/events.jsonl`."""

    kind = KIND

    def discover(self, root: Path, skip: Skip) -> Iterator[Path]:
        """Every session's `events.jsonl` under `root`; its task folders are not walked."""
        if root.is_file():
            if root.name == LOG:
                yield root
            return
        for folder, dirs, names in walk(root, skip):
            if LOG in names:
                yield folder / LOG
                dirs[:] = []  # a session's own folders hold the agent's scratch state

    def describe(self, path: Path) -> SourceFile:
        return SourceFile(path=path, source=KIND, session_id=path.parent.name)

    def stamp_paths(self, path: Path) -> list[str]:
        """The sessions' index, where a session's title lands."""
        return [str(path.parent.parent / INDEX)]

    def read(self, sf: SourceFile, fh: IO[bytes], cursor: Cursor | None) -> Reading:
        """The whole log, when it or the session's index entry changed."""
        entry = _index(sf.path.parent.parent).get(sf.session_id, {})
        fh.seek(0)
        data = fh.read()
        digest = hashlib.blake2b(data, digest_size=16)
        digest.update(json.dumps(entry, sort_keys=True, default=str).encode("utf-8", "replace"))
        now = Cursor(offset=len(data), lines=0, digest="blake2b:" + digest.hexdigest())
        if cursor is not None and cursor.digest == now.digest:
            return Reading([], now, fresh=False, unchanged=True)
        problems: list[Problem] = []
        records = list(_parse(data, entry, problems))
        binary = None
        if not records and looks_binary(data[:HEAD]):
            binary = "binary: no part of it is a record"
        return Reading(
            records, now, fresh=True, binary=binary, bytes_read=len(data), problems=problems
        )

    def read_back(self, path: Path, lines: set[int]) -> dict[tuple[int, int], str]:
        """Each wanted message as the log holds it now, numbered as `read` did."""
        with open_regular(str(path)) as fh:
            data = fh.read()
        entry = _index(path.parent.parent).get(path.parent.name, {})
        return texts_by_line(_parse(data, entry, []), lines)

    def resume(self, session: Session) -> Resume:
        """None: Junie documents no command that opens a session by its id."""
        return no_resume(_NO_RESUME)

    def title_line(self, sf: SourceFile, title: str) -> bytes | None:
        """None: Junie keeps a title in its index, which findsession never writes."""
        return None


def _parse(data: bytes, entry: dict[str, Any], problems: list[Problem]) -> Iterable[Record]:
    stats = ReadStats(end_offset=0, end_line=0)
    lines = list(iter_objects(io.BytesIO(data), 0, 0, stats))
    problems.extend(stats.problems)
    records = log_records(lines, problems)
    folder = entry.get("projectDir")
    if isinstance(folder, str) and folder.strip():
        records = [_with_cwd(r, clean_text(folder)) for r in records]
    title = entry.get("taskName")
    if isinstance(title, str) and title.strip() and records:
        records.append(MetaEvent(MetaKind.AI_TITLE, clean_text(title.strip()), 0))
    return records


def _with_cwd(rec: Record, folder: str) -> Record:
    """A record with the index's project folder, when its log named none."""
    if isinstance(rec, MetaEvent) or rec.cwd:
        return rec
    return replace(rec, cwd=folder)


def _index(folder: Path) -> dict[str, dict[str, Any]]:
    path = folder / INDEX
    try:
        st = os.stat(path)
    except OSError:
        return {}
    return _read_index(str(path), st.st_size, st.st_mtime_ns)


@lru_cache(maxsize=4)
def _read_index(path: str, size: int, mtime_ns: int) -> dict[str, dict[str, Any]]:
    """Junie's index of sessions, read once per version of the file."""
    try:
        with open_regular(path) as fh:
            return index_entries(fh.read(_INDEX_BYTES))
    except OSError:
        return {}
