"""The audit of agents' searches: one row per answered MCP tool call, never a query's text.

Each record is written in a transaction of its own and committed before the tool answers,
so a write that fails (a locked, full or read-only index) reaches the caller as a
`DatabaseError` while there is still time to withhold the results.
"""

from __future__ import annotations

from findsession.domain import AuditRecord
from findsession.storage.rows import AUDIT_COLUMNS, audit_record, audit_values
from findsession.storage.sqlite.connection import Connection


class AuditMixin(Connection):
    """The `audit` table (see findsession.storage.base.ContentStore)."""

    def add_audit_record(self, record: AuditRecord) -> int:
        with self.transaction():
            self.db.execute(
                f"INSERT INTO audit ({AUDIT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                audit_values(record),
            )
            return int(self.db.last_insert_rowid())

    def audit_records(self, since: str | None, limit: int, digest: str | None) -> list[AuditRecord]:
        clauses, params = [], []
        if since:
            clauses.append("at >= ?")
            params.append(since)
        if digest:
            clauses.append("query_digest = ?")
            params.append(digest)
        where = " AND ".join(clauses) or "1"
        rows = self.query(
            f"SELECT id, {AUDIT_COLUMNS} FROM audit WHERE {where}"
            " ORDER BY at DESC, id DESC LIMIT ?",
            [*params, limit],
        )
        return [audit_record(row) for row in rows]
