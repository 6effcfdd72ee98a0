"""A parsed query as FTS5 expressions that can never raise a syntax error.

FTS5 gives meaning to `-`, `"`, `*`, `(`, `:`, `AND`, `OR`, `NOT` and `NEAR`; free text
from a person or an agent must not. Each word is quoted as a phrase (inside which only
the tokenizer acts) and the phrases are OR-ed, so BM25 ranks units that match more of
them higher without demanding that all match.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from findsession import cjk
from findsession.query import Query

_HEX = re.compile(r"^[0-9a-f]{7,40}$", re.IGNORECASE)


def free_text(words: Iterable[str]) -> str | None:
    """The words OR-ed as quoted phrases, or None when there are none."""
    return " OR ".join(dict.fromkeys(quote(w) for w in words)) or None


def expression(query: Query) -> str | None:
    """The query's FTS5 expression: its own text when raw, else its content words."""
    if query.raw:
        return query.text.strip() or None
    return free_text(query.content)


def quote(token: str) -> str:
    """One token as an FTS5 phrase; a commit-hash-like token also matches as a prefix.

    People type the 7-character short hash of a commit that output shows in full.
    """
    phrase = '"' + token.replace('"', '""').replace("\x00", " ") + '"'
    return phrase + " *" if _HEX.match(token) and any(c.isdigit() for c in token) else phrase


def all_of(tokens: Iterable[str]) -> str:
    """Every token, as quoted phrases that must all match."""
    return " AND ".join(quote(t) for t in tokens)


def restrict_columns(expression: str, columns: list[str]) -> str:
    """Limit an expression to some columns (FTS5 `{a b} : (...)`)."""
    return "{" + " ".join(columns) + "} : (" + expression + ")"


def cjk_expression(runs: Iterable[str]) -> str | None:
    """CJK runs as OR-ed bigram phrases for `cjk_fts`; None without any.

    A single character matches as a prefix of the bigrams that start with it.
    """
    terms = cjk.query_terms(runs)
    return " OR ".join(f'"{t}" *' if prefix else f'"{t}"' for t, prefix in terms) or None
