"""The index's reports as JSON: `findsession.status/1` (what it holds), `index/1` (what
a run and its embedding stage did), `forget/1` and `sources/1` (where each source looks).

Separate from the results' shapes: these describe the index, not what is in it.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from findsession.domain import IndexStatus, SourceReport
from findsession.jsonout.common import FORGET_SCHEMA, INDEX_SCHEMA, SOURCES_SCHEMA, STATUS_SCHEMA

if TYPE_CHECKING:  # the reports' types only: importing the indexer would bring numpy
    from findsession.indexing import IndexReport
    from findsession.indexing.embed import EmbedReport


def forget_json(ids: list[str], before: int, after: int, archived: int = 0) -> dict[str, Any]:
    """`findsession.forget/1`: the sessions deleted, the file's size around it, and the
    copies of their transcripts taken out of the archive."""
    return {
        "schema": FORGET_SCHEMA,
        "forgotten": ids,
        "bytes_before": before,
        "bytes_after": after,
        "archived_removed": archived,
    }


def sources_json(reports: list[SourceReport]) -> dict[str, Any]:
    """`findsession.sources/1`: each source, whether it is on, where it looks (and whether
    that place exists), what it cannot read here, its files, sessions, subagents and
    skipped lines, whether the archive keeps its transcripts, and its sessions whose file
    is gone with how many of those the archive holds."""
    return {
        "schema": SOURCES_SCHEMA,
        "sources": [
            {
                "kind": r.kind,
                "enabled": r.enabled,
                "roots": [{"path": path, "exists": exists} for path, exists in r.roots],
                "notes": list(r.notes),
                "export": r.export,
                **asdict(r.counts),
                "archived": r.archived,
                "gone": r.gone,
                "gone_held": r.gone_held,
            }
            for r in reports
        ],
    }


def status_json(st: IndexStatus) -> dict[str, Any]:
    """`findsession.status/1`: what the index holds."""
    return {"schema": STATUS_SCHEMA, **asdict(st)}


def index_json(r: IndexReport, embedded: EmbedReport | None = None) -> dict[str, Any]:
    """`findsession.index/1`: an index run's summary, and its embedding stage's if it ran."""
    data = asdict(r)
    data["problems"] = [
        {"path": path, "line": p.line, "reason": p.reason, "detail": p.detail}
        for path, p in r.problems
    ]
    data["errors"] = [{"path": path, "error": err} for path, err in r.errors]
    data["skipped"] = [{"path": path, "reason": why} for path, why in r.skipped]
    data["cut"] = [{"path": path, "reason": why} for path, why in r.cut]
    data["archive_errors"] = [{"path": path, "error": why} for path, why in r.archive_errors]
    data["skipped_by_reason"] = r.skipped_by_reason()
    data["embedding"] = None
    if embedded is not None:
        data["embedding"] = {
            **asdict(embedded),
            "texts_per_second": round(embedded.texts_per_second, 1),
        }
    return {"schema": INDEX_SCHEMA, **data}
