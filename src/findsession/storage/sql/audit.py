"""The audit of agents' searches: one row per answered MCP tool call, never a query's text.

Each record is written in a transaction of its own and committed before the tool answers,
so a write that fails (a locked, full or read-only index) reaches the caller as a
`DatabaseError` while there is still time to withhold the results.
"""

from __future__ import annotations

from findsession.domain import AuditRecord
from findsession.storage.rows import AUDIT_COLUMNS, audit_record, audit_values
from findsession.storage.sql.connection import SqlConnection, conditions


class AuditMixin(SqlConnection):
    """The `audit` table (see findsession.storage.base)."""

    def add_audit_record(self, record: AuditRecord) -> int:
        marks = ", ".join("?" * len(AUDIT_COLUMNS.split(",")))
        with self.transaction():
            return int(
                self.scalar(
                    f"INSERT INTO audit ({AUDIT_COLUMNS}) VALUES ({marks}) RETURNING id",
                    audit_values(record),
                )
            )

    def audit_records(self, since: str | None, limit: int, digest: str | None) -> list[AuditRecord]:
        where, params = conditions(("at >= ?", since), ("query_digest = ?", digest))
        cap = " LIMIT ?" if limit >= 0 else ""
        rows = self.query(
            f"SELECT id, {AUDIT_COLUMNS} FROM audit WHERE {where} ORDER BY at DESC, id DESC{cap}",
            [*params, limit] if cap else params,
        )
        return [audit_record(row) for row in rows]
