"""What is in the index, for `findsession status` and for agents asking the same; and
one row per index run, for `status` to say when the index last caught up."""

from __future__ import annotations

from findsession.domain import IndexStatus, SourceCounts
from findsession.storage.sql.connection import SqlConnection
from findsession.storage.sql.tables import RUNS

_LAST_RUN = (
    "started_at",
    "finished_at",
    "files_seen",
    "files_read",
    "bytes_read",
    "sessions_changed",
    "lines_skipped",
)
#: What a finished run records, after when it started and from which roots.
_RUN_COUNTS = RUNS.names[3:]


class StatusMixin(SqlConnection):
    """Counts for `status` and `sources`, and the index runs."""

    def status(self, problem_limit: int = 10) -> IndexStatus:
        """Counts straight from the database, so they are right even after a crash."""
        last = self.query(
            "SELECT started_at, finished_at, files_seen, files_read, bytes_read, sessions,"
            " problems, interrupted FROM runs ORDER BY id DESC LIMIT 1"
        )
        last_run = None
        if last:
            last_run = dict(zip(_LAST_RUN, last[0][:7], strict=True))
            last_run["interrupted"] = bool(last[0][7]) or last[0][1] is None
        sessions, subagents, missing = self.query(
            "SELECT count(*), count(*) FILTER (WHERE is_subagent),"
            " count(*) FILTER (WHERE missing) FROM sessions"
        )[0]
        return IndexStatus(
            db_path=self.location(),
            db_bytes=self.status_bytes(),
            schema_version=self.schema_version(),
            files=dict(self.query("SELECT status, count(*) FROM files GROUP BY status")),
            sessions=sessions,
            subagent_sessions=subagents,
            missing_sessions=missing,
            turns=self.scalar("SELECT count(*) FROM units WHERE kind = 'turn'"),
            units=self.scalar("SELECT count(*) FROM units"),
            redacted={
                kind: int(n)
                for kind, n in self.query(
                    "SELECT kind, sum(n) FROM redactions GROUP BY kind ORDER BY 2 DESC"
                )
            },
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
                    " ORDER BY file_path, line LIMIT ?",
                    (problem_limit,),
                )
            ],
            file_errors=[
                {"path": p, "status": status, "error": error}
                for p, status, error in self.query(
                    "SELECT path, status, error FROM files WHERE error IS NOT NULL"
                    " ORDER BY path LIMIT ?",
                    (problem_limit,),
                )
            ],
            pushed=self.pushed(),
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
                    "INSERT INTO runs (started_at, roots) VALUES (now_iso(), ?) RETURNING id",
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
        counts = (files_seen, files_read, bytes_read, lines_read, sessions, problems)
        with self.transaction():
            self.execute(
                "UPDATE runs SET finished_at = now_iso(),"
                f" {', '.join(f'{c} = ?' for c in _RUN_COUNTS)} WHERE id = ?",
                (*counts, bool(interrupted), run_id),
            )

    def totals(self) -> tuple[int, int]:
        """(sessions, turns) in the index, from the small sessions table: counting turn
        units scans every unit row."""
        sessions, turns = self.query("SELECT count(*), coalesce(sum(n_turns), 0) FROM sessions")[0]
        return int(sessions), int(turns)
