"""BM25 keyword retrieval over the FTS5 indexes, with filters applied inside each query.

Conversation text (title, prompt, reply) and tool text (thinking, tool inputs and
outputs) are indexed apart and ranked apart, then fused by rank with tool matches at a
lower weight. FTS5's BM25 saturates term frequency over a whole row, so one table would
let a long tool output outrank the line a person typed; two lists cannot.
"""

from __future__ import annotations

import math

import apsw

from findsession import cjk
from findsession.query import Query
from findsession.storage.base import (
    MARK_END,
    MARK_START,
    RRF_K,
    Filters,
    KeywordQueryError,
    UnitMatch,
)
from findsession.storage.sqlite import fts_query
from findsession.storage.sqlite.connection import Connection as Store
from findsession.storage.sqlite.filters import unit_filter_sql
from findsession.storage.sqlite.units import UnitsMixin

# Column weights inside the conversation index: title, prompt, reply.
CONVERSATION_WEIGHTS = (4.0, 2.0, 1.0)
#: Rank-fusion weight of the tool-text list against the conversation list (1.0).
TOOLS_WEIGHT = 0.5
_SNIPPET_TOKENS = 28
_SPEAKER_COLUMN = {"user": "prompt", "assistant": "reply"}


def keyword_search(store: Store, query: Query, filters: Filters, limit: int) -> list[UnitMatch]:
    """Best `limit` units by fused BM25 rank (best first); empty when nothing is searchable."""
    expression = fts_query.expression(query)
    if not expression:
        return []
    if not query.raw:
        expression = fts_query.free_text(_specific_words(store, query)) or expression
    conversation = expression
    if filters.speaker:
        conversation = fts_query.restrict_columns(expression, [_SPEAKER_COLUMN[filters.speaker]])
    weights = ", ".join(str(w) for w in CONVERSATION_WEIGHTS)
    searches = [(1.0, "units_fts", weights, conversation)]
    if filters.speaker is None:
        searches.append((TOOLS_WEIGHT, "tools_fts", "1.0", expression))
    lists = []
    rejected: KeywordQueryError | None = None
    for weight, table, table_weights, query_text in searches:
        try:
            lists.append((weight, _ranked(store, table, table_weights, query_text, filters, limit)))
        except KeywordQueryError as exc:
            # Only raw FTS5 syntax gets here. A column filter names the columns of one
            # index (`title:` the conversation's, `tools:` the tool text's): the index
            # without them has nothing to match, which is not an error of the query.
            rejected = rejected or exc
    if not lists and rejected is not None:
        raise rejected
    grams = None if query.raw else fts_query.cjk_expression(query.cjk_runs)
    if grams:
        if filters.speaker:
            grams = fts_query.restrict_columns(grams, [_SPEAKER_COLUMN[filters.speaker]])
        cjk_weights = ", ".join(str(w) for w in (*CONVERSATION_WEIGHTS, TOOLS_WEIGHT))
        lists.append((1.0, _ranked(store, "cjk_fts", cjk_weights, grams, filters, limit)))
    fused: dict[int, UnitMatch] = {}
    for weight, matches in lists:
        for rank, match in enumerate(matches, 1):
            score = weight / (RRF_K + rank)
            seen = fused.get(match.unit_id)
            if seen is None:
                fused[match.unit_id] = UnitMatch(*_fields(match), score=score, weight=weight)
            else:  # keep the first list's table: the conversation's, for the snippet
                fused[match.unit_id] = UnitMatch(
                    *_fields(seen), score=seen.score + score, weight=seen.weight
                )
    return sorted(fused.values(), key=lambda m: -m.score)[:limit]


#: A word in more than this share of units, and in more than `COMMON_MIN_UNITS`, is
#: dropped from a query that has rarer ones. Small indexes are fast anyway, and in them
#: every word looks common.
COMMON_SHARE = 0.2
COMMON_MIN_UNITS = 5000


def _specific_words(store: Store, query: Query) -> list[str]:
    """The query's content words minus those most units contain, if any word remains.

    FTS5 scores every row a word matches: a word in 60% of a million units cost half a
    second and, with an inverse document frequency near zero, changed nothing.
    """
    words = list(query.content)
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


