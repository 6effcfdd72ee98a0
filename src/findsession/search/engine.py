"""Run a search: keyword and vector retrieval, rank fusion, grouping by session.

Both retrievals run for every query, each with the filters inside it, and their unit
lists are fused by reciprocal rank: weight/(60+rank) per list, the vector list weighted
by `hybrid_weight` and the keyword list by the rest. When one side cannot run, the other
answers alone and `SearchResponse.strategy` says so; the notes say why.

Measured on real transcripts, plain fusion let a weak vector list push wrong sessions
above an exact keyword hit. So a query holding an identifier-like token (a path, a
snake_case or camelCase name, an error code, a commit hash) ranks the units containing
that token verbatim first, and the keyword list's winner keeps first place when it holds
at least half of the query's words (on LoCoMo this lifted hybrid recall@5 from 51.5 to
57.5, above both single lists; see docs/benchmarks.md).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from findsession.domain import Hit, SearchResponse
from findsession.embeddings.base import Embedder, EmbeddingUnavailable
from findsession.query import Query
from findsession.search.filters import SearchOptions
from findsession.search.fusion import FusedUnit, fuse
from findsession.search.named import SourceOf, favour, named_sources
from findsession.search.snippets import chunk_snippet, clean_snippet, field_of, find_snippet
from findsession.storage.base import KeywordQueryError, Storage, UnitMatch, VectorMatch

#: Units fetched per list for each session shown: many units of one session can precede
#: the next session's best unit.
_UNITS_PER_RESULT = 25
_MIN_UNITS = 200
#: Loads the embedder on first use, so keyword-only work never loads a model.
EmbedderSource = Callable[[], Embedder]


@dataclass
class Retrieval:
    """Fused units before grouping: what `search` shows, and what benchmarks measure."""

    strategy: str
    units: list[FusedUnit]
    notes: list[str] = field(default_factory=list)
    index_empty: bool = False


def search(
    store: Storage,
    text: str,
    opts: SearchOptions | None = None,
    embedder: EmbedderSource | None = None,
) -> SearchResponse:
    """Search the index; `strategy` is hybrid, keyword, vector or none.

    `embedder` is called only when vectors are wanted and exist, so keyword-only work
    never loads a model; without one, search is by keyword alone (the core API passes
    the configured model).
    """
    opts = (opts or SearchOptions()).validated()
    query = Query.parse(text, raw=opts.raw)
    found = retrieve(store, query, opts, embedder)
    response = SearchResponse(
        query=text,
        strategy=found.strategy,
        hits=[],
        notes=found.notes,
        index_empty=found.index_empty,
    )
    response.hits = _group_by_session(store, found.units, query, opts)
    return response


def retrieve(
    store: Storage,
    query: Query | str,
    opts: SearchOptions,
    embedder: EmbedderSource | None = None,
    limit: int | None = None,
) -> Retrieval:
    """Both retrievals, filtered inside, fused by rank: units best first."""
    if isinstance(query, str):
        query = Query.parse(query, raw=opts.raw)
    filters = opts.filters
    found = Retrieval(strategy="none", units=[])
    if not store.has_units():
        found.index_empty = True
        found.notes.append("the index is empty: run `findsession index` first")
        return found
    limit = limit or max(_MIN_UNITS, opts.top * _UNITS_PER_RESULT)
    keyword: list[UnitMatch] | None = None
    vector: list[VectorMatch] | None = None
    floor = 0.0
    pending = None
    if opts.mode in ("hybrid", "vector"):
        pending = _start_query_vector(store, query, embedder, found.notes)
    if opts.mode in ("hybrid", "keyword"):
        try:
            keyword = store.keyword_search(query, filters, limit)
        except KeywordQueryError as exc:
            found.notes.append(
                f"FTS5 rejected the query ({exc}); these results come from"
                " meaning-based search alone"
            )
    if pending is not None:
        result = _vector_list(store, pending, opts, limit, found.notes)
        if result is not None:
            vector, floor = result
    if keyword is not None and vector is not None:
        found.strategy = "hybrid"
    elif keyword is not None:
        found.strategy = "keyword"
    elif vector is not None:
        found.strategy = "vector"
    else:
        found.notes.append(
            "no retrieval could run: fix the query, or configure an embedding model"
            " ([embedding] in the config file) and run `findsession index`"
        )
        return found
    # Only a keyword list can be pinned: without one the lookup would be thrown away.
    wanted = keyword and not query.raw
    exact = store.units_with_all(list(query.identifiers), filters, limit) if wanted else set()
    pins = dict.fromkeys(exact, "identifier")
    named = set() if opts.source else named_sources(query)
    sources = SourceOf(store)
    if keyword and vector:
        held, words = _words_held(store, query, keyword[0].unit_id)
        # A query that names another agent gives this one's best match no first place.
        winner_named = not named or sources(keyword[0].session_id) in named
        if held >= WINNER_COVERAGE * words and winner_named:
            pins.setdefault(keyword[0].unit_id, "keyword-winner")
        elif words >= 3 and held < WEAK_COVERAGE * words:
            found.notes.append(
                f"the best keyword match holds {held} of the query's {words} words:"
                " ranked by meaning"
            )
            keyword = []
    found.units = fuse(keyword, vector, opts.hybrid_weight, pins, floor)
    if named:
        found.units = favour(found.units, named, sources)
    return found


#: Unit kinds that are a place in a session to read (`read ID --turn N`): a turn, or a
#: section of a document; a session fingerprint is not.
PLACES = ("turn", "doc")
#: Share of the query's words the keyword winner must hold to keep first place.
WINNER_COVERAGE = 0.5
#: Below this share, even the best keyword match only shares an incidental word with a
#: query of three or more words (typical of a question in another language than the
#: session): fusing it would put that word's units above the meaning's best.
WEAK_COVERAGE = 1 / 3


def _words_held(store: Storage, query: Query, unit_id: int) -> tuple[int, int]:
    """How many of the query's content words the unit matches, and how many there are.

    Many held: the keyword match is specific enough that a weak vector list should not
    push it down. Few: the match is incidental and the vector list should decide.
    """
    words = query.coverage_words
    if not words:
        return 0, 0
    held = sum(store.unit_holds(word, unit_id) for word in words)
    return held, len(words)


def _start_query_vector(
    store: Storage, query: Query, embedder: EmbedderSource | None, notes: list[str]
) -> Future[tuple[Embedder, np.ndarray | None]] | None:
    """Load the model and embed the query in a thread; None (with a note) if there are
    no vectors to search. A cold process spends most of a search loading the model, so
    it overlaps with the keyword search and the vector matrix load."""
    if store.setting("embedding_model") is None or not store.has_vectors():
        notes.append("no vectors yet: run `findsession index` to embed; keyword search only")
        return None
    if embedder is None:
        notes.append("no embedding model was given: keyword search only")
        return None
    source = embedder

    def work() -> tuple[Embedder, np.ndarray | None]:
        model = source()
        if not query.text.strip():
            return model, None
        return model, model.embed([query.text], "query")[0]

    pool = ThreadPoolExecutor(max_workers=1)
    future = pool.submit(work)
    pool.shutdown(wait=False)
    return future


def _vector_list(
    store: Storage,
    pending: Future[tuple[Embedder, np.ndarray | None]],
    opts: SearchOptions,
    limit: int,
    notes: list[str],
) -> tuple[list[VectorMatch], float] | None:
    """Units by meaning and the cosine a vector-only unit needs to be shown; or None,
    with a note saying why vector search could not run."""
    stored = store.setting("embedding_model")
    store.load_vectors()  # while the model loads in its thread, not after it
    try:
        model, vec = pending.result()
    except EmbeddingUnavailable as exc:
        notes.append(f"embedding model unavailable ({exc}); keyword search only")
        return None
    if model.identity != stored:
        notes.append(
            f"the vectors were made by another model ({stored}) than the configured one"
            f" ({model.identity}): run `findsession index` to re-embed; keyword search only"
        )
        return None
    if vec is None:
        return [], 0.0
    matches = store.vector_search(vec, opts.filters, limit)
    if opts.session:  # one session: the question is where in it, not whether
        return matches, -1.0
    best = matches[0].cosine if matches else 0.0
    return matches, max(model.min_cosine, best - model.cosine_margin)


def _group_by_session(
    store: Storage, fused: list[FusedUnit], query: Query, opts: SearchOptions
) -> list[Hit]:
    """The best unit per session, in rank order; a fingerprint hit shows its best turn.

    A session found through its fingerprint is still shown at a turn when one of its
    turns matched too, because "where in the session" is the next question.
    """
    best: dict[str, FusedUnit] = {}
    best_turn: dict[str, FusedUnit] = {}
    for unit in fused:
        if unit.session_id not in best and len(best) < opts.top:
            best[unit.session_id] = unit
        if unit.kind in PLACES:
            best_turn.setdefault(unit.session_id, unit)
    hits = []
    for sid, unit in best.items():
        shown = best_turn[sid] if unit.kind == "session" and sid in best_turn else unit
        hit = _hit(store, unit, shown, len(hits) + 1, query, opts)
        if hit is not None:
            hits.append(hit)
    return hits


def _hit(
    store: Storage,
    ranked: FusedUnit,
    shown: FusedUnit,
    position: int,
    query: Query,
    opts: SearchOptions,
) -> Hit | None:
    session = store.get_session(shown.session_id)
    row = store.unit_fields(shown.unit_id)
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
        score=ranked.score,
        session=session,
        unit_kind=shown.kind,
        turn=shown.ordinal if shown.kind in PLACES else None,
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
