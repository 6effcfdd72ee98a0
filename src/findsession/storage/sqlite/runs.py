"""Index runs: one row per run, for `status` to say when the index last caught up."""

from __future__ import annotations

from datetime import UTC, datetime

from findsession.storage.sqlite.connection import Connection


class RunsMixin(Connection):
    """Index runs."""

    def start_run(self, roots: list[str]) -> int:
        with self.transaction():
            self.db.execute(
                "INSERT INTO runs (started_at, roots) VALUES (?, ?)", (_now(), "\n".join(roots))
            )
            return int(self.db.last_insert_rowid())

    def finish_run(
        self,
        run_id: int,
        *,
        files_seen: int,
        files_read: int,
        bytes_read: int,
        lines_read: int,
        sessions: int,
        problems: int,
        interrupted: bool,
    ) -> None:
        with self.transaction():
            self.db.execute(
                "UPDATE runs SET finished_at=?, files_seen=?, files_read=?, bytes_read=?,"
                " lines_read=?, sessions=?, problems=?, interrupted=? WHERE id=?",
                (
                    _now(),
                    files_seen,
                    files_read,
                    bytes_read,
                    lines_read,
                    sessions,
                    problems,
                    int(interrupted),
                    run_id,
                ),
            )

    def totals(self) -> tuple[int, int]:
        """(sessions, turns) in the index, from the small sessions table: counting turn
        units scans every unit row."""
        sessions = self.scalar("SELECT count(*) FROM sessions")
        turns = self.scalar("SELECT coalesce(sum(n_turns), 0) FROM sessions")
        return int(sessions), int(turns)


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
