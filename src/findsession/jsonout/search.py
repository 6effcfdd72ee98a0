"""`findsession.search/1`: a search's hits, each with the unit that ranked it and why,
and how sure the search is, the level in words an agent can act on.

Separate because it is the shape the CLI's `--json` and the MCP search tool share most.
"""

from __future__ import annotations

from typing import Any

from findsession.domain import Confidence, Hit, IdMatch, Level, SearchResponse
from findsession.jsonout.common import SEARCH_SCHEMA, session_json
from findsession.jsonout.resume import resume_json


def hit_json(h: Hit) -> dict[str, Any]:
    """One search result: the session and the unit in it that ranked it, with why."""
    return {
        "rank": h.rank,
        "score": round(h.score, 6),
        "session": session_json(h.session),
        "match": {
            "kind": h.unit_kind,
            "turn": h.turn,
            "timestamp": h.timestamp,
            "field": h.matched_field,
            "snippet": h.snippet,
            "highlights": [list(span) for span in h.highlights],
            "tools": h.tool_names,
            "files": h.files,
        },
        "explain": {
            "keyword_rank": h.keyword_rank,
            "vector_rank": h.vector_rank,
            "bm25": None if h.bm25 is None else round(h.bm25, 4),
            "cosine": None if h.cosine is None else round(h.cosine, 4),
            "matched_terms": h.matched_terms,
            "pinned": h.pinned,
            "score_parts": None
            if h.parts is None
            else {
                "ranks": round(h.parts.ranks, 4),
                "keyword": round(h.parts.keyword, 4),
                "meaning": round(h.parts.meaning, 4),
                "further": round(h.parts.further, 4),
            },
        },
        "resume": resume_json(h.resume),
    }


#: What each confidence level means, in words a person or an agent can act on.
CONFIDENCE_SAYS = {
    Level.STRONG: "strong: the first result is very likely the session meant",
    Level.WEAK: (
        "weak: the first result may be it, but it shares few of the query's rarer words or"
        " stands out little by meaning; read it before relying on it"
    ),
    Level.NOTHING: (
        "nothing close: no indexed session matches this well; the results are only the"
        " nearest and most likely not it. Say it was not found, or search again with other"
        " words"
    ),
}


def confidence_json(c: Confidence | None) -> dict[str, Any] | None:
    """The level, its meaning in words, the score (0-1) and the signals behind it."""
    if c is None:
        return None
    return {
        "level": c.level.value,
        "says": CONFIDENCE_SAYS[c.level],
        "score": c.score,
        "coverage": _rounded(c.coverage),
        "lift": _rounded(c.lift),
        "agreement": c.agreement,
        "margin": _rounded(c.margin),
        "standout": _rounded(c.standout),
    }


def _rounded(x: float | None) -> float | None:
    return None if x is None else round(x, 3)


def id_match_json(m: IdMatch | None) -> dict[str, Any] | None:
    """The sessions a query named by id: one (then the first result) or several (listed,
    none ranked first); None when the query named no id."""
    if m is None:
        return None
    return {"kind": m.kind, "sessions": [session_json(s) for s in m.sessions]}


def search_json(r: SearchResponse) -> dict[str, Any]:
    """`findsession.search/1`: what ran, how sure it is, and the hits, best first."""
    return {
        "schema": SEARCH_SCHEMA,
        "query": r.query,
        "strategy": r.strategy,
        "id_match": id_match_json(r.id_match),
        "confidence": confidence_json(r.confidence),
        "index_empty": r.index_empty,
        "notes": r.notes,
        "results": [hit_json(h) for h in r.hits],
    }
