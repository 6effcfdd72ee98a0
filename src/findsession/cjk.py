"""Character bigrams for Chinese, Japanese and Korean text, for the keyword index.

FTS5's `unicode61` tokenizer treats a run of Han characters as one token, so a Chinese
query matches almost nothing. Overlapping bigrams are the standard fix for CJK search
without a dictionary: a query's bigrams match the bigrams of any text containing it.
Only the CJK runs of a text are kept; everything else is already in the main indexes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

#: Kana, Han (with extensions and compatibility forms) and Hangul, as a regex class body.
CJK_CHARS = (
    "\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
    "\uac00-\ud7af\u1100-\u11ff\u3130-\u318f\U00020000-\U0002ffff"
)
_CJK_RUN = re.compile(f"[{CJK_CHARS}]+")


def runs(text: str) -> list[str]:
    """Maximal runs of CJK characters, in order."""
    return _CJK_RUN.findall(text)


def bigrams(run: str) -> list[str]:
    """Overlapping character pairs of one run; a one-character run is itself."""
    if len(run) < 2:
        return [run] if run else []
    return [run[i : i + 2] for i in range(len(run) - 1)]


def query_terms(query_runs: Iterable[str]) -> list[tuple[str, bool]]:
    """What a query's CJK runs look for in the bigram index, each once: the bigrams of a
    run, or a single character as a prefix of the bigrams that start with it (`True`).
    Each keyword index writes them in its own syntax."""
    terms: list[tuple[str, bool]] = []
    for run in query_runs:
        terms += [(run, True)] if len(run) == 1 else [(g, False) for g in bigrams(run)]
    return list(dict.fromkeys(terms))


def index_text(text: str) -> str:
    """The space-separated bigrams of every CJK run in `text` ('' when there are none)."""
    return " ".join(" ".join(bigrams(r)) for r in runs(text))
