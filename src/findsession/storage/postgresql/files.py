"""Transcript files: their read cursors, problems, redaction counts and replays."""

from __future__ import annotations

from collections.abc import Iterable

from findsession.domain import Problem
from findsession.storage.base import FileState
from findsession.storage.postgresql.connection import Connection

_COLUMNS = (
    "path, source, root, session_id, size, mtime_ns, read_offset, lines, tail_hash, status, error"
)


class FilesMixin(Connection):
    """Transcript files."""

    def file_states(self, paths: Iterable[str] | None = None) -> dict[str, FileState]:
        if paths is None:
            rows = self.query(f"SELECT {_COLUMNS} FROM files")
        else:
            rows = self.query(
                f"SELECT {_COLUMNS} FROM files WHERE path = ANY(%s)", (list(dict.fromkeys(paths)),)
            )
        return {row[0]: FileState(*row) for row in rows}

    def indexed_roots(self) -> list[tuple[str, str]]:
        rows = self.query(
            "SELECT DISTINCT root, source FROM files WHERE root IS NOT NULL ORDER BY root, source"
        )
        return [(row[0], row[1]) for row in rows]

    def save_file(self, state: FileState) -> None:
        self.db.execute(
            f"INSERT INTO files ({_COLUMNS}, indexed_at)"
            " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, now_iso())"
            " ON CONFLICT (owner, path) DO UPDATE SET source = excluded.source,"
            " root = excluded.root,"
            " session_id = excluded.session_id, size = excluded.size,"
            " mtime_ns = excluded.mtime_ns, read_offset = excluded.read_offset,"
            " lines = excluded.lines, tail_hash = excluded.tail_hash,"
            " status = excluded.status, error = excluded.error, indexed_at = excluded.indexed_at",
            (
                state.path,
                state.source,
                state.root,
                state.session_id,
                state.size,
                state.mtime_ns,
                state.offset,
                state.lines,
                state.tail_hash,
                state.status,
                state.error,
            ),
        )

    def set_file_status(self, path: str, status: str, error: str | None = None) -> None:
        self.db.execute(
            "UPDATE files SET status = %s, error = %s WHERE path = %s", (status, error, path)
        )
        self.db.execute(
            "UPDATE sessions SET missing = %s WHERE file_path = %s", (status == "missing", path)
        )

    def forget_file_content(self, path: str) -> list[str]:
        """Drop what was read from `path` (before a full re-read); return its sessions."""
        sessions = [
            r[0]
            for r in self.query(
                "SELECT session_id FROM messages WHERE file_path = %s"
                " UNION SELECT session_id FROM session_meta WHERE file_path = %s",
                (path, path),
            )
        ]
        for table in ("messages", "session_meta", "problems", "redactions", "replays"):
            self.db.execute(f"DELETE FROM {table} WHERE file_path = %s", (path,))
        return sessions

    def add_redactions(self, path: str, counts: dict[str, int]) -> None:
        self.many(
            "INSERT INTO redactions (file_path, kind, n) VALUES (%s, %s, %s)"
            " ON CONFLICT (owner, file_path, kind) DO UPDATE SET n = redactions.n + excluded.n",
            [(path, kind, n) for kind, n in counts.items()],
        )

    def remove_file(self, path: str) -> None:
        """Remove a file and every session it holds from the index (`--prune`)."""
        sessions = self.forget_file_content(path)
        sessions += [
            r[0] for r in self.query("SELECT id FROM sessions WHERE file_path = %s", (path,))
        ]
        for sid in set(sessions):
            self.delete_session(sid)
        self.db.execute("DELETE FROM files WHERE path = %s", (path,))
        self.db.execute(
            "DELETE FROM replays WHERE file_path = %s OR source_path = %s", (path, path)
        )

    def delete_session(self, session_id: str) -> None:
        for table, column in (
            ("units", "session_id"),
            ("messages", "session_id"),
            ("session_meta", "session_id"),
            ("sessions", "id"),
        ):
            self.db.execute(f"DELETE FROM {table} WHERE {column} = %s", (session_id,))

    def add_replays(self, path: str, sources: Iterable[str]) -> None:
        """Remember that `path` repeated lines first read from each of `sources`."""
        self.many(
            "INSERT INTO replays (file_path, source_path) VALUES (%s, %s) ON CONFLICT DO NOTHING",
            [(path, src) for src in sources],
        )

    def replaying_files(self, source_path: str) -> list[str]:
        """Files whose lines were skipped as replays of lines of `source_path`."""
        return [
            r[0]
            for r in self.query(
                "SELECT file_path FROM replays WHERE source_path = %s", (source_path,)
            )
        ]

    def read_again(self, path: str) -> None:
        """Make the next read of `path` start from scratch and claim its session id anew."""
        self.db.execute(
            "UPDATE files SET status = 'stale', session_id = NULL, tail_hash = NULL"
            " WHERE path = %s",
            (path,),
        )

    def add_problems(self, file_path: str, problems: Iterable[Problem]) -> None:
        self.many(
            "INSERT INTO problems (file_path, line, reason, detail) VALUES (%s, %s, %s, %s)"
            " ON CONFLICT (owner, file_path, line) DO UPDATE SET reason = excluded.reason,"
            " detail = excluded.detail",
            [(file_path, p.line, p.reason, p.detail) for p in problems],
        )

    def file_sources(self, paths: Iterable[str]) -> dict[str, str]:
        """The source kind each of `paths` was indexed as (paths not indexed are left out)."""
        return dict(
            self.query("SELECT path, source FROM files WHERE path = ANY(%s)", (list(paths),))
        )
