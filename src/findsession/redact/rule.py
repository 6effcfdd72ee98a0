"""One kind of secret and where it is tried: the shape every rule of the table takes."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import NamedTuple


class Rule(NamedTuple):
    """A kind of secret, tried only where one of its literal anchors occurs.

    Anchors are found with str.find (in C): a regex alternation scanned over every
    position ran at 2-20 MB/s, too slow for gigabytes, and each anchor costs a pass over
    the text, so rules share short anchors ("gh" for every GitHub token). The pattern is
    matched `back` characters before the anchor (lookbehinds reach further); a named
    group `secret` marks the part to hide, else the whole match. `folded` anchors are
    lower case and found in the lower-cased text. `keep` says a value is not a secret
    after all. A rule with no pattern has a function `find(text, at, anchor)` instead.

    Every pattern is bounded or stops at a character its secret cannot hold, so a long
    run of anchors (1 MB of "sk-sk-…") costs linear time, not quadratic.
    """

    kind: str
    anchors: tuple[str, ...]
    back: int
    pattern: re.Pattern[str] | None
    folded: bool = False
    keep: Callable[[str], bool] | None = None
    find: Callable[[str, int, str], tuple[int, int, str] | None] | None = None


def rule(
    kind: str,
    anchors: tuple[str, ...],
    back: int,
    pattern: str | None,
    folded: bool = False,
    keep: Callable[[str], bool] | None = None,
    find: Callable[[str, int, str], tuple[int, int, str] | None] | None = None,
) -> Rule:
    compiled = re.compile(pattern) if pattern else None
    return Rule(kind, anchors, back, compiled, folded, keep, find)
