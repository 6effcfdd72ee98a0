"""`findsession.audit/1`: the audit of agents' searches as JSON, a query only as its
digest.

Separate because it is the audit's own shape, which no other command shares.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from findsession.domain import AuditRecord
from findsession.jsonout.common import AUDIT_SCHEMA


def audit_json(records: list[AuditRecord]) -> dict[str, Any]:
    """`findsession.audit/1`: answered MCP calls, newest first; a query only as its digest."""
    return {"schema": AUDIT_SCHEMA, "records": [{"id": r.id, **asdict(r)} for r in records]}
