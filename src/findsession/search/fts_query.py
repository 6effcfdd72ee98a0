"""Turn what a person typed into an FTS5 query that can never raise a syntax error.

FTS5 gives meaning to `-`, `"`, `*`, `(`, `:`, `AND`, `OR`, `NOT` and `NEAR`; free text
from a person or an agent must not. Each token is quoted as a phrase (inside which only
the tokenizer acts) and the phrases are OR-ed, so BM25 ranks units that match more of
them higher without demanding that all match.
"""

from __future__ import annotations

import re

from findsession import cjk

# Words so common that matching them says nothing; dropped unless nothing else remains.
_STOPWORDS = frozenset(
    [
        "a",
        "about",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "been",
        "being",
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
_HEX = re.compile(r"^[0-9a-f]{7,40}$", re.IGNORECASE)
_EDGE = re.compile(r"^[^\w/.~-]+|[^\w/]+$")
_CAMEL = re.compile(r"[a-z][A-Z]")
_JOINED = re.compile(r"\w[_./:\\-]+\w")


def tokens(query: str) -> list[str]:
    """Whitespace-separated pieces that contain at least one letter or digit.

    A NUL separates too: FTS5 reads it as the end of a quoted phrase.
    """
    return [t for t in query.replace("\x00", " ").split() if _WORD.search(t)]


def content_tokens(query: str) -> list[str]:
    """The query's tokens without stopwords (all of them if nothing else remains)."""
    parts = tokens(query)
    return [t for t in parts if t.lower() not in _STOPWORDS] or parts


def free_text(query: str) -> str | None:
    """A safe FTS5 expression for `query`, or None when it has nothing to search for."""
    content = content_tokens(query)
    if not content:
        return None
    seen: list[str] = []
    for token in content:
        quoted = quote(token)
        if quoted not in seen:
            seen.append(quoted)
    return " OR ".join(seen)


def quote(token: str) -> str:
    """One token as an FTS5 phrase; a commit-hash-like token also matches as a prefix.

    People type the 7-character short hash of a commit that output shows in full.
    """
    phrase = '"' + token.replace('"', '""').replace("\x00", " ") + '"'
    return phrase + " *" if _HEX.match(token) and any(c.isdigit() for c in token) else phrase


def exact_tokens(query: str) -> list[str]:
    """Tokens that look like identifiers, which a person means verbatim.

    A path or file name, a snake_case or camelCase name, a dotted or kebab name, an
    error code or a commit hash: letters mixed with digits or joined by `_ . / : -`.
    """
    found = []
    for raw in tokens(query):
        token = _EDGE.sub("", raw)
        if len(token) < 4:
            continue
        has_digit = any(c.isdigit() for c in token)
        has_alpha = any(c.isalpha() for c in token)
        if (
            _CAMEL.search(token) or _JOINED.search(token) or (has_digit and has_alpha)
        ) and token not in found:
            found.append(token)
    return found


def restrict_columns(expression: str, columns: list[str]) -> str:
    """Limit an expression to some columns (FTS5 `{a b} : (...)`)."""
    return "{" + " ".join(columns) + "} : (" + expression + ")"


def cjk_expression(query: str) -> str | None:
    """The query's CJK runs as OR-ed bigram phrases for `cjk_fts`; None without CJK.

    A single character matches as a prefix of the bigrams that start with it.
    """
    parts = []
    for run in cjk.runs(query):
        if len(run) == 1:
            parts.append(f'"{run}" *')
        else:
            parts += [f'"{gram}"' for gram in cjk.bigrams(run)]
    return " OR ".join(dict.fromkeys(parts)) or None
