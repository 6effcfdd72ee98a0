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

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from findsession.domain import Confidence, SearchResponse
from findsession.embeddings.base import Embedder, EmbeddingUnavailable
from findsession.query import Query
from findsession.search import confidence, ids, sessions, when
from findsession.search.exclusions import count_excluded
from findsession.search.filters import SearchOptions
from findsession.search.fusion import FusedUnit, fuse
from findsession.search.hits import hits_of
from findsession.search.named import SourceOf, favour, named_sources
from findsession.search.sessions import RankedSession, rank_sessions
from findsession.storage.base import KeywordQueryError, UnitMatch, VectorMatch
from findsession.storage.views import SearchStore

if TYPE_CHECKING:  # numpy only where vectors are computed: `--help` must not load it
    import numpy as np

#: Units fetched per list for each session shown: many units of one session can precede
#: the next session's best unit.
_UNITS_PER_RESULT = 25
_MIN_UNITS = 200
#: Loads the embedder on first use, so keyword-only work never loads a model.
EmbedderSource = Callable[[], Embedder]
#: Threads that embed queries, kept: starting one per search cost a resident searcher up
#: to 2 ms a search on a busy machine.
_QUERY_POOL = ThreadPoolExecutor(max_workers=4, thread_name_prefix="findsession-query")


@dataclass
class Retrieval:
    """Fused units before grouping: what `search` shows, and what benchmarks measure."""

    strategy: str
    units: list[FusedUnit]
    notes: list[str] = field(default_factory=list)
    index_empty: bool = False
    signals: confidence.Signals = field(default_factory=confidence.Signals)
    #: What a session's further units need to count as evidence for it.
    evidence: sessions.Evidence = field(default_factory=sessions.Evidence)
    #: The query's vector, when the vector list ran.
    query_vector: np.ndarray | None = None
    #: What each session's match strengths are measured against.
    scale: sessions.Scale = field(default_factory=sessions.Scale)


