"""Transcript files: their read cursors, problems, redaction counts and replays."""

from __future__ import annotations

from collections.abc import Iterable

from findsession.domain import Problem
from findsession.storage.sqlite.connection import Connection
from findsession.storage.sqlite.rows import FileState


class FilesMixin(Connection):
    """Transcript files."""

    def file_states(self, paths: Iterable[str] | None = None) -> dict[str, FileState]:
        columns = (
            "SELECT path, source, root, session_id, size, mtime_ns, offset, lines, tail_hash,"
            " status, error FROM files"
        )
        if paths is None:
            return {row[0]: FileState(*row) for row in self.db.execute(columns)}
        wanted = list(dict.fromkeys(paths))
        states: dict[str, FileState] = {}
        for at in range(0, len(wanted), 500):
            batch = wanted[at : at + 500]
            rows = self.db.execute(f"{columns} WHERE path IN ({','.join('?' * len(batch))})", batch)
            states.update((row[0], FileState(*row)) for row in rows)
        return states

    def indexed_roots(self) -> list[tuple[str, str]]:
        rows = self.db.execute(
            "SELECT DISTINCT root, source FROM files WHERE root IS NOT NULL ORDER BY root"
        )
        return [(row[0], row[1]) for row in rows]

    def save_file(self, state: FileState) -> None:
        self.db.execute(
            "INSERT OR REPLACE INTO files (path, source, root, session_id, size, mtime_ns,"
            " offset, lines, tail_hash, status, error, indexed_at)"
            " VALUES (?,?,?,?,?,?,?,?,?,?,?, strftime('%Y-%m-%dT%H:%M:%SZ','now'))",
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
            "UPDATE files SET status = ?, error = ? WHERE path = ?", (status, error, path)
        )
        self.db.execute(
            "UPDATE sessions SET missing = ? WHERE file_path = ?", (int(status == "missing"), path)
        )

    def forget_file_content(self, path: str) -> list[str]:
        """Drop what was read from `path` (before a full re-read); return its sessions."""
        sessions = [
            r[0]
            for r in self.db.execute(
                "SELECT DISTINCT session_id FROM messages WHERE file_path = ?"
                " UNION SELECT DISTINCT session_id FROM session_meta WHERE file_path = ?",
                (path, path),
            )
        ]
        self.db.execute("DELETE FROM messages WHERE file_path = ?", (path,))
        self.db.execute("DELETE FROM session_meta WHERE file_path = ?", (path,))
        self.db.execute("DELETE FROM problems WHERE file_path = ?", (path,))
        self.db.execute("DELETE FROM redactions WHERE file_path = ?", (path,))
        self.db.execute("DELETE FROM replays WHERE file_path = ?", (path,))
        return sessions

    def add_redactions(self, path: str, counts: dict[str, int]) -> None:
        self.db.executemany(
            "INSERT INTO redactions (file_path, kind, n) VALUES (?, ?, ?)"
            " ON CONFLICT(file_path, kind) DO UPDATE SET n = n + excluded.n",
            [(path, kind, n) for kind, n in counts.items()],
        )

    def remove_file(self, path: str) -> None:
        """Remove a file and every session it holds from the index (`--prune`)."""
        sessions = self.forget_file_content(path)
        sessions += [
            r[0] for r in self.db.execute("SELECT id FROM sessions WHERE file_path = ?", (path,))
        ]
        for sid in set(sessions):
            self.delete_session(sid)
        self.db.execute("DELETE FROM files WHERE path = ?", (path,))
        self.db.execute("DELETE FROM replays WHERE file_path = ? OR source_path = ?", (path, path))

    def add_replays(self, path: str, sources: Iterable[str]) -> None:
        """Remember that `path` repeated lines first read from each of `sources`."""
        self.db.executemany(
            "INSERT OR IGNORE INTO replays (file_path, source_path) VALUES (?, ?)",
            [(path, src) for src in sources],
        )

    def replaying_files(self, source_path: str) -> list[str]:
        """Files whose lines were skipped as replays of lines of `source_path`."""
        return [
            r[0]
            for r in self.db.execute(
                "SELECT file_path FROM replays WHERE source_path = ?", (source_path,)
            )
        ]

    def read_again(self, path: str) -> None:
        """Make the next read of `path` start from scratch and claim its session id anew."""
        self.db.execute(
            "UPDATE files SET status = 'stale', session_id = NULL, tail_hash = NULL WHERE path = ?",
            (path,),
        )

    def add_problems(self, file_path: str, problems: Iterable[Problem]) -> None:
        self.db.executemany(
            "INSERT OR REPLACE INTO problems (file_path, line, reason, detail) VALUES (?,?,?,?)",
            [(file_path, p.line, p.reason, p.detail) for p in problems],
        )

    def file_sources(self, paths: Iterable[str]) -> dict[str, str]:
        """The source kind each of `paths` was indexed as (paths not indexed are left out)."""
        found: dict[str, str] = {}
        batch = list(paths)
        for start in range(0, len(batch), 500):
            chunk = batch[start : start + 500]
            marks = ",".join("?" * len(chunk))
            found.update(
                self.query(f"SELECT path, source FROM files WHERE path IN ({marks})", chunk)
            )
        return found
