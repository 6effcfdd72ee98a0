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
from dataclasses import dataclass, field, replace

import numpy as np

from findsession import cjk
from findsession.domain import Hit, SearchResponse
from findsession.embeddings.base import Embedder, EmbeddingUnavailable
from findsession.search import fts_query
from findsession.search.filters import SearchOptions
from findsession.search.fusion import FusedUnit, fuse
from findsession.search.snippets import chunk_snippet, clean_snippet, field_of, find_snippet
from findsession.storage.sqlite import Store
from findsession.storage.sqlite.keyword_index import (
    KeywordQueryError,
    UnitMatch,
    keyword_search,
    unit_holds,
)
from findsession.storage.sqlite.keyword_index import snippet as keyword_snippet
from findsession.storage.sqlite.vector_index import VectorMatch, VectorMatrix

#: Units fetched per list for each session shown: many units of one session can precede
#: the next session's best unit.
_UNITS_PER_RESULT = 25
_MIN_UNITS = 200
EmbedderSource = Callable[[], Embedder]


@dataclass
class Retrieval:
    """Fused units before grouping: what `search` shows, and what benchmarks measure."""

    strategy: str
    units: list[FusedUnit]
    notes: list[str] = field(default_factory=list)
    index_empty: bool = False


def search(
    store: Store,
    query: str,
    opts: SearchOptions | None = None,
    embedder: EmbedderSource | None = None,
) -> SearchResponse:
    """Search the index; `strategy` is hybrid, keyword, vector or none.

    `embedder` is called only when vectors are wanted and exist, so keyword-only work
    never loads a model; without one, the configured model is used.
    """
    opts = (opts or SearchOptions()).validated()
    found = retrieve(store, query, opts, embedder)
    response = SearchResponse(
        query=query,
        strategy=found.strategy,
        hits=[],
        notes=found.notes,
        index_empty=found.index_empty,
    )
    response.hits = _group_by_session(store, found.units, query, opts)
    return response


def retrieve(
    store: Store,
    query: str,
    opts: SearchOptions,
    embedder: EmbedderSource | None = None,
    limit: int | None = None,
) -> Retrieval:
    """Both retrievals, filtered inside, fused by rank: units best first."""
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
            keyword = keyword_search(store, query, opts, limit)
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
    pins = dict.fromkeys(_exact_units(store, query, opts, limit) if keyword else [], "identifier")
    if keyword and vector:
        held, words = _words_held(store, query, keyword[0].unit_id)
        if held >= WINNER_COVERAGE * words:
            pins.setdefault(keyword[0].unit_id, "keyword-winner")
        elif words >= 3 and held < WEAK_COVERAGE * words:
            found.notes.append(
                f"the best keyword match holds {held} of the query's {words} words:"
                " ranked by meaning"
            )
            keyword = []
    found.units = fuse(keyword, vector, opts.hybrid_weight, pins, floor)
    return found


#: Share of the query's words the keyword winner must hold to keep first place.
WINNER_COVERAGE = 0.5
#: Below this share, even the best keyword match only shares an incidental word with a
#: query of three or more words (typical of a question in another language than the
#: session): fusing it would put that word's units above the meaning's best.
WEAK_COVERAGE = 1 / 3


def _coverage_words(query: str) -> list[str]:
    """The query's content words, with each CJK run counted as its bigrams: Chinese has
    no spaces, so a whole sentence would otherwise count as one word held by any unit
    sharing one two-character word with it."""
    words: list[str] = []
    for token in fts_query.content_tokens(query):
        runs = cjk.runs(token)
        rest = "".join(c for c in token if not cjk.runs(c))  # "WebSocket" of "WebSocket服务"
        if rest:
            words.append(rest)
        for run in runs:
            words += cjk.bigrams(run) if len(run) > 1 else [run]
    return list(dict.fromkeys(words))


def _words_held(store: Store, query: str, unit_id: int) -> tuple[int, int]:
    """How many of the query's content words the unit matches, and how many there are.

    Many held: the keyword match is specific enough that a weak vector list should not
    push it down. Few: the match is incidental and the vector list should decide.
    """
    words = _coverage_words(query)
    if not words:
        return 0, 0
    held = sum(unit_holds(store, word, unit_id) for word in words)
    return held, len(words)


