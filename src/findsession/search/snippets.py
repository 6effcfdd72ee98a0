"""The text shown for a hit: the matched words in context, highlighted.

FTS5 cuts a snippet around keyword matches; a unit found through CJK bigrams or by
meaning alone has none, so a window is cut around the first query term found, or the
start of the chunk that matched.
"""

from __future__ import annotations

from findsession.storage.base import MARK_END, MARK_START

#: Characters of a snippet cut without FTS5.
_VECTOR_SNIPPET = 220


def find_snippet(
    fields: dict[str, str], terms: list[str]
) -> tuple[str, list[tuple[int, int]], str]:
    """A window around the first query term found in the unit's text, highlighted."""
    for name, text in fields.items():
        flat = " ".join(text.split())
        lowered = flat.lower()
        for term in terms:
            at = lowered.find(term.lower())
            if at < 0:
                continue
            start = max(0, at - _VECTOR_SNIPPET // 2)
            piece = flat[start : start + _VECTOR_SNIPPET]
            prefix = "…" if start else ""
            spans = []
            low_piece = piece.lower()
            for t in terms:
                i = low_piece.find(t.lower())
                while i >= 0 and t:
                    spans.append((len(prefix) + i, len(prefix) + i + len(t)))
                    i = low_piece.find(t.lower(), i + len(t))
            return prefix + piece, sorted(set(spans)), name
    return chunk_snippet(fields.get("prompt", ""), 0, _VECTOR_SNIPPET), [], "prompt"


def chunk_snippet(text: str, start: int, end: int) -> str:
    """The start of the chunk that matched by meaning, on one line."""
    piece = " ".join(text[start:end].split())
    if len(piece) <= _VECTOR_SNIPPET:
        return piece
    cut = piece.rfind(" ", 0, _VECTOR_SNIPPET)
    return piece[: cut if cut > 0 else _VECTOR_SNIPPET] + "…"


def clean_snippet(raw: str) -> tuple[str, list[tuple[int, int]]]:
    """Collapse whitespace and turn FTS5 highlight marks into `(start, end)` spans."""
    out: list[str] = []
    spans: list[tuple[int, int]] = []
    start = None
    pending_space = False
    length = 0
    for ch in raw:
        if ch == MARK_START:
            if pending_space and out:
                out.append(" ")
                length += 1
            pending_space = False
            start = length
            continue
        if ch == MARK_END:
            if start is not None:
                spans.append((start, length))
            start = None
            continue
        if ch.isspace():
            pending_space = True
            continue
        if pending_space and out:
            out.append(" ")
            length += 1
        pending_space = False
        out.append(ch)
        length += 1
    return "".join(out), spans


def field_of(snippet: str, fields: dict[str, str]) -> str:
    probe = snippet.strip("…").strip()[:60]
    for name, text in fields.items():
        if probe and probe in " ".join(text.split()):
            return name
    return "prompt"