def snippet(store: Store, query: Query, filters: Filters, match: UnitMatch) -> str:
    """The matched words of one unit in context, with highlight marks; '' for CJK bigrams.

    Cut only for the units shown: computing snippets for every ranked row made a
    keyword query 10-50x slower.
    """
    if match.table == "cjk_fts":  # contentless: no text to cut a snippet from
        return ""
    expression = fts_query.expression(query)
    if not expression:
        return ""
    if filters.speaker and match.table == "units_fts":
        expression = fts_query.restrict_columns(expression, [_SPEAKER_COLUMN[filters.speaker]])
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
    store: Store, table: str, weights: str, expression: str, filters: Filters, limit: int
) -> list[UnitMatch]:
    where, params = unit_filter_sql(filters)
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
    grams = fts_query.cjk_expression(cjk.runs(word))
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


def words_held(store: Store, words: list[str], unit_ids: list[int]) -> set[str]:
    """One FTS5 lookup per word and index, limited to the given rows."""
    if not unit_ids:
        return set()
    marks = ",".join("?" * len(unit_ids))
    held = set()
    for word in words:
        grams = fts_query.cjk_expression(cjk.runs(word))
        checks = [("units_fts", fts_query.quote(word)), ("tools_fts", fts_query.quote(word))]
        if grams:
            checks.append(("cjk_fts", grams))
        for table, expression in checks:
            sql = (
                f"SELECT EXISTS (SELECT 1 FROM {table} WHERE {table} MATCH ?"
                f" AND rowid IN ({marks}))"
            )
            try:
                if store.scalar(sql, (expression, *unit_ids)):
                    held.add(word)
                    break
            except apsw.SQLError:  # a token FTS5 cannot parse holds nothing
                continue
    return held


def word_rarity(store: Store, words: list[str]) -> dict[str, float]:
    """Document frequencies from the FTS5 vocabulary (porter stems, as the index holds
    them); a CJK word's from its rarest bigram in the bigram index."""
    units = unit_count(store)
    tokenizer = store.db.fts5_tokenizer("porter", ["unicode61"])
    rarity = {}
    for word in words:
        runs = cjk.runs(word)
        if runs:
            grams = [g for run in runs for g in cjk.bigrams(run)] or runs
            counts = [_cjk_count(store, g) for g in grams]
        else:
            terms = [t[2] for t in tokenizer(word.encode(), apsw.FTS5_TOKENIZE_QUERY, None)]
            counts = [
                store.scalar("SELECT doc FROM units_vocab WHERE term = ?", (term,)) or 0
                for term in terms
            ]
        found = min(counts) if counts else 0
        rarity[word] = math.log((units + 1) / (found + 1))
    return rarity


def unit_count(store: Store) -> int:
    """How many units there are, counted again only when the database changed: a count
    walks every row (3 ms at 240k units), and a resident searcher asks on every search.
    Another connection's commit changes `data_version`, this one's writes its total."""
    if store.db.in_transaction:  # its writes may still be rolled back
        return store.scalar("SELECT count(*) FROM units") or 0
    state = (store.scalar("PRAGMA data_version"), store.db.total_changes())
    if store.unit_count_at is None or store.unit_count_at[0] != state:
        store.unit_count_at = (state, store.scalar("SELECT count(*) FROM units") or 0)
    return store.unit_count_at[1]


def _cjk_count(store: Store, gram: str) -> int:
    try:
        return store.scalar(
            "SELECT count(*) FROM cjk_fts WHERE cjk_fts MATCH ?", (fts_query.quote(gram),)
        )
    except apsw.SQLError:
        return 0


class KeywordMixin(UnitsMixin):
    """The store's keyword index (see findsession.storage.base.KeywordIndex)."""

    def keyword_search(self, query: Query, filters: Filters, limit: int) -> list[UnitMatch]:
        return keyword_search(self, query, filters, limit)

    def keyword_snippet(self, query: Query, filters: Filters, match: UnitMatch) -> str:
        return snippet(self, query, filters, match)

    def unit_holds(self, word: str, unit_id: int) -> bool:
        return unit_holds(self, word, unit_id)

    def words_held(self, words: list[str], unit_ids: list[int]) -> set[str]:
        return words_held(self, words, unit_ids)

    def word_rarity(self, words: list[str]) -> dict[str, float]:
        return word_rarity(self, words)

    def units_with_all(self, tokens: list[str], filters: Filters, limit: int) -> set[int]:
        """FTS5 finds candidates, but it splits `normalize_ledger_rows` into three words
        that prose also holds, so each candidate's text is checked for the token itself."""
        if not tokens:
            return set()
        query = Query.parse(fts_query.all_of(tokens), raw=True)
        try:
            candidates = [m.unit_id for m in keyword_search(self, query, filters, limit)]
        except KeywordQueryError:
            return set()
        return self.units_containing(candidates, tokens) if candidates else set()
