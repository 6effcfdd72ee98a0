"""The scan: find each anchor, try its rules there, hide the union of what they match.

Each anchor costs one pass of str.find over the text (see `rules.Rule`). Where matches
overlap, their union becomes one `[REDACTED:kind]` under the widest one's kind, so no part
of a secret survives.
"""

from __future__ import annotations

import re
from collections import Counter

from findsession.redact.private import drop_private_spans
from findsession.redact.rules import ANCHORS, TOKEN_KINDS, Rule
from findsession.redact.tokens import DISCORD_TOKEN

_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def redact(text: str) -> tuple[str, Counter[str]]:
    """`text` with every secret replaced by `[REDACTED:kind]`, and how many of each kind.

    A `<private>…</private>` span (to the end of the text if unclosed) is dropped whole.
    """
    found: Counter[str] = Counter()
    if not text:
        return text, found
    lowered = _lower(text)
    if "<private>" in lowered:
        text, n = drop_private_spans(text)
        found["private-span"] += n
        lowered = _lower(text)
    spans: list[tuple[int, int, str]] = []  # (start, end, kind) of the parts to hide
    for anchor, folded, rules in ANCHORS:
        haystack = lowered if folded else text
        at = haystack.find(anchor)
        while at >= 0:
            resume = at + 1
            for rule in rules:
                span = _try(rule, text, at, anchor)
                if span:
                    spans.append(span)
                    resume = max(resume, span[1])  # anchors inside it find nothing wider
            at = haystack.find(anchor, resume)
    if "discord" in lowered:
        spans.extend((m.start(), m.end(), "discord-token") for m in DISCORD_TOKEN.finditer(text))
    if not spans:
        return text, found
    out, last = [], 0
    for start, end, kind in _union(spans):
        out.append(text[last:start] + f"[REDACTED:{kind}]")
        found[kind] += 1
        last = end
    out.append(text[last:])
    return "".join(out), found


def _lower(text: str) -> str:
    """Lower case, offset for offset with `text` ("İ".lower() is two characters)."""
    lowered = text.lower()
    return lowered if len(lowered) == len(text) else text.translate(_ASCII_LOWER)


def _try(rule: Rule, text: str, at: int, anchor: str) -> tuple[int, int, str] | None:
    """The span `rule` hides for the anchor found at `at`, if any."""
    start = max(0, at - rule.back)
    if rule.kind in TOKEN_KINDS and _glued(text, start):
        return None
    if rule.find is not None:
        return rule.find(text, at, anchor)
    match = rule.pattern.match(text, start) if rule.pattern else None
    if not match:
        return None
    span = _secret_span(match, rule.kind)
    if rule.keep is not None and rule.keep(text[span[0] : span[1]]):
        return None
    return span


def _union(spans: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """Overlapping spans merged into one, named after the widest of them."""
    merged: list[tuple[int, int, str]] = []
    widest = 0
    for start, end, kind in sorted(spans):
        if merged and start < merged[-1][1]:
            m_start, m_end, m_kind = merged[-1]
            if end - start > widest:
                m_kind, widest = kind, end - start
            merged[-1] = (m_start, max(m_end, end), m_kind)
        else:
            merged.append((start, end, kind))
            widest = end - start
    return merged


def _glued(text: str, start: int) -> bool:
    """True when a token-like match starts inside a longer word."""
    return start > 0 and (text[start - 1].isalnum() or text[start - 1] == "_")


def _secret_span(match: re.Match[str], kind: str) -> tuple[int, int, str]:
    if "secret" in match.re.groupindex and match.group("secret") is not None:
        return match.start("secret"), match.end("secret"), kind
    return match.start(), match.end(), kind
