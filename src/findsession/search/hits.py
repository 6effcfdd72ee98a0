"""Search results as people read them: a session, the place in it, and a snippet.

Each ranked session is shown at its best place to read (a turn or a document section),
with the words that matched marked, whichever list found it: FTS5's own snippet for a
keyword match, the matched CJK bigrams, or the chunk the vector matched best.
"""

from __future__ import annotations

import json
from dataclasses import replace

from findsession.domain import Hit, IdMatch, Session
from findsession.query import Query
from findsession.search.filters import SearchOptions
from findsession.search.fusion import FusedUnit
from findsession.search.sessions import RankedSession
from findsession.search.snippets import chunk_snippet, clean_snippet, field_of, find_snippet
from findsession.storage.views import SearchStore

#: Unit kinds that are a place in a session to read (`read ID --turn N`): a turn, or a
#: section of a document; a session fingerprint is not.
PLACES = ("turn", "doc")


def hits_of(
    store: SearchStore, sessions: list[RankedSession], query: Query, opts: SearchOptions
) -> list[Hit]:
    """One hit per session, in rank order, up to `opts.top`; a fingerprint hit shows
    its best turn. On a team's server, a transcript pushed from several of its owner's
    machines (a synced folder) is one hit: its best-ranked copy.

    A session found through its fingerprint, or through a compaction's summary of it,
    is still shown at a turn when one of its own turns matched too, because "where in
    the session" is the next question.
    """
    hits: list[Hit] = []
    copies: set[tuple[str, str]] = set()
    for ranked in sessions:
        if len(hits) >= opts.top:
            break
        best = ranked.best
        turns = [u for u in ranked.units if u.kind in PLACES and u.found_in is None]
        whole = best.kind == "session" or best.found_in is not None
        shown = turns[0] if whole and turns else best
        hit = hit_of(store, best, shown, len(hits) + 1, query, opts, ranked.score)
        if hit is None:
            continue
        hit.parts = ranked.parts
        key = hit.session.copy_key
        if key is not None:
            if key in copies:
                continue  # the same transcript from another machine ranked higher
            copies.add(key)
        hits.append(hit)
    return hits


def hit_of(
    store: SearchStore,
    ranked: FusedUnit,
    shown: FusedUnit,
    position: int,
    query: Query,
    opts: SearchOptions,
    score: float,
) -> Hit | None:
    session = store.get_session(shown.session_id)
    row = store.unit_fields(shown.unit_id)
    # A compaction's summary is no place in the session it counts for: the session is
    # shown whole, with the summary's words.
    place = shown.kind in PLACES and shown.found_in is None
    if session is None or row is None:  # deleted between the queries by a concurrent run
        return None
    ts, title, prompt, reply, tools, tool_names, files = row
    fields = {"title": title, "prompt": prompt, "reply": reply, "tools": tools}
    marked = store.keyword_snippet(query, opts.filters, shown.keyword) if shown.keyword else ""
    if marked:
        snippet, spans = clean_snippet(marked)
        matched_field = field_of(snippet, fields)
    elif shown.keyword is not None:  # matched through the CJK bigrams: no FTS5 snippet
        terms = [*query.words, *query.cjk_bigrams]
        snippet, spans, matched_field = find_snippet(fields, terms)
    elif shown.vector is not None:
        v = shown.vector
        snippet, spans = chunk_snippet(fields.get(v.field, ""), v.start, v.end), []
        matched_field = v.field
    else:  # pragma: no cover - every fused unit came from a list
        snippet, spans, matched_field = "", [], "prompt"
    return Hit(
        rank=position,
        score=score,
        session=session,
        unit_kind=shown.kind if place else "session",
        turn=shown.ordinal if place else None,
        timestamp=ts,
        snippet=snippet,
        highlights=spans,
        matched_field=matched_field,
        keyword_rank=ranked.keyword_rank,
        vector_rank=ranked.vector_rank,
        bm25=ranked.keyword.bm25 if ranked.keyword else None,
        cosine=ranked.vector.cosine if ranked.vector else None,
        matched_terms=sorted({snippet[a:b].lower() for a, b in spans}),
        pinned=ranked.pinned,
        tool_names=json.loads(tool_names or "[]"),
        files=json.loads(files or "[]")[:5],
    )


def with_id_match(store: SearchStore, hits: list[Hit], match: IdMatch, top: int) -> list[Hit]:
    """The session a query named by id first, marked `pinned="id"`, then the others as
    ranked; shown where its words matched when they did, else at its first turn. An
    ambiguous id ranks none first: the hits stay as the words ranked them."""
    if not match.unique:
        return hits
    named = match.sessions[0]
    found = next((h for h in hits if h.session.id == named.id), None)
    first = replace(found, pinned="id") if found else _first_turn(store, named)
    rest = [h for h in hits if h.session.id != named.id]
    return [replace(h, rank=rank) for rank, h in enumerate([first, *rest][:top], 1)]


def _first_turn(store: SearchStore, session: Session) -> Hit:
    """A session no word of the query matched, shown at the start of its first turn."""
    prompt = store.first_prompt(session.id)
    return Hit(
        rank=1,
        score=0.0,
        session=session,
        unit_kind="turn",
        turn=1 if prompt else None,
        timestamp=session.first_ts,
        snippet=chunk_snippet(prompt, 0, len(prompt)),
        highlights=[],
        matched_field="prompt",
        pinned="id",
    )
