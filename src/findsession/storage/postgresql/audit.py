"""The audit of agents' searches: one row per answered MCP tool call, never a query's text.

Each record is committed before the tool answers, so a write that fails reaches the
caller as a `DatabaseError` while there is still time to withhold the results.
"""

from __future__ import annotations

import json
from typing import Any

from findsession.domain import AuditRecord, Exclusions
from findsession.storage.postgresql.connection import Connection

_COLUMNS = (
    "at, connection, tool, query_digest, filters, strategy, confidence, results, excluded,"
    " held_back"
)


class AuditMixin(Connection):
    """The `audit` table (see findsession.storage.base.ContentStore)."""

    def add_audit_record(self, record: AuditRecord) -> int:
        excluded = None if record.excluded is None else _exclusions_json(record.excluded)
        with self.transaction():
            return int(
                self.scalar(
                    f"INSERT INTO audit ({_COLUMNS}) VALUES"
                    " (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s) RETURNING id",
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
            f"SELECT id, {_COLUMNS} FROM audit WHERE {where} ORDER BY at DESC, id DESC{cap}",
            [*params, limit] if cap else params,
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
