"""A query, parsed once: its words, its identifiers and its CJK runs.

Every part of a search needs the query taken apart the same way: the keyword index
(which words to match), the identifier pin (which tokens a person means verbatim), the
coverage check (how many of the query's words a unit holds) and the snippets (which
words to highlight). Parsing it once keeps them in step.

This module knows no index syntax: turning a `Query` into an FTS5 expression is the
SQLite backend's job (findsession.storage.sqlite.fts_query).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from findsession import cjk

# Words so common that matching them says nothing; dropped unless nothing else remains.
STOPWORDS = frozenset(
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


def _listed(text: str) -> frozenset[str]:
    return frozenset(text.split())


#: Function words of other languages people write to their agents in, dropped like the
#: English ones when the query is in that language (two or more of its words, and more
#: than of any other list): "die" is German's "the" and an English verb.
OTHER_STOPWORDS: dict[str, frozenset[str]] = {
    "fr": _listed(
        "le la les l de des du d un une et en à au aux pour par sur dans avec ce cet cette"
        " ces qui que qu quoi est était a ont on il elle ils elles je j me m mon ma mes tu"
        " te ton ta nous vous leur leurs se s son sa ses pas ne n y plus ou où comme mais"
        " donc si c quand été être avait fait"
    ),
    "es": _listed(
        "el la los las de del un una unos unas y en a al por para con que qué es fue se su"
        " sus lo le les no como pero o más me mi mis yo tu te nos cuando donde esta este"
        " estos estas era hay"
    ),
    "de": _listed(
        "der die das den dem des ein eine einen einem einer und in im zu zum zur mit von"
        " für auf ist war ich du er sie es wir ihr nicht wie was wo bei aus an am auch"
        " dass als hat hatte habe sich noch nur oder aber wenn"
    ),
    "pt": _listed(
        "o a os as de do da dos das um uma e em no na nos nas por para com que é foi se"
        " seu sua não como mas ou mais eu meu minha quando onde isso este esta"
    ),
    "it": _listed(
        "il lo la i gli le di del della dei delle un una e in nel nella per con che è era"
        " si suo sua non come ma o più io mio mia quando dove questo questa"
    ),
}


def stopwords_for(words: tuple[str, ...]) -> frozenset[str]:
    """English stopwords, and another language's when the query is written in it."""
    lowered = [_bare(w) for w in words]
    english = sum(w in STOPWORDS for w in lowered)
    best, hits = None, 1
    for lang, listed in OTHER_STOPWORDS.items():
        n = sum(w in listed for w in lowered)
        if n > hits and n > english:
            best, hits = lang, n
    return STOPWORDS | OTHER_STOPWORDS[best] if best else STOPWORDS


#: A French or Italian elision ("l'agent", "c'était"): the part after it is the word.
_ELIDED = re.compile(r"^[a-z]{1,3}['’](?=\w)")


def _bare(word: str) -> str:
    """A word as the stopword lists hold it: lower case, without an elided article."""
    return _ELIDED.sub("", word.lower().strip(".,;:!?\"()"))

#: At most this many content words, and no CJK run longer than `KEYWORD_CJK_RUN`
#: characters: a query of typed terms (`Query.looks_like_keywords`).
KEYWORD_QUERY_TERMS = 4
KEYWORD_CJK_RUN = 8
_WORD = re.compile(r"\w", re.UNICODE)
_EDGE = re.compile(r"^[^\w/.~-]+|[^\w/]+$")
_CAMEL = re.compile(r"[a-z][A-Z]")
_JOINED = re.compile(r"\w[_./:\\-]+\w")


@dataclass(frozen=True, slots=True)
class Query:
    """What a person or an agent typed, taken apart once for every retrieval."""

    #: The text as typed.
    text: str
    #: Whitespace-separated pieces holding a letter or digit (a NUL separates too: FTS5
    #: reads it as the end of a quoted phrase).
    words: tuple[str, ...]
    #: `words` without stopwords; all of them when nothing else remains.
    content: tuple[str, ...]
    #: Tokens that look like identifiers, which a person means verbatim (see `identifiers`).
    identifiers: tuple[str, ...]
    #: Maximal runs of CJK characters, in order.
    cjk_runs: tuple[str, ...]
    #: True when `text` is the index's own query syntax, passed through untouched.
    raw: bool = False

    @classmethod
    def parse(cls, text: str, raw: bool = False) -> Query:
        words = tuple(t for t in text.replace("\x00", " ").split() if _WORD.search(t))
        stop = stopwords_for(words)
        content = tuple(t for t in words if _bare(t) not in stop) or words
        return cls(text, words, content, identifiers(words), tuple(cjk.runs(text)), raw)

    @property
    def cjk_bigrams(self) -> tuple[str, ...]:
        """The bigrams of every CJK run (a one-character run is itself)."""
        return tuple(g for run in self.cjk_runs for g in cjk.bigrams(run))

    @property
    def coverage_words(self) -> tuple[str, ...]:
        """The content words, with each CJK run counted as its bigrams.

        Chinese has no spaces, so a whole sentence would otherwise count as one word held
        by any unit sharing one two-character word with it.
        """
        found: list[str] = []
        for token in self.content:
            runs = cjk.runs(token)
            rest = "".join(c for c in token if not cjk.runs(c))  # "WebSocket" of "WebSocket服务"
            if any(c.isalnum() for c in rest):  # not the sentence's "，" and "、": no word
                found.append(rest)
            for run in runs:
                found += cjk.bigrams(run) if len(run) > 1 else [run]
        return tuple(dict.fromkeys(found))

    @property
    def looks_like_keywords(self) -> bool:
        """A few terms typed to be found as they are ("roofline.md GMAC/s", "进度栏 香蕉"),
        not a sentence describing a session.

        The two call for different ranking. Typed terms are meant verbatim: the unit
        holding them is the answer, however weakly the vector list agrees. In a sentence,
        a proper noun ("GitHub's") looks like an identifier and three common words make a
        keyword winner; pinning either put wrong sessions first (measured on four real
        people's histories: docs/benchmarks.md, "Ranking that holds on hundreds of
        look-alike sessions"). A CJK sentence has no spaces, so a long CJK run is a
        sentence however few its pieces.
        """
        if len(self.content) > KEYWORD_QUERY_TERMS:
            return False
        return all(len(run) <= KEYWORD_CJK_RUN for run in self.cjk_runs)

    @property
    def is_empty(self) -> bool:
        """Nothing to search for: no letter or digit at all."""
        return not self.words and not self.cjk_runs


def identifiers(words: tuple[str, ...]) -> tuple[str, ...]:
    """The words that look like identifiers, edges trimmed, each once.

    A path or file name, a snake_case or camelCase name, a dotted or kebab name, an
    error code or a commit hash: letters mixed with digits or joined by `_ . / : -`.
    """
    found: list[str] = []
    for raw in words:
        token = _EDGE.sub("", raw)
        if len(token) < 4:
            continue
        has_digit = any(c.isdigit() for c in token)
        has_alpha = any(c.isalpha() for c in token)
        if (
            _CAMEL.search(token) or _JOINED.search(token) or (has_digit and has_alpha)
        ) and token not in found:
            found.append(token)
    return tuple(found)
