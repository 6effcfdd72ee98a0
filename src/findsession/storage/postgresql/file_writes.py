"""The index of files written (`storage/writes.py`): a person's own rows, found by name."""

from __future__ import annotations

from findsession.storage.postgresql.connection import Connection
from findsession.storage.writes import WriteMatch, WriteRow

_MATCH = (
    "w.id, w.session_id, w.turn, w.seq, w.ts, w.tool, w.op, w.path, w.abs_path, w.cwd,"
    " w.truncated, s.cwd"
)


class FileWritesMixin(Connection):
    """The files each session wrote."""

    def save_file_writes(self, session_id: str, rows: list[WriteRow]) -> None:
        mine = "owner = current_user AND session_id = %s"
        self.db.execute(f"DELETE FROM file_writes WHERE {mine}", (session_id,))
        self.db.execute(f"DELETE FROM file_writes_backlog WHERE {mine}", (session_id,))
        self.many(
            "INSERT INTO file_writes (session_id, turn, seq, ts, tool, op, path, abs_path, name,"
            " cwd, text, removed, truncated) VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s)",
            [
                (session_id, r.turn, r.seq, r.ts, r.tool, r.op, r.path, r.abs_path, r.name,
                 r.cwd, r.text, r.removed, r.truncated)  # fmt: skip
                for r in rows
            ],
        )

    def file_writes_named(self, name: str, tail: str, project: str | None) -> list[WriteMatch]:
        where = (
            "w.owner = current_user AND w.name = %s AND (right(w.abs_path, length(%s)) = %s"
            " OR (w.abs_path IS NULL AND right('/' || w.path, length(%s)) = %s))"
        )
        params = [name, tail, tail, tail, tail]
        if project and project.strip("/\\"):
            where += " AND in_project(s.cwd, %s)"
            params.append(project)
        rows = self.query(
            f"SELECT {_MATCH} FROM file_writes w"
            " JOIN sessions s ON s.id = w.session_id AND s.owner = w.owner"
            f" WHERE {where} ORDER BY coalesce(w.ts, s.last_ts) DESC NULLS LAST, w.seq DESC",
            params,
        )
        return [WriteMatch(*row[:10], bool(row[10]), row[11]) for row in rows]

    def file_write_texts(self, ids: list[int]) -> dict[int, tuple[str, str]]:
        if not ids:
            return {}
        rows = self.query(
            "SELECT id, text, removed FROM file_writes WHERE owner = current_user"
            " AND id = ANY(%s)",
            (list(ids),),
        )
        return {rowid: (text, removed) for rowid, text, removed in rows}

    def file_writes_backlog(self, limit: int) -> list[str]:
        rows = self.query(
            "SELECT session_id FROM file_writes_backlog WHERE owner = current_user LIMIT %s",
            (limit,),
        )
        return [row[0] for row in rows]
