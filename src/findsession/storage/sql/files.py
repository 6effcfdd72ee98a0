"""Transcript files: their read cursors, problems, redaction counts and replays."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from findsession.domain import Problem
from findsession.storage.sql.connection import SqlConnection
from findsession.storage.sql.tables import FILES
from findsession.storage.types import FileState

#: A file's columns but the time it was indexed: the order of `FileState`'s fields.
FILE_COLUMNS = FILES.names[:-1]
#: What a file's content leaves in the tables beside its own row.
_READ_FROM_FILE = ("messages", "session_meta", "problems", "redactions", "replays")


class FilesMixin(SqlConnection):
    """Transcript files."""

    def file_states(self, paths: Iterable[str] | None = None) -> dict[str, FileState]:
        select = f"SELECT {', '.join(FILE_COLUMNS)} FROM files"
        if paths is None:
            return {row[0]: FileState(*row) for row in self.query(select)}
        states: dict[str, FileState] = {}
        for batch in self.batches(paths):
            where, params = self.among("path", batch)
            states.update(
                (row[0], FileState(*row)) for row in self.query(f"{select} WHERE {where}", params)
            )
        return states

    def indexed_roots(self) -> list[tuple[str, str]]:
        rows = self.query(
            "SELECT DISTINCT root, source FROM files WHERE root IS NOT NULL ORDER BY root, source"
        )
        return [(row[0], row[1]) for row in rows]

    def save_file(self, state: FileState) -> None:
        kept = ", ".join(f"{c} = excluded.{c}" for c in FILES.names if c not in FILES.key)
        self.execute(
            f"INSERT INTO files ({', '.join(FILE_COLUMNS)}, indexed_at)"
            f" VALUES ({', '.join('?' * len(FILE_COLUMNS))}, now_iso())"
            f" ON CONFLICT {self.key('files')} DO UPDATE SET {kept}",
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
        self.execute("UPDATE files SET status = ?, error = ? WHERE path = ?", (status, error, path))
        self.execute(
            "UPDATE sessions SET missing = ? WHERE file_path = ?", (status == "missing", path)
        )

    def forget_file_content(self, path: str) -> list[str]:
        """Drop what was read from `path` (before a full re-read); return its sessions."""
        sessions = [
            r[0]
            for r in self.query(
                "SELECT session_id FROM messages WHERE file_path = ?"
                " UNION SELECT session_id FROM session_meta WHERE file_path = ?",
                (path, path),
            )
        ]
        for table in _READ_FROM_FILE:
            self.execute(f"DELETE FROM {table} WHERE file_path = ?", (path,))
        return sessions

    def forget_file_lines(self, path: str, after: int) -> list[str]:
        """Drop what was read from the lines of `path` past `after` (a document read
        whole that carries on after the lines it keeps), and the problems its reads
        found (the reading reports its own again); return the sessions they were of."""
        sessions = [
            r[0]
            for r in self.query(
                "SELECT session_id FROM messages WHERE file_path = ? AND line > ?"
                " UNION SELECT session_id FROM session_meta WHERE file_path = ? AND line > ?",
                (path, after, path, after),
            )
        ]
        for table in ("messages", "session_meta", "redactions"):
            self.execute(f"DELETE FROM {table} WHERE file_path = ? AND line > ?", (path, after))
        self.execute("DELETE FROM problems WHERE file_path = ?", (path,))
        return sessions

    def add_redactions(self, path: str, counts: Mapping[tuple[str, int, str], int]) -> None:
        """Record the secrets redacted in `path`, by (session, line, kind). A line read
        again replaces its count rather than adding to it."""
        self.many(
            "INSERT INTO redactions (file_path, session_id, line, kind, n)"
            " VALUES (?, ?, ?, ?, ?)"
            f" ON CONFLICT {self.key('redactions')} DO UPDATE SET n = excluded.n",
            [(path, sid, line, kind, n) for (sid, line, kind), n in counts.items()],
        )

    def remove_file(self, path: str) -> None:
        """Remove a file and every session it holds from the index (`--prune`)."""
        sessions = self.forget_file_content(path)
        sessions += [
            r[0] for r in self.query("SELECT id FROM sessions WHERE file_path = ?", (path,))
        ]
        for sid in set(sessions):
            self.delete_session(sid)
        self.execute("DELETE FROM files WHERE path = ?", (path,))
        self.execute("DELETE FROM replays WHERE file_path = ? OR source_path = ?", (path, path))

    def add_replays(self, path: str, sources: Iterable[str]) -> None:
        """Remember that `path` repeated lines first read from each of `sources`."""
        self.many(
            "INSERT INTO replays (file_path, source_path) VALUES (?, ?) ON CONFLICT DO NOTHING",
            [(path, src) for src in sources],
        )

    def replaying_files(self, source_path: str) -> list[str]:
        """Files whose lines were skipped as replays of lines of `source_path`."""
        return [
            r[0]
            for r in self.query(
                "SELECT file_path FROM replays WHERE source_path = ?", (source_path,)
            )
        ]

    def read_again(self, path: str) -> None:
        """Make the next read of `path` start from scratch and claim its session id anew."""
        self.execute(
            "UPDATE files SET status = 'stale', session_id = NULL, tail_hash = NULL WHERE path = ?",
            (path,),
        )

    def add_problems(self, file_path: str, problems: Iterable[Problem]) -> None:
        self.many(
            "INSERT INTO problems (file_path, line, reason, detail) VALUES (?, ?, ?, ?)"
            f" ON CONFLICT {self.key('problems')} DO UPDATE SET reason = excluded.reason,"
            " detail = excluded.detail",
            [(file_path, p.line, p.reason, p.detail) for p in problems],
        )

    def file_sources(self, paths: Iterable[str]) -> dict[str, str]:
        """The source kind each of `paths` was indexed as (paths not indexed are left out)."""
        found: dict[str, str] = {}
        for batch in self.batches(paths):
            where, params = self.among("path", batch)
            found.update(self.query(f"SELECT path, source FROM files WHERE {where}", params))
        return found
