"""The JSON of a team's shared index: `push`, `share` and `server status` (docs/json.md)."""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from findsession.jsonout.common import PUSH_SCHEMA, SERVER_SCHEMA, SHARES_SCHEMA

if TYPE_CHECKING:
    from findsession.api import PushReport, ServerStatus, Share


def push_json(report: PushReport) -> dict[str, Any]:
    """`findsession.push/1`: the server (no password), who and which machine pushed, how
    many sessions were sent in how many batches, and what the server wrote (all zero
    when it already had everything)."""
    return {
        "schema": PUSH_SCHEMA,
        "server": report.server,
        "owner": report.owner,
        "machine": report.machine,
        "sent": report.sent,
        "batches": report.batches,
        "written": asdict(report.written),
        "other_model": report.other_model,
    }


def shares_json(shares: list[Share]) -> dict[str, Any]:
    """`findsession.shares/1`: every project shown to the team, the asker's first."""
    return {
        "schema": SHARES_SCHEMA,
        "shares": [
            {"owner": s.owner, "project": s.project, "since": s.since, "mine": s.mine}
            for s in shares
        ],
    }


def server_json(status: ServerStatus) -> dict[str, Any]:
    """`findsession.server/1`: the schema step, the model and whether its graph is built
    (its size), each person (member of the group or not) with their sessions, units,
    machines and latest activity, and the shared projects."""
    return {
        "schema": SERVER_SCHEMA,
        "admin": status.admin,
        "schema_step": status.schema_step,
        "model": status.model,
        "dims": status.dims,
        "graph_bytes": status.graph_bytes,
        "people": [asdict(p) for p in status.people],
        "shares": [{"owner": o, "project": p} for o, p in status.shares],
    }
