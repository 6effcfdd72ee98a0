"""Which writing systems a corpus is typed in, so the embedding model can be one that reads it.

all-MiniLM-L6-v2 learned English: most CJK characters become `[UNK]`, and other scripts
fare little better, so a turn written in them gets a vector of noise. Counting letters
outside the Latin script is enough to tell, and costs a regular expression per text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from findsession.cjk import CJK_CHARS

_LETTER = re.compile(r"[^\W\d_]")
_NON_LATIN = re.compile(r"[^\W\d_a-zA-Z\u00C0-\u024F\u1E00-\u1EFF]")
_CJK = re.compile(f"[{CJK_CHARS}]")
#: A turn counts as written in another script when this share of its letters is.
TURN_SHARE = 0.3
#: Characters of each text read: the language of a prompt shows in its first lines.
SAMPLE_CHARS = 400


@dataclass
class ScriptShare:
    """How many of the sampled turns are written mostly outside the Latin script."""

    turns: int = 0
    non_latin: int = 0
    cjk: int = 0

    @property
    def share(self) -> float:
        return self.non_latin / self.turns if self.turns else 0.0

    @property
    def label(self) -> str:
        """The scripts to name to a person: CJK when they are most of it."""
        mostly_cjk = self.cjk * 2 >= self.non_latin
        return "Chinese, Japanese or Korean" if mostly_cjk else "non-Latin scripts"


def cjk_fraction(text: str) -> float:
    """Share of a text's letters that are Chinese, Japanese or Korean (0 with no letters)."""
    letters = len(_LETTER.findall(text))
    return len(_CJK.findall(text)) / letters if letters else 0.0


def script_share(texts: list[str]) -> ScriptShare:
    """Classify each text (a turn's prompt and reply) by the script most of it uses."""
    result = ScriptShare()
    for text in texts:
        sample = text[:SAMPLE_CHARS]
        letters = len(_LETTER.findall(sample))
        if not letters:
            continue
        result.turns += 1
        other = len(_NON_LATIN.findall(sample))
        if other >= TURN_SHARE * letters:
            result.non_latin += 1
            if len(_CJK.findall(sample)) * 2 >= other:
                result.cjk += 1
    return result
