"""The title log of another index file (the statements of this one are
findsession.storage.sql.titles)."""

from __future__ import annotations

from pathlib import Path

import apsw

from findsession.storage.base import TitleWrite
from findsession.storage.sql.titles import TITLE_COLUMNS, title_write


def title_writes_in(path: Path) -> list[TitleWrite] | None:
    """The title log of another index file (one set aside by a rebuild), so the lines
    we wrote stay ours, and undoable, in the new one; None when unreadable. The file
    may be of any schema step: before step 13 the offset column was `offset`."""
    try:
        db = apsw.Connection(str(path), flags=apsw.SQLITE_OPEN_READONLY)
        try:
            columns = {r[1] for r in db.execute("PRAGMA table_info(title_writes)")}
            if not columns:
                return []  # an index from before titles could be written
            named = (
                TITLE_COLUMNS
                if "line_offset" in columns
                else TITLE_COLUMNS.replace("line_offset", '"offset"')
            )
            rows = list(db.execute(f"SELECT {named} FROM title_writes"))
        finally:
            db.close()
    except apsw.Error:
        return None
    return [title_write(r) for r in rows]
