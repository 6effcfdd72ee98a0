"""Turn what a person typed into an FTS5 query that can never raise a syntax error.

FTS5 gives meaning to `-`, `"`, `*`, `(`, `:`, `AND`, `OR`, `NOT` and `NEAR`; free text
from a person or an agent must not. Each token is quoted as a phrase (inside which only
the tokenizer acts) and the phrases are OR-ed, so BM25 ranks units that match more of
them higher without demanding that all match.
"""

from __future__ import annotations

import re

# Words so common that matching them says nothing; dropped unless nothing else remains.
_STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "did",
        "do",
        "does",
        "for",
        "from",
        "had",
        "has",
        "have",
        "how",
        "i",
        "in",
        "into",
        "is",
        "it",
        "its",
        "me",
        "my",
        "of",
        "on",
        "or",
        "our",
        "so",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "these",
        "this",
        "those",
        "to",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "will",
        "with",
        "you",
        "your",
    ]
)
_WORD = re.compile(r"\w", re.UNICODE)


def tokens(query: str) -> list[str]:
    """Whitespace-separated pieces that contain at least one letter or digit."""
    return [t for t in query.split() if _WORD.search(t)]


def free_text(query: str) -> str | None:
    """A safe FTS5 expression for `query`, or None when it has nothing to search for."""
    parts = tokens(query)
    content = [t for t in parts if t.lower() not in _STOPWORDS] or parts
    if not content:
        return None
    seen: list[str] = []
    for token in content:
        quoted = '"' + token.replace('"', '""') + '"'
        if quoted not in seen:
            seen.append(quoted)
    return " OR ".join(seen)


def restrict_columns(expression: str, columns: list[str]) -> str:
    """Limit an expression to some columns (FTS5 `{a b} : (...)`)."""
    return "{" + " ".join(columns) + "} : (" + expression + ")"
