"""BM25 keyword retrieval over the FTS5 index, with filters applied inside the query."""

from __future__ import annotations

from dataclasses import dataclass

import apsw

from findsession.search import fts_query
from findsession.search.filters import SearchOptions, unit_filter_sql
from findsession.store import Store

# Column weights for title, prompt, reply, tools. Tool text is long and noisy: it may
# be found, but a word a person typed must outrank the same word in pasted output.
WEIGHTS = (4.0, 2.0, 1.0, 0.2)
MARK_START, MARK_END = "\x02", "\x03"
_SNIPPET_TOKENS = 28


class KeywordQueryError(Exception):
    """FTS5 rejected the query (only possible with raw FTS5 syntax)."""


@dataclass(frozen=True, slots=True)
class UnitMatch:
    """One unit that matched, in keyword rank order."""

    unit_id: int
    session_id: str
    kind: str
    ordinal: int
    bm25: float
    snippet: str


def keyword_search(store: Store, query: str, opts: SearchOptions, limit: int) -> list[UnitMatch]:
    """Best `limit` units by BM25 (most relevant first); empty when nothing is searchable."""
    expression = query.strip() if opts.raw else fts_query.free_text(query)
    if not expression:
        return []
    if opts.speaker == "user":
        expression = fts_query.restrict_columns(expression, ["prompt"])
    elif opts.speaker == "assistant":
        expression = fts_query.restrict_columns(expression, ["reply"])
    where, params = unit_filter_sql(opts)
    weights = ", ".join(str(w) for w in WEIGHTS)
    sql = (
        f"SELECT u.id, u.session_id, u.kind, u.ordinal, bm25(units_fts, {weights}) AS score,"
        f" snippet(units_fts, -1, '{MARK_START}', '{MARK_END}', '…', {_SNIPPET_TOKENS})"
        " FROM units_fts JOIN units u ON u.id = units_fts.rowid"
        " JOIN sessions s ON s.id = u.session_id"
        f" WHERE units_fts MATCH ? AND {where} ORDER BY score LIMIT ?"
    )
    try:
        rows = store.query(sql, [expression, *params, limit])
    except apsw.SQLError as exc:
        raise KeywordQueryError(str(exc)) from exc
    return [UnitMatch(r[0], r[1], r[2], r[3], r[4], r[5]) for r in rows]
