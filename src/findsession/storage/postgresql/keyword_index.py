"""Keyword retrieval over the `tsvector` columns, with filters applied inside each query.

As on SQLite, conversation text (title, prompt, reply) and tool text are ranked apart
and fused by rank, tool matches at a lower weight, and CJK text is a third list of
bigrams. PostgreSQL's own ranking knows nothing of how rare a word is, nor of a unit's
length against the others, so each list's score is FTS5's BM25 computed in SQL (see
`_ranked`): per query word, its inverse document frequency times a saturating function
of its occurrences in the unit weighted by field (4:2:1 for title, prompt and reply),
normalised by the unit's length against the average. A rare word a unit holds then
counts for more than a common one, which is what makes BM25 find the session a person
remembers by its one unusual word; and both backends rank alike.

A list of single words reads their rows in `postings` (schema step 11) by an index-only
scan, so it costs the words' postings rather than every matching unit's `tsvector`; a
phrase, a prefix, a speaker's weight or a filter goes through the GIN index instead.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from typing import Any

from psycopg import errors

from findsession import cjk
from findsession.query import Query
from findsession.storage.base import Filters, KeywordQueryError, UnitMatch
from findsession.storage.postgresql import tsquery
from findsession.storage.postgresql.connection import Connection as Store
from findsession.storage.postgresql.filters import filter_values
from findsession.storage.postgresql.schema_v11 import COLUMNS
from findsession.storage.sql.ranking import TOOLS_WEIGHT, common_above, fuse

#: `ts_rank_cd` weights {D, C, B, A}: title 4, prompt 2, reply 1 (and tools 0.5 among the
#: bigrams), scaled into the 0..1 range it takes; `TF_SCALE` scales them back.
CONVERSATION_WEIGHTS = "{0.125, 0.25, 0.5, 1.0}"
TOOLS_WEIGHTS = "{1.0, 1.0, 1.0, 1.0}"
TF_SCALE = {CONVERSATION_WEIGHTS: 4.0, TOOLS_WEIGHTS: 1.0}


@dataclass(frozen=True, slots=True)
class Ranked:
    """One list to rank: a tsvector column, its weights, and the query's terms in it,
    each with how much matching it says."""

    column: str
    weights: str
    terms: list[tuple[str, float]]


@contextmanager
def index_scans(store: Store) -> Iterator[None]:
    """Statements inside that match `tsvector`s go through their GIN indexes.

    The planner costs `@@` as a cheap operator and, once a few percent of the units
    match (a common word does), reads the whole table instead, testing `@@` on every
    row. Each test then decompresses that row's `tsvector` from TOAST: 56 ms for 23k
    units where the index finds the same 4,000 rows in 2 ms. Per transaction, so it
    touches nothing else the connection runs."""
    with store.transaction() if store.in_transaction else store.snapshot():
        before = store.scalar("SELECT current_setting('enable_seqscan')")
        store.execute("SET LOCAL enable_seqscan = off")
        yield
        store.execute("SELECT set_config('enable_seqscan', ?, true)", (before,))


def phrases(store: Store, words: list[str]) -> dict[str, str]:
    """Each word's phrase of lexemes, cut and stemmed by the server as the text was;
    words without a letter or digit are left out."""
    if not words:
        return {}
    clean = tsquery.CLEAN_SQL.format("w")
    rows = store.query(
        f"SELECT w, phraseto_tsquery('{tsquery.CONFIG}', {clean})::text"
        " FROM unnest(?::text[]) AS w",
        (list(dict.fromkeys(words)),),
    )
    return {w: tsquery.as_prefix(w, p) for w, p in rows if p}


def unit_count(store: Store) -> int:
    """How many units the caller may read (kept by triggers per audience and owner:
    counting reads the whole table), the N of every IDF."""
    return int(store.scalar("SELECT coalesce(sum(n), 0) FROM unit_count") or 0)


#: How long a word's count is kept at most while the number of units stays the same (a
#: unit rewritten in place moves a count but not the number). Each keyword search
#: starts afresh: the counts are kept for the search that asked (its keyword list, then
#: its confidence), not for the next one.
_COUNTS_KEPT_S = 30.0


def document_counts(
    store: Store, column: str, queries: list[str], beside: Store | None = None
) -> dict[str, int]:
    """How many units the caller may read match each query in `column`, all in one
    statement (`_counted`: a word's rows in `postings`, a phrase through the GIN index).

    Counting reads every matching unit, and one search asks it twice of each word (the
    keyword list's IDF, then the confidence's rarity): 56 of 92 ms of a keyword search
    at 23k units. A count is kept on the connection for the rest of that search (while
    the caller's number of units stays what it was, for at most `_COUNTS_KEPT_S`). With
    `beside`, a second connection, half the words are counted there at the same time."""
    kept: dict[str, Any] = store.__dict__.setdefault("_document_counts", {})
    units = unit_count(store)
    now = time.monotonic()
    if kept.get("units") != units or now - kept.get("since", now) > _COUNTS_KEPT_S:
        kept.clear()
        kept.update(units=units, since=now, counts={})
    counts: dict[tuple[str, str], int] = kept["counts"]
    missing = [q for q in dict.fromkeys(queries) if (column, q) not in counts]
    if missing:
        if beside is None or len(missing) < 2:
            rows = _counted(store, column, missing)
        else:
            half = len(missing) // 2
            with ThreadPoolExecutor(1) as pool:
                later = pool.submit(_counted_beside, beside, column, missing[half:])
                rows = _counted(store, column, missing[:half]) + later.result()
        counts.update({(column, q): int(n) for q, n in rows})
    return {q: counts[(column, q)] for q in queries}


def _counted(store: Store, column: str, queries: list[str]) -> list[tuple[Any, ...]]:
    """Each query's count: a lexeme's from its rows in `postings` (an index-only count,
    schema step 11), a phrase's or a prefix's through the GIN index."""
    lexemes = {q: lexeme_of(q) for q in queries}
    words = [x for x in lexemes.values() if x]
    by_lexeme = dict(
        store.query(
            "SELECT x, (SELECT count(*) FROM postings p WHERE p.col = ? AND p.lexeme = x)"
            " FROM unnest(?::text[]) AS x",
            (COLUMNS[column], words),
        )
        if words
        else []
    )
    found = [(q, by_lexeme[x]) for q, x in lexemes.items() if x]
    others = [q for q, x in lexemes.items() if not x]
    if others:
        found += store.query(
            "SELECT q, matching_count(?, q::tsquery, NULL) FROM unnest(?::text[]) AS q",
            (column, others),
        )
    return found


def _counted_beside(beside: Store, column: str, queries: list[str]) -> list[tuple[Any, ...]]:
    with index_scans(beside):
        return _counted(beside, column, queries)


def idf(units: int, found: int) -> float:
    """FTS5's BM25 IDF, log((N − n + 0.5)/(n + 0.5)), and its floor: a word in most
    units then counts for as little on both backends."""
    return max(math.log((units - found + 0.5) / (found + 0.5)), 1e-6)


def keyword_search(
    store: Store, query: Query, filters: Filters, limit: int, beside: Store | None = None
) -> list[UnitMatch]:
    """Best `limit` units by fused rank (best first); empty when nothing is searchable.

    With `beside`, a second connection, the lists after the first are ranked on it at
    the same time: each list reads and ranks every unit that holds a query word, so two
    lists one after the other took the sum of their times where the server has a core
    for each."""
    store.__dict__.pop("_document_counts", None)  # counted again for each search
    if query.raw:
        raw = raw_query(store, query.text)
        if raw is None:
            return []
        terms = [(raw, 1.0)]
    else:
        terms = _weighted_terms(store, list(query.content), beside)
        if not terms:
            return []
    lists: list[tuple[float, Ranked]] = []
    if filters.speaker:
        weight = tsquery.SPEAKER_WEIGHT[filters.speaker]
        only = [(tsquery.restrict(t, weight), w) for t, w in terms]
        lists.append((1.0, Ranked("words", CONVERSATION_WEIGHTS, only)))
    else:
        lists.append((1.0, Ranked("words", CONVERSATION_WEIGHTS, terms)))
        lists.append((TOOLS_WEIGHT, Ranked("tool_words", TOOLS_WEIGHTS, terms)))
    grams = None if query.raw else _cjk_terms(store, query.cjk_runs, filters, beside)
    if grams:
        lists.append((1.0, Ranked("cjk_grams", CONVERSATION_WEIGHTS, grams)))
    first, *rest = lists
    if beside is None or not rest:
        found = [_ranked(store, ranked, filters, limit) for _, ranked in lists]
    else:
        with ThreadPoolExecutor(1) as pool:
            later = pool.submit(_ranked_beside, beside, [r for _, r in rest], filters, limit)
            found = [_ranked(store, first[1], filters, limit), *later.result()]
    return fuse([(weight, f) for (weight, _), f in zip(lists, found, strict=True)], limit)


def _ranked_beside(
    beside: Store, lists: list[Ranked], filters: Filters, limit: int
) -> list[list[UnitMatch]]:
    with index_scans(beside):
        return [_ranked(beside, ranked, filters, limit) for ranked in lists]


def _weighted_terms(
    store: Store, words: list[str], beside: Store | None = None
) -> list[tuple[str, float]]:
    """Each content word's phrase with its inverse document frequency; the words most
    units hold are dropped when rarer ones remain (they change the order of nothing and
    make the server rank most of the table)."""
    found = phrases(store, words)
    if not found:
        return []
    units = unit_count(store)
    by_phrase = document_counts(store, "words", list(found.values()), beside)
    counts = {w: by_phrase[p] for w, p in found.items()}
    common = common_above(units)
    kept = [w for w in found if counts[w] <= common] if len(found) > 1 else list(found)
    return [(found[w], idf(units, counts[w])) for w in kept or list(found)]


def _cjk_terms(
    store: Store, runs: tuple[str, ...], filters: Filters, beside: Store | None = None
) -> list[tuple[str, float]] | None:
    grams = [tsquery.cjk_query([g]) for run in runs for g in cjk.bigrams(run)]
    kept = [g for g in dict.fromkeys(grams) if g]
    if not kept:
        return None
    units = unit_count(store)
    counts = document_counts(store, "cjk_grams", kept, beside)
    terms = [(g, idf(units, counts[g])) for g in kept]
    if filters.speaker:
        weight = tsquery.SPEAKER_WEIGHT[filters.speaker]
        terms = [(tsquery.restrict(t, weight), w) for t, w in terms]
    return terms


def raw_query(store: Store, text: str) -> str | None:
    """The server's reading of a query in its own syntax (`deploy & !staging`)."""
    if not text.strip():
        return None
    try:
        with store.transaction() if store.in_transaction else nullcontext():
            parsed = store.scalar(f"SELECT to_tsquery('{tsquery.CONFIG}', ?)::text", (text,))
    except (errors.SyntaxError, errors.DataException) as exc:
        raise KeywordQueryError(str(exc).strip().splitlines()[0]) from exc
    return parsed or None


#: A term that is one lexeme, as `phraseto_tsquery` writes it: what `postings` holds.
_ONE_LEXEME = re.compile(r"^'([^'\\]+)'$")


def lexeme_of(term: str) -> str | None:
    """The lexeme a term is, when it is one (not a phrase, a prefix or a weight)."""
    match = _ONE_LEXEME.match(term)
    return match.group(1) if match else None


def _ranked(store: Store, ranked: Ranked, filters: Filters, limit: int) -> list[UnitMatch]:
    """One list's best units (`_ranked_in_units` says how they are scored): its single
    words from their rows in `postings` (schema step 11) when no filter applies, else
    every term from the units' `tsvector`s."""
    if any(lexeme_of(t) for t, _ in ranked.terms) and all(
        v is None for v in filter_values(filters)
    ):
        return _ranked_by_postings(store, ranked, limit)
    return _ranked_in_units(store, ranked, filters, limit)


def _ranked_by_postings(store: Store, ranked: Ranked, limit: int) -> list[UnitMatch]:
    """The same scores as `keyword_ranked`, term by term (BM25 sums over terms): a
    single word's from its rows in `postings` (each row's weighted count is the
    `ts_rank_cd` of that one word), read from the index led by the reader's audiences,
    so the units holding a query word are never read; a phrase's (`utf-8`, an address)
    from `keyword_ranked`, which reads only the units holding all of its words."""
    single = [(x, w) for x, w in ((lexeme_of(t), w) for t, w in ranked.terms) if x]
    phrased = [(t, w) for t, w in ranked.terms if not lexeme_of(t)]
    average = average_length(store, ranked.column)
    rows = store.query(
        "SELECT u.id, u.session_id, u.kind, u.ordinal, t.score FROM ("
        " SELECT x.unit_id, sum(x.score) AS score FROM ("
        "  SELECT p.unit_id,"
        "   i.idf * p.tf * 2.2 / (p.tf + 1.2 * (0.25 + 0.75 * p.len / ?)) AS score"
        "  FROM unnest(?::text[], ?::float8[]) AS i(lexeme, idf)"
        "  JOIN postings p ON p.col = ? AND p.lexeme = i.lexeme"
        "  UNION ALL SELECT k.id, k.score FROM keyword_ranked("
        "   ?, ?::float4[], ?, ?::text[], ?::float8[], ?, NULL, NULL, NULL, NULL, NULL, NULL,"
        "   NULL) k"
        " ) x GROUP BY x.unit_id ORDER BY 2 DESC, 1 LIMIT ?) t"
        " JOIN units u ON u.id = t.unit_id ORDER BY t.score DESC, u.id",
        [
            average,
            [x for x, _ in single],
            [w for _, w in single],
            COLUMNS[ranked.column],
            ranked.column,
            ranked.weights,
            TF_SCALE[ranked.weights],
            [t for t, _ in phrased],
            [w for _, w in phrased],
            average,
            limit,
        ],
    )
    return [UnitMatch(r[0], r[1], r[2], r[3], -float(r[4]), ranked.column) for r in rows]


def _ranked_in_units(store: Store, ranked: Ranked, filters: Filters, limit: int) -> list[UnitMatch]:
    """One list's best units by BM25 as FTS5 computes it: per word, idf × f(k1+1)/(f +
    k1·K), f the word's occurrences in the unit weighted by field (4 title, 2 prompt, 1
    reply) and K the unit's length against the average (k1 = 1.2, b = 0.75). For a one-word query
    with normalisation 0, `ts_rank_cd` is exactly the sum of the weights of the word's
    positions, so f is it, scaled back from 0..1 (`ts_rank`, which saturates with
    repetitions, made a unit saying a word three times barely beat one saying it once,
    and its length penalty outweighed both). `keyword_ranked` (schema step 8) runs it as
    the schema's owner, through the GIN index, over the units the caller may read: each
    unit's `tsvector` read from TOAST once (`|| ''` makes the in-memory copy every f
    then reads: 578k buffers instead of 158k for 43k units), each inner query kept whole
    by `OFFSET 0` (pulled up, its expressions would be computed again)."""
    rows = store.query(
        "SELECT * FROM keyword_ranked(?, ?::float4[], ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            ranked.column,
            ranked.weights,
            TF_SCALE[ranked.weights],
            [t for t, _ in ranked.terms],
            [w for _, w in ranked.terms],
            average_length(store, ranked.column),
            limit,
            *filter_values(filters),
        ],
    )
    return [UnitMatch(r[0], r[1], r[2], r[3], -float(r[4]), ranked.column) for r in rows]


#: Units the average length is taken over: the most recent, enough to be stable.
_LENGTH_SAMPLE = 2000


def average_length(store: Store, column: str) -> float:
    """The average lexeme count of `column` over recent units, kept per connection
    until the number of units moves by a tenth (a full scan would read every row)."""
    units = unit_count(store)
    cache: dict[str, tuple[int, float]] = store.__dict__.setdefault("_average_lengths", {})
    seen = cache.get(column)
    if seen is None or abs(units - seen[0]) > seen[0] / 10:
        average = store.scalar(
            f"SELECT avg(length({column})) FROM (SELECT {column} FROM units"
            f" WHERE length({column}) > 0 ORDER BY id DESC LIMIT {_LENGTH_SAMPLE}) t"
        )
        seen = cache[column] = (units, max(float(average or 1.0), 1.0))
    return seen[1]
