"""The index of files written (`storage/writes.py`): a person's own rows per session,
found by name (on a server, each person's alone: `Dialect.mine`)."""

from __future__ import annotations

from findsession.storage.sql.connection import SqlConnection
from findsession.storage.sql.tables import FILE_WRITES
from findsession.storage.writes import WriteMatch, WriteRow

#: The columns a save writes, after the session's id.
_WRITTEN = FILE_WRITES.names
_MATCH = (
    "w.id, w.session_id, w.turn, w.seq, w.ts, w.tool, w.op, w.path, w.abs_path, w.cwd,"
    " w.truncated, s.cwd"
)
#: A path as the call named it, from a folder boundary: a relative one matches a tail.
_SLASHED_PATH = "'/' || w.path"


def _ends_with(expression: str) -> str:
    """`expression` ends with the value of the second `?`, compared exactly (by case),
    the first `?` the same value. Written so both dialects read it alike: where the
    value is longer than the text, SQLite's `substr` counts from the end and the
    server's from the start, and neither gives a text that long."""
    return f"substr({expression}, length({expression}) - length(?) + 1) = ?"


class FileWritesMixin(SqlConnection):
    """The files each session wrote."""

    def save_file_writes(self, session_id: str, rows: list[WriteRow]) -> None:
        for table in ("file_writes", "file_writes_backlog"):
            self.execute(
                f"DELETE FROM {table} WHERE {self.mine()} AND session_id = ?", (session_id,)
            )
        self.many(
            f"INSERT INTO file_writes ({', '.join(_WRITTEN)})"
            f" VALUES ({', '.join('?' * len(_WRITTEN))})",
            [
                (
                    session_id,
                    r.turn,
                    r.seq,
                    r.ts,
                    r.tool,
                    r.op,
                    r.path,
                    r.abs_path,
                    r.name,
                    r.cwd,
                    r.text,
                    r.removed,
                    bool(r.truncated),
                )  # fmt: skip
                for r in rows
            ],
        )

    def file_writes_named(self, name: str, tail: str, project: str | None) -> list[WriteMatch]:
        # The name's index (led by the owner on a server) finds the rows; the tail keeps
        # the few of them that can be this file before any row reaches Python.
        where = (
            f"{self.mine('w')} AND w.name = ? AND ({_ends_with('w.abs_path')}"
            f" OR (w.abs_path IS NULL AND {_ends_with(_SLASHED_PATH)}))"
        )
        params: list[object] = [name, tail, tail, tail, tail]
        if project and project.strip("/\\"):
            where += " AND in_project(s.cwd, ?)"
            params.append(project)
        rows = self.query(
            f"SELECT {_MATCH} FROM file_writes w"
            f" JOIN sessions s ON s.id = w.session_id AND {self.mine('s')}"
            f" WHERE {where} ORDER BY coalesce(w.ts, s.last_ts) DESC NULLS LAST, w.seq DESC",
            params,
        )
        return [WriteMatch(*row[:10], bool(row[10]), row[11]) for row in rows]

    def file_write_texts(self, ids: list[int]) -> dict[int, tuple[str, str]]:
        found: dict[int, tuple[str, str]] = {}
        for batch in self.batches(ids):
            among, values = self.among("id", batch)
            rows = self.query(
                f"SELECT id, text, removed FROM file_writes WHERE {self.mine()} AND {among}",
                values,
            )
            found.update({rowid: (text, removed) for rowid, text, removed in rows})
        return found

    def file_writes_backlog(self, limit: int) -> list[str]:
        rows = self.query(
            f"SELECT session_id FROM file_writes_backlog WHERE {self.mine()} LIMIT ?", (limit,)
        )
        return [row[0] for row in rows]
