"""BM25 keyword retrieval over the FTS5 indexes, with filters applied inside each query.

Conversation text (title, prompt, reply) and tool text (thinking, tool inputs and
outputs) are indexed apart and ranked apart, then fused by rank with tool matches at a
lower weight. FTS5's BM25 saturates term frequency over a whole row, so one table would
let a long tool output outrank the line a person typed; two lists cannot.
"""

from __future__ import annotations

from dataclasses import dataclass

import apsw

from findsession.search import fts_query
from findsession.search.filters import SearchOptions
from findsession.storage.sqlite.connection import Connection as Store
from findsession.storage.sqlite.filters import unit_filter_sql

# Column weights inside the conversation index: title, prompt, reply.
CONVERSATION_WEIGHTS = (4.0, 2.0, 1.0)
#: Rank-fusion weight of the tool-text list against the conversation list (1.0).
TOOLS_WEIGHT = 0.5
RRF_K = 60
MARK_START, MARK_END = "\x02", "\x03"
_SNIPPET_TOKENS = 28
_SPEAKER_COLUMN = {"user": "prompt", "assistant": "reply"}


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
    #: The table whose list found it first (its snippet is cut from that table).
    table: str
    score: float = 0.0


def keyword_search(store: Store, query: str, opts: SearchOptions, limit: int) -> list[UnitMatch]:
    """Best `limit` units by fused BM25 rank (best first); empty when nothing is searchable."""
    expression = query.strip() if opts.raw else fts_query.free_text(query)
    if not expression:
        return []
    if not opts.raw:
        expression = fts_query.free_text(" ".join(_specific_words(store, query))) or expression
    conversation = expression
    if opts.speaker:
        conversation = fts_query.restrict_columns(expression, [_SPEAKER_COLUMN[opts.speaker]])
    weights = ", ".join(str(w) for w in CONVERSATION_WEIGHTS)
    searches = [(1.0, "units_fts", weights, conversation)]
    if opts.speaker is None:
        searches.append((TOOLS_WEIGHT, "tools_fts", "1.0", expression))
    lists = []
    rejected: KeywordQueryError | None = None
    for weight, table, table_weights, query_text in searches:
        try:
            lists.append((weight, _ranked(store, table, table_weights, query_text, opts, limit)))
        except KeywordQueryError as exc:
            # Only raw FTS5 syntax gets here. A column filter names the columns of one
            # index (`title:` the conversation's, `tools:` the tool text's): the index
            # without them has nothing to match, which is not an error of the query.
            rejected = rejected or exc
    if not lists and rejected is not None:
        raise rejected
    grams = None if opts.raw else fts_query.cjk_expression(query)
    if grams:
        if opts.speaker:
            grams = fts_query.restrict_columns(grams, [_SPEAKER_COLUMN[opts.speaker]])
        cjk_weights = ", ".join(str(w) for w in (*CONVERSATION_WEIGHTS, TOOLS_WEIGHT))
        lists.append((1.0, _ranked(store, "cjk_fts", cjk_weights, grams, opts, limit)))
    fused: dict[int, UnitMatch] = {}
    for weight, matches in lists:
        for rank, match in enumerate(matches, 1):
            score = weight / (RRF_K + rank)
            seen = fused.get(match.unit_id)
            if seen is None:
                fused[match.unit_id] = UnitMatch(*_fields(match), score=score)
            else:  # keep the first list's table: the conversation's, for the snippet
                fused[match.unit_id] = UnitMatch(*_fields(seen), score=seen.score + score)
    return sorted(fused.values(), key=lambda m: -m.score)[:limit]


#: A word in more than this share of units, and in more than `COMMON_MIN_UNITS`, is
#: dropped from a query that has rarer ones. Small indexes are fast anyway, and in them
#: every word looks common.
COMMON_SHARE = 0.2
COMMON_MIN_UNITS = 5000


