"""Recording what an agent was shown: one audit record per answered MCP tool call.

A record says when, through which connection and tool, under which filters, which
sessions and turns came back and why they ranked, and how many candidates each filter
kept out; the query only as its keyed digest (see `key`). The caller records before it
answers: when the record cannot be written, `AuditFailed` is raised and the results are
never shown, so no evidence leaves the index unrecorded.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from findsession.audit.key import digest, load_key
from findsession.domain import AuditRecord, Hit, SearchResponse
from findsession.errors import FindsessionError
from findsession.search.filters import SearchOptions
from findsession.storage.base import Upkeep


class AuditFailed(FindsessionError):
    """The audit record of a tool call could not be written: its results are withheld."""


#: The options recorded as a search's filters (with `top`, how many were asked for).
SEARCH_FILTERS = ("project", "session", "speaker", "after", "before", "kind", "source", "top")


class Auditor:
    """Records the tool calls of one MCP connection in the index's audit table."""

    def __init__(self, store: Upkeep, key_file: Path, connection: str) -> None:
        self.store, self.key_file, self.connection = store, key_file, connection

    def searched(
        self,
        tool: str,
        query: str,
        options: SearchOptions,
        response: SearchResponse,
        extra: dict[str, Any] | None = None,
        held_back: int = 0,
    ) -> None:
        """A search answered with `response.hits` (as returned, after any cut)."""
        filters = {name: getattr(options, name) for name in SEARCH_FILTERS} | (extra or {})
        sure = response.confidence.level.value if response.confidence else None
        self._write(
            tool,
            filters,
            [hit_components(h) for h in response.hits],
            query=query,
            response=response,
            confidence=sure,
            held_back=held_back,
        )

    def shown(
        self,
        tool: str,
        filters: dict[str, Any],
        shown: list[tuple[str, int | None]],
        held_back: int = 0,
    ) -> None:
        """Sessions (and turns: None for a session listed without one) read or listed."""
        results = [{"session": sid, "turn": turn} for sid, turn in shown]
        self._write(tool, filters, results, held_back=held_back)

    def _write(
        self,
        tool: str,
        filters: dict[str, Any],
        results: list[dict[str, Any]],
        *,
        query: str | None = None,
        response: SearchResponse | None = None,
        confidence: str | None = None,
        held_back: int = 0,
    ) -> None:
        try:
            key = load_key(self.key_file)
            record = AuditRecord(
                at=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
                connection=self.connection,
                tool=tool,
                query_digest=None if query is None else digest(key, query),
                filters=filters,
                results=results,
                excluded=response.excluded if response else None,
                strategy=response.strategy if response else None,
                confidence=confidence,
                held_back=held_back,
            )
            self.store.add_audit_record(record)
        except FindsessionError as exc:
            raise AuditFailed(
                f"audit_failed: this {tool} call could not be recorded in the audit of"
                f" agents' searches ({exc}), so its results are withheld; try again, and if"
                " it keeps failing ask the person to fix the index or its audit key"
            ) from exc


def hit_components(h: Hit) -> dict[str, Any]:
    """A hit's place and why it ranked there; never its text or matched words (those
    would tell the query)."""
    return {
        "rank": h.rank,
        "session": h.session.id,
        "turn": h.turn,
        "kind": h.unit_kind,
        "score": round(h.score, 6),
        "keyword_rank": h.keyword_rank,
        "vector_rank": h.vector_rank,
        "bm25": None if h.bm25 is None else round(h.bm25, 4),
        "cosine": None if h.cosine is None else round(h.cosine, 4),
        "pinned": h.pinned,
    }
