"""The titles findsession wrote (`title_writes`), and the text a title is proposed from."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import apsw

from findsession.storage.base import TitleWrite
from findsession.storage.sqlite.connection import Connection

#: Characters of each prompt a proposal reads: the start says what a session set out to do.
_PROMPT_CHARS = 2000
_COLUMNS = "session_id, file_path, title, offset, line, written_at"


class TitlesMixin(Connection):
    """The title log (see findsession.storage.base.TitleLog)."""

    @staticmethod
    def title_writes_in(path: Path) -> list[TitleWrite] | None:
        """The title log of another index file (one set aside by a rebuild), so the
        lines we wrote stay ours, and undoable, in the new one; None when unreadable."""
        try:
            db = apsw.Connection(str(path), flags=apsw.SQLITE_OPEN_READONLY)
            try:
                found = db.execute("SELECT 1 FROM sqlite_master WHERE name = 'title_writes'")
                if found.fetchone() is None:
                    return []  # an index from before titles could be written
                rows = list(db.execute(f"SELECT {_COLUMNS} FROM title_writes"))
            finally:
                db.close()
        except apsw.Error:
            return None
        return [_write(r) for r in rows]

    def record_title_write(self, write: TitleWrite) -> None:
        """Remember a title we gave; an index-only title replaces the session's earlier one."""
        if write.offset is None:
            self.db.execute(
                "DELETE FROM title_writes WHERE session_id = ? AND offset IS NULL",
                (write.session_id,),
            )
        self.db.execute(
            f"INSERT INTO title_writes ({_COLUMNS}) VALUES (?, ?, ?, ?, ?,"
            " coalesce(nullif(?, ''), strftime('%Y-%m-%dT%H:%M:%SZ', 'now')))",
            (
                write.session_id,
                write.file_path,
                write.title,
                write.offset,
                write.line,
                write.written_at,
            ),
        )

    def title_writes(self, session_id: str | None = None) -> list[TitleWrite]:
        """Every title we gave (or one session's), by file and from the file's end back:
        removing a later line first leaves the offsets of the earlier ones true."""
        where, params = ("WHERE session_id = ?", (session_id,)) if session_id else ("", ())
        rows = self.db.execute(
            f"SELECT {_COLUMNS} FROM title_writes {where}"
            " ORDER BY file_path, offset IS NULL, offset DESC",
            params,
        )
        return [_write(r) for r in rows]

    def drop_title_write(self, write: TitleWrite) -> None:
        if write.offset is None:
            self.db.execute(
                "DELETE FROM title_writes WHERE session_id = ? AND offset IS NULL",
                (write.session_id,),
            )
        else:
            self.db.execute(
                "DELETE FROM title_writes WHERE file_path = ? AND offset = ?",
                (write.file_path, write.offset),
            )

    def index_title(self, session_id: str) -> str | None:
        """The title kept in the index only for a session whose format has no place for one."""
        return self.scalar(
            "SELECT title FROM title_writes WHERE session_id = ? AND offset IS NULL"
            " ORDER BY id DESC LIMIT 1",
            (session_id,),
        )

    def title_material(self, session_id: str, turns: int) -> tuple[list[str], list[str]]:
        prompts = [
            r[0]
            for r in self.db.execute(
                "SELECT substr(prompt, 1, ?) FROM units WHERE session_id = ? AND kind = 'turn'"
                " ORDER BY ordinal LIMIT ?",
                (_PROMPT_CHARS, session_id, turns),
            )
        ]
        files: dict[str, None] = {}
        for (listed,) in self.db.execute(
            "SELECT files FROM units WHERE session_id = ? AND kind = 'turn' AND files != '[]'"
            " ORDER BY ordinal",
            (session_id,),
        ):
            try:
                names = json.loads(listed or "[]")
            except ValueError:
                continue
            files.update((n, None) for n in names if isinstance(n, str))
        return prompts, list(files)


def _write(row: tuple[Any, ...]) -> TitleWrite:
    sid, path, title, offset, line, at = row
    return TitleWrite(sid, path, title, offset, bytes(line) if line is not None else None, at)
