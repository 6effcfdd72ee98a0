"""The audit of agents' searches: one row per answered MCP tool call, never a query's text.

Each record is committed before the tool answers, so a write that fails reaches the
caller as a `DatabaseError` while there is still time to withhold the results.
"""

from __future__ import annotations

from findsession.domain import AuditRecord
from findsession.storage.postgresql.connection import Connection
from findsession.storage.rows import AUDIT_COLUMNS, audit_record, audit_values


class AuditMixin(Connection):
    """The `audit` table (see findsession.storage.base.ContentStore)."""

    def add_audit_record(self, record: AuditRecord) -> int:
        with self.transaction():
            return int(
                self.scalar(
                    f"INSERT INTO audit ({AUDIT_COLUMNS}) VALUES"
                    " (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s) RETURNING id",
                    audit_values(record),
                )
            )

    def audit_records(self, since: str | None, limit: int, digest: str | None) -> list[AuditRecord]:
        clauses, params = [], []
        if since:
            clauses.append("at >= %s")
            params.append(since)
        if digest:
            clauses.append("query_digest = %s")
            params.append(digest)
        where = " AND ".join(clauses) or "true"
        cap = " LIMIT %s" if limit >= 0 else ""
        rows = self.query(
            f"SELECT id, {AUDIT_COLUMNS} FROM audit WHERE {where} ORDER BY at DESC, id DESC{cap}",
            [*params, limit] if cap else params,
        )
        return [audit_record(row) for row in rows]
