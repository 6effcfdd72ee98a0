"""What is in the index, for `findsession status` and for agents asking the same."""

from __future__ import annotations

import os

from findsession.domain import IndexStatus, SourceCounts
from findsession.storage.sqlite.connection import Connection as Store


def collect_status(store: Store, problem_limit: int = 10) -> IndexStatus:
    """Counts straight from the database, so they are right even after a crash."""
    size = sum(
        os.path.getsize(p) for p in (str(store.path), f"{store.path}-wal") if os.path.exists(p)
    )
    files = dict(store.query("SELECT status, count(*) FROM files GROUP BY status"))
    last = store.query(
        "SELECT started_at, finished_at, files_seen, files_read, bytes_read, sessions, problems,"
        " interrupted, roots FROM runs ORDER BY id DESC LIMIT 1"
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
    roots = sorted({r[0] for r in store.query("SELECT DISTINCT root FROM files") if r[0]})
    return IndexStatus(
        db_path=str(store.path),
        db_bytes=size,
        schema_version=store.schema_version(),
        files=files,
        sessions=store.scalar("SELECT count(*) FROM sessions"),
        subagent_sessions=store.scalar("SELECT count(*) FROM sessions WHERE is_subagent"),
        missing_sessions=store.scalar("SELECT count(*) FROM sessions WHERE missing"),
        turns=store.scalar("SELECT count(*) FROM units WHERE kind = 'turn'"),
        units=store.scalar("SELECT count(*) FROM units"),
        redacted=dict(
            store.query("SELECT kind, sum(n) FROM redactions GROUP BY kind ORDER BY 2 DESC")
        ),
        embedding_model=store.setting("embedding_model"),
        embedded_units=store.scalar("SELECT count(*) FROM embedded"),
        vector_chunks=store.scalar("SELECT count(*) FROM chunks"),
        roots=roots,
        last_run=last_run,
        skipped_lines=store.scalar("SELECT count(*) FROM problems"),
        skipped_by_reason=dict(
            store.query("SELECT reason, count(*) FROM problems GROUP BY reason ORDER BY 2 DESC")
        ),
        recent_problems=[
            {"path": p, "line": line, "reason": reason, "detail": detail}
            for p, line, reason, detail in store.query(
                "SELECT file_path, line, reason, detail FROM problems ORDER BY file_path, line"
                " LIMIT ?",
                (problem_limit,),
            )
        ],
        file_errors=[
            {"path": p, "status": status, "error": error}
            for p, status, error in store.query(
                "SELECT path, status, error FROM files WHERE error IS NOT NULL"
                " ORDER BY path LIMIT ?",
                (problem_limit,),
            )
        ],
    )


class StatusMixin(Store):
    """The store's counts for `status` and `sources`."""

    def status(self, problem_limit: int = 10) -> IndexStatus:
        return collect_status(self, problem_limit)

    def source_counts(self) -> dict[str, SourceCounts]:
        counts: dict[str, SourceCounts] = {}

        def of(kind: str) -> SourceCounts:
            return counts.setdefault(kind, SourceCounts())

        for kind, files, unusable in self.query(
            "SELECT source, count(*), sum(status NOT IN ('ok', 'stale')) FROM files GROUP BY source"
        ):
            of(kind).files, of(kind).unusable_files = files, unusable or 0
        for kind, main, subagents in self.query(
            "SELECT source, sum(NOT is_subagent), sum(is_subagent) FROM sessions GROUP BY source"
        ):
            of(kind).sessions, of(kind).subagents = main or 0, subagents or 0
        for kind, problems in self.query(
            "SELECT f.source, count(*) FROM problems p JOIN files f ON f.path = p.file_path"
            " GROUP BY f.source"
        ):
            of(kind).problems = problems
        return counts
