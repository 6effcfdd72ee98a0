"""A parsed query as PostgreSQL `tsquery` text that can never raise a syntax error.

Each word becomes the phrase of its lexemes (`normalize_ledger_rows` is three lexemes
in a row, as FTS5 makes it three tokens of one quoted phrase), produced by the server's
own configuration so a query is cut and stemmed exactly as the text was; the phrases
are then OR-ed here, so units that match more of them rank higher without all having to
match. CJK runs become OR-ed bigram lexemes for the bigram column, given as they are.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from findsession import cjk

#: Text search configuration of the keyword columns (see `schema`).
CONFIG = "findsession.words"
#: The cut the columns make before the parser sees a field: letter-and-digit runs only.
CLEAN_SQL = "regexp_replace({}, '[^[:alnum:]]+', ' ', 'g')"
_HEX = re.compile(r"^[0-9a-f]{7,40}$", re.IGNORECASE)
_LEXEME = re.compile(r"'(?:[^']|'')*'(?::\*)?")
#: Tsquery weights of the conversation column's fields, for a speaker filter.
SPEAKER_WEIGHT = {"user": "B", "assistant": "C"}


def any_of(phrases: Iterable[str]) -> str | None:
    """Phrases OR-ed, each once; None when there are none."""
    kept = list(dict.fromkeys(p for p in phrases if p))
    return " | ".join(f"( {p} )" for p in kept) or None


def all_of(phrases: Iterable[str]) -> str | None:
    """Phrases AND-ed; None when there are none."""
    kept = list(dict.fromkeys(p for p in phrases if p))
    return " & ".join(f"( {p} )" for p in kept) or None


def as_prefix(word: str, phrase: str) -> str:
    """A commit-hash-like word also matches as a prefix: people type 7 characters of a
    hash that output shows in full."""
    if _HEX.match(word) and any(c.isdigit() for c in word) and phrase.count("'") == 2:
        return phrase + ":*"
    return phrase


def restrict(tsquery: str, weight: str) -> str:
    """Every lexeme of `tsquery` limited to one weight (one field of a column)."""
    return _LEXEME.sub(lambda m: _weighted(m.group(0), weight), tsquery)


def _weighted(lexeme: str, weight: str) -> str:
    if lexeme.endswith(":*"):
        return lexeme[:-2] + ":*" + weight
    return lexeme + ":" + weight


def cjk_query(runs: Iterable[str]) -> str | None:
    """CJK runs as OR-ed bigram lexemes; a single character matches as a prefix."""
    terms = cjk.query_terms(runs)
    return " | ".join(f"'{t}':*" if prefix else f"'{t}'" for t, prefix in terms) or None
