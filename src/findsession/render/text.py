"""Text made safe to show, and the short forms every renderer uses: a path under the home
folder as `~/…`, a timestamp as its day.

Transcripts hold whatever a tool printed, terminal control sequences included, so every
piece of text shown passes `printable`: a transcript must not clear the screen, retitle
the window or hide a link's target. Kept apart from the renderers so that every command's
output, and the CLI's own messages, go through this one filter.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from findsession.paths import tilde

# Whole sequences, dropped: CSI (colours, cursor moves, screen clears), OSC (window
# titles, hyperlinks) and the other string controls with their terminator, 7- and 8-bit,
# then any other escape sequence (`ESC c` resets the terminal).
_SEQUENCE = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]"
    r"|(?:\x1b[]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c\n]*(?:\x07|\x1b\\|\x9c)"
    r"|\x1b[ -/]*[0-~]"
)
# What is left: lone control characters (shown as their Unicode pictures, so they are
# seen, not obeyed) and bidi embeddings, overrides and isolates (dropped: they reorder
# what a terminal shows, as in "Trojan Source").
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_BIDI = re.compile("[\u202a-\u202e\u2066-\u2069]")


def _picture(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x20:
        return chr(0x2400 + code)  # ␛ ␇ ␍ …
    return "\u2421" if code == 0x7F else "\ufffd"


def printable(text: str | None) -> str:
    """`text` safe to print to a terminal: no control sequence is left to act.

    Line feeds and tabs stay; a CR-LF becomes a line feed; escape sequences are
    dropped and their text kept (a link's text stays, its target goes); other control
    characters show as symbols.
    """
    if not text:
        return ""
    text = _SEQUENCE.sub("", text.replace("\r\n", "\n"))
    return _BIDI.sub("", _CONTROL.sub(_picture, text))


def printable_spans(
    text: str, spans: Sequence[Sequence[int]]
) -> tuple[str, Sequence[Sequence[int]]]:
    """`printable(text)` with character spans of `text` moved to where they land in it."""
    clean = printable(text)
    if clean == text:
        return text, spans
    moved = []
    for start, end in spans:
        a, b = len(printable(text[:start])), len(printable(text[:end]))
        if a < b <= len(clean):
            moved.append((a, b))
    return clean, moved


def code_span(text: str) -> str:
    """`text` as a Markdown code span on one line that no backtick inside it can end: a
    line feed shows as ␊ (a code span across lines would let its next line start a
    heading or a list of the document's)."""
    text = printable(text).replace("\n", "\u240a")
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def home(path: str | None) -> str:
    """Show paths under the home folder as `~/…`, printable."""
    return printable(tilde(path)) if path else "?"


def day(ts: str | None) -> str:
    return printable(ts[:10]) if ts else "????-??-??"


def whose(s: Mapping[str, Any]) -> str:
    """Whose session (its JSON object) and which machine it was pushed from, on a shared
    server ("" in a local index): a colleague's work is told apart from one's own at a
    glance."""
    owner, machine = s["owner"], s["machine"]
    if not s["yours"]:
        return f"{printable(owner or 'someone')}'s, on {printable(machine or 'their index')}"
    return f"on {printable(machine)}" if machine else ""
