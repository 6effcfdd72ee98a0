"""Rows as every backend stores them, turned into the domain's records and back.

The SQLite file and the PostgreSQL server hold the same columns for sessions, messages
and audit records; only the SQL around them differs. The conversion lives here once, so the two
backends cannot come to read a row differently.
"""

from __future__ import annotations

import json
from typing import Any

from findsession.domain import AuditRecord, Exclusions, Message, MessageKind

#: Columns of `sessions` that are fields of `Session`, under the same names.
SESSION_COLUMNS = (
    "id",
    "source",
    "file_path",
    "cwd",
    "title",
    "first_ts",
    "last_ts",
    "git_branch",
    "version",
    "parent_id",
    "is_subagent",
    "agent_type",
    "n_turns",
    "n_messages",
    "missing",
)
#: A message's columns, in the order `message` reads them.
MESSAGE_COLUMNS = (
    "kind, text, line, uuid, parent_uuid, message_id, ts, tool_name, tool_id, files,"
    " is_error, cwd, git_branch, version, heading"
)
#: An audit record's columns (its id aside), in the order of `audit_values` and `audit_record`.
AUDIT_COLUMNS = (
    "at, connection, tool, query_digest, filters, strategy, confidence, results, excluded,"
    " held_back"
)


def message(r: tuple[Any, ...]) -> Message:
    """A message from a row of `MESSAGE_COLUMNS`."""
    return Message(
        kind=MessageKind(r[0]),
        text=r[1],
        line=r[2],
        uuid=r[3],
        parent_uuid=r[4],
        message_id=r[5],
        timestamp=r[6],
        tool_name=r[7],
        tool_id=r[8],
        files=tuple(json.loads(r[9])) if r[9] else (),
        is_error=bool(r[10]),
        cwd=r[11],
        git_branch=r[12],
        version=r[13],
        heading=r[14],
    )


def audit_values(record: AuditRecord) -> tuple[Any, ...]:
    """The values of `AUDIT_COLUMNS` for a record to insert."""
    excluded = None
    if record.excluded is not None:
        e = record.excluded
        excluded = {"depth": e.depth, "candidates": e.candidates, "by_filter": e.by_filter}
    return (
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
    )


def audit_record(row: tuple[Any, ...]) -> AuditRecord:
    """A record from a row of `id, AUDIT_COLUMNS`."""
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


def json_list(stored: str | None) -> list[Any]:
    """A list stored as JSON text (a unit's tool names, its files); [] for anything else."""
    try:
        value = json.loads(stored or "[]")
    except ValueError:
        return []
    return value if isinstance(value, list) else []


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