def _start_query_vector(
    store: Store, query: str, embedder: EmbedderSource | None, notes: list[str]
) -> Future[tuple[Embedder, np.ndarray | None]] | None:
    """Load the model and embed the query in a thread; None (with a note) if there are
    no vectors to search. A cold process spends most of a search loading the model, so
    it overlaps with the keyword search and the vector matrix load."""
    if store.setting("embedding_model") is None or not store.has_vectors():
        notes.append("no vectors yet: run `findsession index` to embed; keyword search only")
        return None
    if embedder is None:
        from findsession.embeddings import configured_embedder, model_of_identity

        # Under `model = "auto"`, the query is embedded by the model the vectors came from.
        made_by = model_of_identity(store.setting("embedding_model"))
        embedder = lambda: configured_embedder(made_by)  # noqa: E731
    source = embedder

    def work() -> tuple[Embedder, np.ndarray | None]:
        model = source()
        if not query.strip():
            return model, None
        return model, model.embed([query], "query")[0]

    pool = ThreadPoolExecutor(max_workers=1)
    future = pool.submit(work)
    pool.shutdown(wait=False)
    return future


def _vector_list(
    store: Store,
    pending: Future[tuple[Embedder, np.ndarray | None]],
    opts: SearchOptions,
    limit: int,
    notes: list[str],
) -> tuple[list[VectorMatch], float] | None:
    """Units by meaning and the cosine a vector-only unit needs to be shown; or None,
    with a note saying why vector search could not run."""
    stored = store.setting("embedding_model")
    matrix = VectorMatrix.current(store)
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
    matches = matrix.search(store, vec, opts, limit)
    if opts.session:  # one session: the question is where in it, not whether
        return matches, -1.0
    best = matches[0].cosine if matches else 0.0
    return matches, max(model.min_cosine, best - model.cosine_margin)


def _exact_units(store: Store, query: str, opts: SearchOptions, limit: int) -> set[int]:
    """Units containing every identifier-like token of the query, verbatim.

    FTS5 finds candidates but splits `normalize_ledger_rows` into three words that prose
    also holds, so each candidate's text is checked for the token itself.
    """
    tokens = fts_query.exact_tokens(query)
    if not tokens or opts.raw:
        return set()
    expression = " AND ".join(fts_query.quote(t) for t in tokens)
    try:
        candidates = [
            m.unit_id for m in keyword_search(store, expression, replace(opts, raw=True), limit)
        ]
    except KeywordQueryError:
        return set()
    if not candidates:
        return set()
    return store.units_containing(candidates, tokens)


def _group_by_session(
    store: Store, fused: list[FusedUnit], query: str, opts: SearchOptions
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
        if unit.kind == "turn":
            best_turn.setdefault(unit.session_id, unit)
    hits = []
    for sid, unit in best.items():
        shown = best_turn[sid] if unit.kind == "session" and sid in best_turn else unit
        hit = _hit(store, unit, shown, len(hits) + 1, query, opts)
        if hit is not None:
            hits.append(hit)
    return hits


def _hit(
    store: Store,
    ranked: FusedUnit,
    shown: FusedUnit,
    position: int,
    query: str,
    opts: SearchOptions,
) -> Hit | None:
    session = store.get_session(shown.session_id)
    row = store.unit_fields(shown.unit_id)
    if session is None or row is None:  # deleted between the queries by a concurrent run
        return None
    ts, title, prompt, reply, tools, tool_names, files = row
    fields = {"title": title, "prompt": prompt, "reply": reply, "tools": tools}
    marked = keyword_snippet(store, query, opts, shown.keyword) if shown.keyword else ""
    if marked:
        snippet, spans = clean_snippet(marked)
        matched_field = field_of(snippet, fields)
    elif shown.keyword is not None:  # matched through the CJK bigrams: no FTS5 snippet
        terms = fts_query.tokens(query) + [g for r in cjk.runs(query) for g in cjk.bigrams(r)]
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
        turn=shown.ordinal if shown.kind == "turn" else None,
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
