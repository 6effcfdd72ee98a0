"""The audit of agents' searches: one row per answered MCP tool call, never a query's text.

Each record is written in a transaction of its own and committed before the tool answers,
so a write that fails (a locked, full or read-only index) reaches the caller as a
`DatabaseError` while there is still time to withhold the results.
"""

from __future__ import annotations

import json
from typing import Any

from findsession.domain import AuditRecord, Exclusions
from findsession.storage.sqlite.connection import Connection

_COLUMNS = (
    "at, connection, tool, query_digest, filters, strategy, confidence, results, excluded,"
    " held_back"
)


class AuditMixin(Connection):
    """The `audit` table (see findsession.storage.base.ContentStore)."""

    def add_audit_record(self, record: AuditRecord) -> int:
        excluded = None if record.excluded is None else _exclusions_json(record.excluded)
        with self.transaction():
            self.db.execute(
                f"INSERT INTO audit ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    record.at,
                    record.connection,
                    record.tool,
                    record.query_digest,
                    _dumps(record.filters),
                    record.strategy,
                    record.confidence,
                    _dumps(record.results),
                    _dumps(excluded),
                    record.held_back,
                ),
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
            f"SELECT id, {_COLUMNS} FROM audit WHERE {where} ORDER BY at DESC, id DESC LIMIT ?",
            [*params, limit],
        )
        return [_record(row) for row in rows]


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _exclusions_json(e: Exclusions) -> dict[str, Any]:
    return {"depth": e.depth, "candidates": e.candidates, "by_filter": e.by_filter}


def _record(row: tuple[Any, ...]) -> AuditRecord:
    rid, at, connection, tool, digest, filters, strategy, sure, results, excluded, held = row
    counted = json.loads(excluded)
    return AuditRecord(
        id=rid,
        at=at,
        connection=connection,
        tool=tool,
        query_digest=digest,
        filters=json.loads(filters),
        strategy=strategy,
        confidence=sure,
        results=json.loads(results),
        excluded=None if counted is None else Exclusions(**counted),
        held_back=held,
    )
