"""The titles findsession wrote (`title_writes`), and the text a title is proposed from."""

from __future__ import annotations

import json
from typing import Any

from findsession.storage.base import TitleWrite
from findsession.storage.postgresql.connection import Connection

#: Characters of each prompt a proposal reads: the start says what a session set out to do.
_PROMPT_CHARS = 2000
_COLUMNS = "session_id, file_path, title, line_offset, line, written_at"


class TitlesMixin(Connection):
    """The title log (see findsession.storage.base.TitleLog)."""

    def record_title_write(self, write: TitleWrite) -> None:
        """Remember a title we gave; an index-only title replaces the session's earlier one."""
        if write.offset is None:
            self.db.execute(
                "DELETE FROM title_writes WHERE session_id = %s AND line_offset IS NULL",
                (write.session_id,),
            )
        self.db.execute(
            f"INSERT INTO title_writes ({_COLUMNS}) VALUES (%s, %s, %s, %s, %s,"
            " coalesce(nullif(%s, ''), now_iso()))",
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
        where, params = ("WHERE session_id = %s", (session_id,)) if session_id else ("", ())
        rows = self.query(
            f"SELECT {_COLUMNS} FROM title_writes {where}"
            " ORDER BY file_path, line_offset IS NULL, line_offset DESC",
            params,
        )
        return [_write(r) for r in rows]

    def drop_title_write(self, write: TitleWrite) -> None:
        if write.offset is None:
            self.db.execute(
                "DELETE FROM title_writes WHERE session_id = %s AND line_offset IS NULL",
                (write.session_id,),
            )
        else:
            self.db.execute(
                "DELETE FROM title_writes WHERE file_path = %s AND line_offset = %s",
                (write.file_path, write.offset),
            )

    def index_title(self, session_id: str) -> str | None:
        """The title kept in the index only for a session whose format has no place for one."""
        return self.scalar(
            "SELECT title FROM title_writes WHERE session_id = %s AND line_offset IS NULL"
            " ORDER BY id DESC LIMIT 1",
            (session_id,),
        )

    def title_material(self, session_id: str, turns: int) -> tuple[list[str], list[str]]:
        prompts = [
            r[0]
            for r in self.query(
                "SELECT left(prompt, %s) FROM units WHERE session_id = %s AND kind = 'turn'"
                " ORDER BY ordinal LIMIT %s",
                (_PROMPT_CHARS, session_id, turns),
            )
        ]
        files: dict[str, None] = {}
        for (listed,) in self.query(
            "SELECT files FROM units WHERE session_id = %s AND kind = 'turn' AND files <> '[]'"
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
