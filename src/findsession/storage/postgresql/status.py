"""What is in the index, for `findsession status`; and the index runs."""

from __future__ import annotations

from findsession.domain import IndexStatus, SourceCounts
from findsession.storage.postgresql.connection import Connection

_NOW = "now_iso()"


class StatusMixin(Connection):
    """Counts for `status` and `sources`, and one row per index run."""

    def status(self, problem_limit: int = 10) -> IndexStatus:
        files = dict(self.query("SELECT status, count(*) FROM files GROUP BY status"))
        last = self.query(
            "SELECT started_at, finished_at, files_seen, files_read, bytes_read, sessions,"
            " problems, interrupted FROM runs ORDER BY id DESC LIMIT 1"
        )
        last_run = None
        if last:
            r = last[0]
            last_run = {
                "started_at": r[0],
                "finished_at": r[1],
                "files_seen": r[2],
                "files_read": r[3],
                "bytes_read": r[4],
                "sessions_changed": r[5],
                "lines_skipped": r[6],
                "interrupted": bool(r[7]) or r[1] is None,
            }
        (sessions, subagents, missing) = self.query(
            "SELECT count(*), count(*) FILTER (WHERE is_subagent),"
            " count(*) FILTER (WHERE missing) FROM sessions"
        )[0]
        (units, turns) = self.query(
            "SELECT count(*), count(*) FILTER (WHERE kind = 'turn') FROM units"
        )[0]
        return IndexStatus(
            db_path=self.url,
            db_bytes=self.size_bytes(),
            schema_version=self.schema_version(),
            files=files,
            sessions=sessions,
            subagent_sessions=subagents,
            missing_sessions=missing,
            turns=turns,
            units=units,
            redacted=dict(
                self.query(
                    "SELECT kind, sum(n)::bigint FROM redactions GROUP BY kind ORDER BY 2 DESC"
                )
            ),
            embedding_model=self.setting("embedding_model"),
            embedded_units=self.scalar("SELECT count(*) FROM embedded"),
            vector_chunks=self.scalar("SELECT count(*) FROM chunks"),
            roots=[
                r[0]
                for r in self.query(
                    "SELECT DISTINCT root FROM files WHERE root IS NOT NULL AND root <> ''"
                    " ORDER BY root"
                )
            ],
            last_run=last_run,
            skipped_lines=self.scalar("SELECT count(*) FROM problems"),
            skipped_by_reason=dict(
                self.query("SELECT reason, count(*) FROM problems GROUP BY reason ORDER BY 2 DESC")
            ),
            recent_problems=[
                {"path": p, "line": line, "reason": reason, "detail": detail}
                for p, line, reason, detail in self.query(
                    "SELECT file_path, line, reason, detail FROM problems"
                    " ORDER BY file_path, line LIMIT %s",
                    (problem_limit,),
                )
            ],
            file_errors=[
                {"path": p, "status": status, "error": error}
                for p, status, error in self.query(
                    "SELECT path, status, error FROM files WHERE error IS NOT NULL"
                    " ORDER BY path LIMIT %s",
                    (problem_limit,),
                )
            ],
            pushed=[
                {"owner": owner, "machine": machine, "sessions": n, "yours": yours}
                for owner, machine, n, yours in self.query(
                    "SELECT owner, machine, count(*), owner = current_user FROM sessions"
                    " WHERE machine <> '' GROUP BY owner, machine"
                    " ORDER BY owner = current_user DESC, owner, machine"
                )
            ],
        )

    def source_counts(self) -> dict[str, SourceCounts]:
        counts: dict[str, SourceCounts] = {}

        def of(kind: str) -> SourceCounts:
            return counts.setdefault(kind, SourceCounts())

        for kind, files, unusable in self.query(
            "SELECT source, count(*), count(*) FILTER (WHERE status NOT IN ('ok', 'stale'))"
            " FROM files GROUP BY source"
        ):
            of(kind).files, of(kind).unusable_files = files, unusable
        for kind, main, subagents in self.query(
            "SELECT source, count(*) FILTER (WHERE NOT is_subagent),"
            " count(*) FILTER (WHERE is_subagent) FROM sessions GROUP BY source"
        ):
            of(kind).sessions, of(kind).subagents = main, subagents
        for kind, problems in self.query(
            "SELECT f.source, count(*) FROM problems p JOIN files f ON f.path = p.file_path"
            " GROUP BY f.source"
        ):
            of(kind).problems = problems
        return counts

    def start_run(self, roots: list[str]) -> int:
        with self.transaction():
            return int(
                self.scalar(
                    f"INSERT INTO runs (started_at, roots) VALUES ({_NOW}, %s) RETURNING id",
                    ("\n".join(roots),),
                )
            )

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
                f"UPDATE runs SET finished_at = {_NOW}, files_seen = %s, files_read = %s,"
                " bytes_read = %s, lines_read = %s, sessions = %s, problems = %s,"
                " interrupted = %s WHERE id = %s",
                (
                    files_seen,
                    files_read,
                    bytes_read,
                    lines_read,
                    sessions,
                    problems,
                    interrupted,
                    run_id,
                ),
            )

    def totals(self) -> tuple[int, int]:
        """(sessions, turns) in the index, from the small sessions table."""
        sessions, turns = self.query(
            "SELECT count(*), coalesce(sum(n_turns), 0)::bigint FROM sessions"
        )[0]
        return int(sessions), int(turns)