def _specific_words(store: Store, query: str) -> list[str]:
    """The query's content words minus those most units contain, if any word remains.

    FTS5 scores every row a word matches: a word in 60% of a million units cost half a
    second and, with an inverse document frequency near zero, changed nothing.
    """
    words = fts_query.content_tokens(query)
    if len(words) < 2:
        return words
    units = store.scalar("SELECT max(id) FROM units") or 0
    if units <= COMMON_MIN_UNITS:  # no word can be that common: skip the lookups
        return words
    tokenizer = store.db.fts5_tokenizer("porter", ["unicode61"])
    kept = []
    for word in words:
        terms = [t[2] for t in tokenizer(word.encode(), apsw.FTS5_TOKENIZE_QUERY, None)]
        counts = [
            store.scalar("SELECT doc FROM units_vocab WHERE term = ?", (term,)) or 0
            for term in terms
        ]
        if not counts or min(counts) <= max(COMMON_SHARE * units, COMMON_MIN_UNITS):
            kept.append(word)
    return kept or words


def snippet(store: Store, query: str, opts: SearchOptions, match: UnitMatch) -> str:
    """The matched words of one unit in context, with highlight marks; '' for CJK bigrams.

    Cut only for the units shown: computing snippets for every ranked row made a
    keyword query 10-50x slower.
    """
    if match.table == "cjk_fts":  # contentless: no text to cut a snippet from
        return ""
    expression = query.strip() if opts.raw else fts_query.free_text(query)
    if not expression:
        return ""
    if opts.speaker and match.table == "units_fts":
        expression = fts_query.restrict_columns(expression, [_SPEAKER_COLUMN[opts.speaker]])
    sql = (
        f"SELECT snippet({match.table}, -1, '{MARK_START}', '{MARK_END}', '…',"
        f" {_SNIPPET_TOKENS}) FROM {match.table} WHERE {match.table} MATCH ? AND rowid = ?"
    )
    try:
        return store.scalar(sql, (expression, match.unit_id)) or ""
    except apsw.SQLError:
        return ""


def _fields(m: UnitMatch) -> tuple[int, str, str, int, float, str]:
    return (m.unit_id, m.session_id, m.kind, m.ordinal, m.bm25, m.table)


def _ranked(
    store: Store, table: str, weights: str, expression: str, opts: SearchOptions, limit: int
) -> list[UnitMatch]:
    where, params = unit_filter_sql(opts)
    if params:  # filters need each match's unit and session before the top-k
        sql = (
            f"SELECT u.id, u.session_id, u.kind, u.ordinal, bm25({table}, {weights}) AS score,"
            f" '{table}'"
            f" FROM {table} JOIN units u ON u.id = {table}.rowid"
            " JOIN sessions s ON s.id = u.session_id"
            f" WHERE {table} MATCH ? AND {where} ORDER BY score LIMIT ?"
        )
    else:  # rank inside FTS5 first; joining 18k matches before the top-k cost 8x more
        sql = (
            f"SELECT u.id, u.session_id, u.kind, u.ordinal, f.score, '{table}'"
            f" FROM (SELECT rowid, bm25({table}, {weights}) AS score FROM {table}"
            f" WHERE {table} MATCH ? ORDER BY score LIMIT ?) f"
            " JOIN units u ON u.id = f.rowid ORDER BY f.score"
        )
        params = []
    try:
        rows = store.query(sql, [expression, *params, limit] if params else [expression, limit])
    except apsw.SQLError as exc:
        raise KeywordQueryError(str(exc)) from exc
    return [UnitMatch(r[0], r[1], r[2], r[3], r[4], r[5]) for r in rows]


def unit_holds(store: Store, word: str, unit_id: int) -> bool:
    """Whether one unit matches `word` in any keyword index (CJK through its bigrams)."""
    grams = fts_query.cjk_expression(word)
    checks = [("units_fts", fts_query.quote(word)), ("tools_fts", fts_query.quote(word))]
    if grams:
        checks.append(("cjk_fts", grams))
    for table, expression in checks:
        try:
            if store.scalar(
                f"SELECT EXISTS (SELECT 1 FROM {table} WHERE {table} MATCH ? AND rowid = ?)",
                (expression, unit_id),
            ):
                return True
        except apsw.SQLError:  # a token FTS5 cannot parse holds nothing
            continue
    return False
