"""The titles findsession wrote (`title_writes`), and the text a title is proposed from."""

from __future__ import annotations

from typing import Any

from findsession.storage.rows import json_list
from findsession.storage.sql.connection import SqlConnection
from findsession.storage.types import TitleWrite

#: Characters of each prompt a proposal reads: the start says what a session set out to do.
_PROMPT_CHARS = 2000
TITLE_COLUMNS = "session_id, file_path, title, line_offset, line, written_at"
_INDEX_ONLY = "session_id = ? AND line_offset IS NULL"


class TitlesMixin(SqlConnection):
    """The title log (see findsession.storage.base.TitleLog)."""

    def record_title_write(self, write: TitleWrite) -> None:
        """Remember a title we gave; an index-only title replaces the session's earlier one."""
        if write.offset is None:
            self.execute(f"DELETE FROM title_writes WHERE {_INDEX_ONLY}", (write.session_id,))
        self.execute(
            f"INSERT INTO title_writes ({TITLE_COLUMNS}) VALUES (?, ?, ?, ?, ?,"
            " coalesce(nullif(?, ''), now_iso()))",
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
        rows = self.query(
            f"SELECT {TITLE_COLUMNS} FROM title_writes {where}"
            " ORDER BY file_path, line_offset IS NULL, line_offset DESC",
            params,
        )
        return [title_write(r) for r in rows]

    def drop_title_write(self, write: TitleWrite) -> None:
        if write.offset is None:
            self.execute(f"DELETE FROM title_writes WHERE {_INDEX_ONLY}", (write.session_id,))
        else:
            self.execute(
                "DELETE FROM title_writes WHERE file_path = ? AND line_offset = ?",
                (write.file_path, write.offset),
            )

    def index_title(self, session_id: str) -> str | None:
        """The title kept in the index only for a session whose format has no place for one."""
        return self.scalar(
            f"SELECT title FROM title_writes WHERE {_INDEX_ONLY} ORDER BY id DESC LIMIT 1",
            (session_id,),
        )

    def title_material(self, session_id: str, turns: int) -> tuple[list[str], list[str]]:
        prompts = [
            r[0]
            for r in self.query(
                "SELECT substr(prompt, 1, ?) FROM units WHERE session_id = ? AND kind = 'turn'"
                " ORDER BY ordinal LIMIT ?",
                (_PROMPT_CHARS, session_id, turns),
            )
        ]
        files: dict[str, None] = {}
        for (listed,) in self.query(
            "SELECT files FROM units WHERE session_id = ? AND kind = 'turn' AND files <> '[]'"
            " ORDER BY ordinal",
            (session_id,),
        ):
            files.update((n, None) for n in json_list(listed) if isinstance(n, str))
        return prompts, list(files)


def title_write(row: tuple[Any, ...]) -> TitleWrite:
    """A title write from a row of `TITLE_COLUMNS`."""
    sid, path, title, offset, line, at = row
    return TitleWrite(sid, path, title, offset, bytes(line) if line is not None else None, at)
