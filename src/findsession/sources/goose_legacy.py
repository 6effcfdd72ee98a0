"""Goose's older sessions (up to 1.9): one JSON-lines file per session.

`<sessions folder>/<name>.jsonl`: line 1 is the session's metadata `{description,
working_dir, ...}` (in the oldest files a message may stand there instead), then one
message `{role, created, content: [blocks], metadata}` per line, appended as the session
goes on: read on from the JSON-lines cursor. `description` is the title Goose gave it.

Goose 1.10 moved sessions into `sessions.db`: the first time it creates that database,
it imports every `.jsonl` beside it as a session whose id is the file's name, and leaves
the files where they were (it never reads or writes them again). Such a file is read
as nothing while the database beside it holds its session, so a session is indexed
once, from the database. Both give the session the same indexed id (see
`goose.legacy_session_id`), so a file indexed before Goose imported it is replaced by the
database's copy when that is first read, in whatever order the two are read.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import IO, Any

from findsession.domain import Message, MetaEvent, MetaKind
from findsession.sources import foreign_db, goose_db
from findsession.sources.cursor import Cursor, Reading, Record, in_store
from findsession.sources.goose_records import Blocks, iso_seconds, message_records, visible
from findsession.sources.jsonl import ReadStats, clean_text, iter_objects, read_appended
from findsession.sources.opening import open_regular

STORE_NAME = "sessions.db"


def read_legacy(path: Path, fh: IO[bytes], cursor: Cursor | None) -> Reading:
    """The lines appended since `cursor`; nothing (and what the file gave before
    forgotten) when Goose imported the session into its database."""
    if imported(path):
        size = os.fstat(fh.fileno()).st_size
        return Reading([], in_store(size), fresh=True)
    # A read from the cursor starts after line 1: its folder is read again.
    parser = LegacyParser(_header_cwd(fh) if cursor is not None else None)
    reading = read_appended(fh, cursor, parser.parse)
    reading.problems.extend(parser.blocks.problems())
    return reading


def read_back_legacy(path: Path, lines: set[int]) -> dict[tuple[int, int], str]:
    """Each wanted line's message texts as the file holds them now."""
    parser = LegacyParser()
    texts: dict[tuple[int, int], str] = {}
    with open_regular(str(path)) as fh:
        for number, obj in iter_objects(fh, 0, 0, ReadStats(0, 0)):
            records = parser.parse(number, obj)
            if number in lines:
                for part, rec in enumerate(records):
                    if isinstance(rec, Message):
                        texts[(number, part)] = rec.text
    return texts


def imported(path: Path) -> bool:
    """Whether the `sessions.db` beside the file holds its session. Raises `OSError`
    when that database cannot be read now (the file is then read on the next run)."""
    store = path.parent / STORE_NAME
    if not store.is_file():
        return False
    with foreign_db.reading(store) as conn:
        return goose_db.missing_tables(conn) is None and goose_db.holds(conn, path.stem)


class LegacyParser:
    """Turns a session file's lines into records; knows the metadata line's folder."""

    def __init__(self, cwd: str | None = None) -> None:
        self.cwd = cwd
        self.blocks = Blocks()

    def parse(self, line: int, obj: dict[str, Any]) -> list[Record]:
        """Records of one line: the title from the metadata line, else a message's."""
        if line == 1 and "role" not in obj:
            cwd = obj.get("working_dir")
            self.cwd = clean_text(cwd) if isinstance(cwd, str) and cwd else self.cwd
            title = obj.get("description")
            title = " ".join(title.split()) if isinstance(title, str) else ""
            return [MetaEvent(MetaKind.AI_TITLE, clean_text(title), line)] if title else []
        if not visible(obj.get("metadata")):
            return []
        return list(
            message_records(
                obj.get("role"),
                obj.get("content"),
                self.blocks,
                line=line,
                timestamp=iso_seconds(obj.get("created")),
                cwd=self.cwd,
            )
        )


def _header_cwd(fh: IO[bytes]) -> str | None:
    fh.seek(0)
    for _, obj in iter_objects(fh, 0, 0, ReadStats(0, 0)):
        cwd = obj.get("working_dir") if "role" not in obj else None
        return clean_text(cwd) if isinstance(cwd, str) and cwd else None
    return None
