"""The index of files written (`storage/writes.py`): rows per session, found by name."""

from __future__ import annotations

from findsession.storage.sqlite.connection import Connection
from findsession.storage.writes import WriteMatch, WriteRow

_MATCH = (
    "w.id, w.session_id, w.turn, w.seq, w.ts, w.tool, w.op, w.path, w.abs_path, w.cwd,"
    " w.truncated, s.cwd"
)


class FileWritesMixin(Connection):
    """The files each session wrote."""

    def save_file_writes(self, session_id: str, rows: list[WriteRow]) -> None:
        self.db.execute("DELETE FROM file_writes WHERE session_id = ?", (session_id,))
        self.db.execute("DELETE FROM file_writes_backlog WHERE session_id = ?", (session_id,))
        self.db.executemany(
            "INSERT INTO file_writes (session_id, turn, seq, ts, tool, op, path, abs_path, name,"
            " cwd, text, removed, truncated) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
            [
                (session_id, r.turn, r.seq, r.ts, r.tool, r.op, r.path, r.abs_path, r.name,
                 r.cwd, r.text, r.removed, int(r.truncated))  # fmt: skip
                for r in rows
            ],
        )

    def file_writes_named(self, name: str, tail: str, project: str | None) -> list[WriteMatch]:
        # The name's index finds the rows; the tail (compared exactly, by case) keeps the
        # few of them that can be this file before any row reaches Python.
        where = (
            "w.name = ? AND (substr(w.abs_path, -length(?)) = ?"
            " OR (w.abs_path IS NULL AND substr('/' || w.path, -length(?)) = ?))"
        )
        params = [name, tail, tail, tail, tail]
        if project and project.strip("/\\"):
            where += " AND in_project(s.cwd, ?)"
            params.append(project)
        rows = self.db.execute(
            f"SELECT {_MATCH} FROM file_writes w JOIN sessions s ON s.id = w.session_id"
            f" WHERE {where} ORDER BY coalesce(w.ts, s.last_ts) DESC, w.seq DESC",
            params,
        )
        return [WriteMatch(*row[:10], bool(row[10]), row[11]) for row in rows]

    def file_write_texts(self, ids: list[int]) -> dict[int, tuple[str, str]]:
        found: dict[int, tuple[str, str]] = {}
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            marks = ",".join("?" * len(chunk))
            for rowid, text, removed in self.db.execute(
                f"SELECT id, text, removed FROM file_writes WHERE id IN ({marks})", chunk
            ):
                found[rowid] = (text, removed)
        return found

    def file_writes_backlog(self, limit: int) -> list[str]:
        return [
            row[0]
            for row in self.db.execute(
                "SELECT session_id FROM file_writes_backlog LIMIT ?", (limit,)
            )
        ]
