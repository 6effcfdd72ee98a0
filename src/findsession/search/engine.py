"""Run a search: retrieve units, fuse the ranked lists, group by session, explain.

Results are grouped by session because the question people ask is "which session", and
each session is shown by the unit that matched it best. Scores use reciprocal-rank
fusion (1/(60+rank) per list) from the start, so a keyword-only answer and a hybrid one
are on the same scale.
"""

from __future__ import annotations

import json

from findsession.model import Hit, SearchResponse
from findsession.search.filters import SearchOptions
from findsession.search.keyword import (
    MARK_END,
    MARK_START,
    KeywordQueryError,
    UnitMatch,
    keyword_search,
)
from findsession.store import Store

#: Units fetched per list for each session shown: many units of one session can precede
#: the next session's best unit.
_UNITS_PER_RESULT = 25
_MIN_UNITS = 200


def search(store: Store, query: str, opts: SearchOptions | None = None) -> SearchResponse:
    """Search the index; `SearchResponse.strategy` says which retrieval ran."""
    opts = (opts or SearchOptions()).validated()
    response = SearchResponse(query=query, strategy="keyword", hits=[])
    if not store.scalar("SELECT EXISTS (SELECT 1 FROM units)"):
        response.index_empty = True
        response.notes.append("the index is empty: run `findsession index` first")
        return response
    if opts.mode == "vector":
        response.strategy = "none"
        response.notes.append(
            "vector search needs an embedding model, which this version does not have yet;"
            " use --mode keyword"
        )
        return response
    limit = max(_MIN_UNITS, opts.top * _UNITS_PER_RESULT)
    try:
        matches = keyword_search(store, query, opts, limit)
    except KeywordQueryError as exc:
        response.strategy = "none"
        response.notes.append(f"FTS5 rejected the query ({exc}); drop --raw to search as text")
        return response
    response.hits = _group_by_session(store, matches, opts.top)
    return response


def _group_by_session(store: Store, matches: list[UnitMatch], top: int) -> list[Hit]:
    """The best unit per session, in rank order; a fingerprint hit shows its best turn.

    A session found through its fingerprint is still shown at a turn when one of its
    turns matched too, because "where in the session" is the next question.
    """
    best: dict[str, tuple[int, UnitMatch]] = {}
    best_turn: dict[str, UnitMatch] = {}
    for rank, match in enumerate(matches, 1):
        if match.session_id not in best and len(best) < top:
            best[match.session_id] = (rank, match)
        if match.kind == "turn":
            best_turn.setdefault(match.session_id, match)
    ranked = []
    for sid, (rank, match) in best.items():
        shown = best_turn[sid] if match.kind == "session" and sid in best_turn else match
        ranked.append((rank, match.score, shown))
    hits = []
    for position, (rank, score, match) in enumerate(ranked, 1):
        session = store.get_session(match.session_id)
        if session is None:  # deleted between the two queries by a concurrent run
            continue
        ts, title, prompt, reply, tools, tool_names, files = store.query(
            "SELECT ts, title, prompt, reply, tools, tool_names, files FROM units WHERE id = ?",
            (match.unit_id,),
        )[0]
        snippet, spans = clean_snippet(match.snippet)
        fields = {"title": title, "prompt": prompt, "reply": reply, "tools": tools}
        hits.append(
            Hit(
                rank=position,
                score=score,
                session=session,
                unit_kind=match.kind,
                turn=match.ordinal if match.kind == "turn" else None,
                timestamp=ts,
                snippet=snippet,
                highlights=spans,
                matched_field=_field_of(snippet, fields),
                keyword_rank=rank,
                bm25=match.bm25,
                tool_names=json.loads(tool_names or "[]"),
                files=json.loads(files or "[]")[:5],
            )
        )
    return hits


def clean_snippet(raw: str) -> tuple[str, list[tuple[int, int]]]:
    """Collapse whitespace and turn FTS5 highlight marks into `(start, end)` spans."""
    out: list[str] = []
    spans: list[tuple[int, int]] = []
    start = None
    pending_space = False
    length = 0
    for ch in raw:
        if ch == MARK_START:
            if pending_space and out:
                out.append(" ")
                length += 1
            pending_space = False
            start = length
            continue
        if ch == MARK_END:
            if start is not None:
                spans.append((start, length))
            start = None
            continue
        if ch.isspace():
            pending_space = True
            continue
        if pending_space and out:
            out.append(" ")
            length += 1
        pending_space = False
        out.append(ch)
        length += 1
    return "".join(out), spans


def _field_of(snippet: str, fields: dict[str, str]) -> str:
    probe = snippet.strip("…").strip()[:60]
    for name, text in fields.items():
        if probe and probe in " ".join(text.split()):
            return name
    return "prompt"
