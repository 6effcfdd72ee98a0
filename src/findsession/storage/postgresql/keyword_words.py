"""What the search layer asks of single words and units: snippets, whether a unit holds
a word, how rare a word is, and units holding identifiers verbatim."""

from __future__ import annotations

import math

from findsession import cjk
from findsession.query import Query
from findsession.storage.base import MARK_END, MARK_START, Filters, KeywordQueryError, UnitMatch
from findsession.storage.postgresql import keyword_index, tsquery
from findsession.storage.postgresql.connection import Connection
from findsession.storage.postgresql.schema import FIELD_CHARS
from findsession.storage.sql.filters import unit_filter_sql

_SNIPPET = (
    f"StartSel={MARK_START}, StopSel={MARK_END}, MaxWords=28, MinWords=12, ShortWord=1,"
    " MaxFragments=1"
)
#: The fields a snippet may be cut from, per column, in the order they are tried.
_FIELDS = {"words": ("prompt", "reply", "title"), "tool_words": ("tools",)}
_SPEAKER_FIELD = {"user": "prompt", "assistant": "reply"}


def _holds(field: str) -> str:
    clean = tsquery.CLEAN_SQL.format(f"left({field}, {FIELD_CHARS})")
    return f"to_tsvector('{tsquery.CONFIG}', {clean}) @@ ?::tsquery"


def _any_column(store: Connection, word: str) -> tuple[str, list[str]]:
    """The condition under which a unit holds `word` in any keyword column."""
    found = keyword_index.phrases(store, [word])
    grams = tsquery.cjk_query(cjk.runs(word))
    checks, params = [], []
    if word in found:
        checks += ["u.words @@ ?::tsquery", "u.tool_words @@ ?::tsquery"]
        params += [found[word], found[word]]
    if grams:
        checks.append("u.cjk_grams @@ ?::tsquery")
        params.append(grams)
    return " OR ".join(checks) or "false", params


class KeywordMixin(Connection):
    """The store's keyword index (see findsession.storage.base.KeywordIndex)."""

    def keyword_search(self, query: Query, filters: Filters, limit: int) -> list[UnitMatch]:
        # Inside a transaction of its own, a second connection would not see its writes.
        beside = None if self.in_transaction else self.beside()
        with keyword_index.index_scans(self):
            return keyword_index.keyword_search(self, query, filters, limit, beside)

    def keyword_snippet(self, query: Query, filters: Filters, match: UnitMatch) -> str:
        """The matched words of the unit's first field that holds them; '' for a bigram
        match (its words are pairs of characters, not the text's)."""
        fields = _FIELDS.get(match.table)
        if not fields:
            return ""
        if query.raw:
            try:
                expression = keyword_index.raw_query(self, query.text)
            except KeywordQueryError:
                return ""
        else:
            expression = tsquery.any_of(keyword_index.phrases(self, list(query.content)).values())
        if not expression:
            return ""
        if filters.speaker and match.table == "words":
            fields = (_SPEAKER_FIELD[filters.speaker],)
        cases = " ".join(
            f"WHEN {_holds(f)} THEN ts_headline('{tsquery.CONFIG}',"
            f" left({f}, {FIELD_CHARS}), ?::tsquery, ?)"
            for f in fields
        )
        text = self.scalar(
            f"SELECT CASE {cases} ELSE '' END FROM units WHERE id = ?",
            [*[expression, expression, _SNIPPET] * len(fields), match.unit_id],
        )
        return text if text and MARK_START in text else ""

    def unit_holds(self, word: str, unit_id: int) -> bool:
        condition, params = _any_column(self, word)
        return bool(
            self.scalar(
                f"SELECT EXISTS (SELECT 1 FROM units u WHERE u.id = ? AND ({condition}))",
                [unit_id, *params],
            )
        )

    def words_held(self, words: list[str], unit_ids: list[int]) -> set[str]:
        if not unit_ids:
            return set()
        held = set()
        for word in words:
            condition, params = _any_column(self, word)
            if self.scalar(
                f"SELECT EXISTS (SELECT 1 FROM units u WHERE u.id = ANY(?) AND ({condition}))",
                [list(unit_ids), *params],
            ):
                held.add(word)
        return held

    def word_rarity(self, words: list[str]) -> dict[str, float]:
        """log((N+1)/(n+1)) with n the units holding the word (a CJK word: its rarest
        bigram, from the bigram column)."""
        with keyword_index.index_scans(self):
            return self._word_rarity(words)

    def _word_rarity(self, words: list[str]) -> dict[str, float]:
        units = keyword_index.unit_count(self)
        found = keyword_index.phrases(self, [w for w in words if not cjk.runs(w)])
        grams = {
            word: [tsquery.cjk_query([g]) or "" for run in cjk.runs(word) for g in cjk.bigrams(run)]
            for word in words
        }
        by_gram = keyword_index.document_counts(
            self, "cjk_grams", [g for each in grams.values() for g in each]
        )
        by_phrase = keyword_index.document_counts(self, "words", list(found.values()))
        rarity = {}
        for word in words:
            if cjk.runs(word):
                counts = [by_gram[g] for g in grams[word]]
            else:
                phrase = found.get(word)
                counts = [by_phrase[phrase]] if phrase else []
            rarity[word] = math.log((units + 1) / ((min(counts) if counts else 0) + 1))
        return rarity

    def units_with_all(self, tokens: list[str], filters: Filters, limit: int) -> set[int]:
        """Units whose text holds every token verbatim: the keyword columns find the
        candidates (they split `normalize_ledger_rows` into words prose holds too), the
        text itself decides."""
        if not tokens:
            return set()
        found = keyword_index.phrases(self, tokens)
        every = tsquery.all_of(found.values())
        if every is None:
            return set()
        columns = ["words"] if filters.speaker else ["words", "tool_words"]
        if filters.speaker:
            every = tsquery.restrict(every, tsquery.SPEAKER_WEIGHT[filters.speaker])
        # The candidates through the GIN indexes (`matching_units`, schema step 8), then
        # read by id under the policies.
        matching = " UNION ".join("SELECT id FROM matching_units(?, ?, NULL)" for _ in columns)
        text = "lower(u.title || ' ' || u.prompt || ' ' || u.reply || ' ' || u.tools)"
        verbatim = " AND ".join(f"strpos({text}, ?) > 0" for _ in tokens)
        where, filter_params = unit_filter_sql(self, filters)
        with keyword_index.index_scans(self):
            rows = self.query(
                "SELECT u.id FROM units u JOIN sessions s ON s.id = u.session_id"
                f" WHERE u.id IN ({matching}) AND {verbatim} AND {where} LIMIT ?",
                [
                    *(v for c in columns for v in (c, every)),
                    *(t.lower() for t in tokens),
                    *filter_params,
                    limit,
                ],
            )
        return {r[0] for r in rows}