def search(
    store: SearchStore,
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
    # Time words name no topic: matched, "last week" would find every turn saying "week".
    window = None if opts.raw or opts.after or opts.before else when.time_window(text)
    query = Query.parse(when.without_time_words(text, window), raw=opts.raw)
    found = retrieve(store, query, opts, embedder, window=window)
    response = SearchResponse(
        query=text,
        strategy=found.strategy,
        hits=[],
        notes=found.notes,
        index_empty=found.index_empty,
    )
    ranked = rank_sessions(found.units, found.evidence, found.scale)
    response.hits = hits_of(store, ranked, query, opts)
    if not opts.session and found.strategy != "none":
        response.confidence = _confidence(store, ranked, query, found.signals)
    if opts.count_excluded and found.strategy != "none":
        keyword = found.signals.keyword_ran
        response.excluded = count_excluded(store, query, opts.filters, found.query_vector, keyword)
    return ids.answer_by_id(store, response, text, opts)


def _confidence(
    store: SearchStore, sessions: list[RankedSession], query: Query, signals: confidence.Signals
) -> Confidence:
    """How sure the search is that its first session is the one the query means."""
    if not sessions:
        return confidence.NOTHING
    first = sessions[0]
    cosines = [u.vector.cosine for u in first.units if u.vector is not None]
    share = confidence.coverage(store, query, [u.unit_id for u in first.units])
    margin = first.score - (sessions[1].score if len(sessions) > 1 else 0.0)
    above = confidence.standout([s.score for s in sessions[: 1 + confidence.RUNNERS_UP]])
    best = max(cosines, default=None)
    return confidence.assess(share, best, signals, first.session_id, margin, above)


def retrieve(
    store: SearchStore,
    query: Query | str,
    opts: SearchOptions,
    embedder: EmbedderSource | None = None,
    limit: int | None = None,
    window: when.Window | None = None,
) -> Retrieval:
    """Both retrievals, filtered inside, fused by rank: units best first; the sessions
    active in `window` (the time words of the query) nudged up."""
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
            vector, floor, evidence_cosine, found.query_vector = result
            found.evidence = sessions.Evidence(cosine=evidence_cosine)
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
    # Only a keyword list can be pinned: without one the lookup would be thrown away. And
    # only terms typed to be found are pinned: in a sentence, "GitHub's" is no identifier,
    # and among hundreds of look-alike sessions three common words make a keyword winner.
    # Inside one session (where in it, not which) the units share a topic, and the one
    # holding most of the question's words is the place (LoCoMo's recall@5 +1.5).
    typed = query.raw or query.looks_like_keywords or (PIN_INSIDE_SESSION and bool(opts.session))
    wanted = keyword and typed and not query.raw
    exact = store.units_with_all(list(query.identifiers), filters, limit) if wanted else set()
    pins = dict.fromkeys(exact, "identifier")
    named = set() if opts.source else named_sources(query)
    sources = SourceOf(store)
    activity = when.Activity(store)
    # The lists' agreement is read before an incidental keyword list is left out: its
    # first disagreeing with the meaning's is evidence too.
    found.signals = _signals(keyword, vector)
    if keyword and vector:
        held, words = _words_held(store, query, keyword[0].unit_id)
        # A query that names another agent, or another time, gives this best match no
        # first place.
        winner = keyword[0].session_id
        winner_named = not named or sources(winner) in named
        winner_named &= window is None or activity.overlaps(winner, window)
        if typed and held >= WINNER_COVERAGE * words and winner_named:
            pins.setdefault(keyword[0].unit_id, "keyword-winner")
        elif held < WEAK_COVERAGE * words and (not query.cjk_runs or held < INCIDENTAL_WORDS):
            found.notes.append(
                f"the best keyword match holds {held} of the query's {words} words:"
                " ranked by meaning"
            )
            keyword = []
    if vector is None and keyword:
        best = min(m.bm25 for m in keyword)
        found.evidence = sessions.Evidence(bm25=best * sessions.EVIDENCE_BM25_SHARE)
    background = found.signals.background
    found.scale = sessions.Scale.of(keyword, vector, floor if background is None else background)
    found.units = fuse(keyword, vector, opts.hybrid_weight, pins, floor)
    if not opts.session:  # inside one session, the places are that session's own
        found.units = for_parents(store, found.units)
    lengths = store.turn_counts(sessions.with_further(found.units))
    found.evidence = replace(found.evidence, turns=lengths)
    if named:
        found.units = favour(found.units, named, sources)
    if window is not None and not opts.session:
        found.units = when.prefer_window(found.units, window, activity)
        found.notes.append(
            f"read {window.words!r} as {window.describe()}: sessions active then rank higher"
        )
    return found


def for_parents(store: SearchStore, units: list[FusedUnit]) -> list[FusedUnit]:
    """The units of a session that only restates its parent (a compaction agent's
    summary) counted for the parent: they are evidence for the session the person
    worked in, and shown apart they took a place in the list for a summary of it.

    Measured on four real histories (525 of 1,824 subagent files are compaction
    agents): MRR .816 -> .821 with no person, language or kind lower
    (docs/benchmarks.md, "A compaction's summary counts for its session").
    """
    parents = store.restating(list(dict.fromkeys(u.session_id for u in units)))
    for unit in units:
        parent = parents.get(unit.session_id)
        if parent is not None:
            unit.found_in, unit.session_id = unit.session_id, parent
    return units


#: Whether a search inside one session pins for a sentence too (see `retrieve`).
PIN_INSIDE_SESSION = True
#: Share of the query's words the keyword winner must hold to keep first place.
WINNER_COVERAGE = 0.5

#: Below this share, even the best keyword match only shares an incidental word with a
#: query of three or more words (typical of a question in another language than the
#: session): its list is left out, and the vector list ranks alone.
WEAK_COVERAGE = 1 / 3
#: ... and, for a query with CJK text, only when it holds fewer words than this: a long
#: CJK sentence counts dozens of bigrams, most of them across word boundaries, so the
#: right session's best turn may hold a tenth of them and still be the answer (measured
#: on four real histories: dropping such lists cost Chinese and Korean queries 5-7
#: points of hit@5).
INCIDENTAL_WORDS = 3


#: Vector-list ranks whose mean cosine is a query's background (confidence's lift).
_BACKGROUND = slice(10, 200)


def _signals(
    keyword: list[UnitMatch] | None, vector: list[VectorMatch] | None
) -> confidence.Signals:
    """What the confidence needs from the lists before fusion reorders them; a list that
    ran and found nothing is not the same as no list."""
    signals = confidence.Signals(keyword_ran=keyword is not None, vector_ran=vector is not None)
    if keyword:
        signals.keyword_first = keyword[0].session_id
    if vector:
        signals.vector_first = vector[0].session_id
        # A small index (or scope) has no "typical near neighbours": its few units are
        # all of it, and an unrelated query's best would seem to stand far above them.
        if len(vector) >= _BACKGROUND.stop:
            background = [v.cosine for v in vector[_BACKGROUND]]
            signals.background = sum(background) / len(background)
    return signals


def _words_held(store: SearchStore, query: Query, unit_id: int) -> tuple[int, int]:
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
    store: SearchStore, query: Query, embedder: EmbedderSource | None, notes: list[str]
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

    return _QUERY_POOL.submit(work)


def _vector_list(
    store: SearchStore,
    pending: Future[tuple[Embedder, np.ndarray | None]],
    opts: SearchOptions,
    limit: int,
    notes: list[str],
) -> tuple[list[VectorMatch], float, float, np.ndarray | None] | None:
    """Units by meaning, the cosine a vector-only unit needs to be shown, the cosine a
    session's further unit needs to count as evidence and the query's vector; or None,
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
        return [], 0.0, 1.0, None
    matches = store.vector_search(vec, opts.filters, limit)
    best = matches[0].cosine if matches else 0.0
    evidence = best - model.cosine_margin * sessions.EVIDENCE_MARGIN_SHARE
    if opts.session:  # one session: the question is where in it, not whether
        return matches, -1.0, evidence, vec
    return matches, max(model.min_cosine, best - model.cosine_margin), evidence, vec
