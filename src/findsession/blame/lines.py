"""Which stored writes hold a file's lines as they read now.

Lines are compared with their whitespace normalised (runs collapsed, ends stripped), so a
re-indented or re-wrapped file still matches what was written. A line that is blank or
only brackets and punctuation (`}`, `);`, `*/`) could have been written by anyone: it is
neutral, counted for no one. A write of one fragment of a line (an edit inside a line)
holds the lines that contain it. A line a change has on both sides (the anchor an edit
repeats, context it kept) is not one it wrote.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from findsession.errors import FindsessionError

#: A fragment shorter than this proves nothing by being inside a line.
FRAGMENT_CHARS = 8


def normal(line: str) -> str:
    return " ".join(line.split())


def neutral(line: str) -> bool:
    """Blank, or no letter or digit: nothing to tell writers apart by."""
    return not any(ch.isalnum() for ch in line)


@dataclass(frozen=True, slots=True)
class Written:
    """A write's text as lines to look in."""

    lines: frozenset[str]
    fragment: str | None

    @classmethod
    def of(cls, text: str, removed: str = "") -> Written:
        """A change's new side; a line its old side holds too is context it kept, not a
        line it wrote (an edit's unchanged first line, a block's anchor)."""
        kept = {normal(line) for line in removed.splitlines()}
        lines = frozenset(n for line in text.splitlines() if (n := normal(line)) not in kept)
        fragment = normal(text) if "\n" not in text.strip() else None
        if fragment is not None and len(fragment) < FRAGMENT_CHARS:
            fragment = None
        return cls(lines, fragment)

    def holds(self, line: str) -> bool:
        """Whether it wrote `line` (normalised)."""
        return line in self.lines or bool(self.fragment and self.fragment in line)


def read_range(path: str, first: int, last: int) -> list[tuple[int, str]]:
    """Lines `first`..`last` of the file as it reads now (numbered from 1)."""
    try:
        with Path(path).open(encoding="utf-8", errors="replace") as fh:
            lines = fh.read().splitlines()
    except OSError as exc:
        raise FindsessionError(f"cannot read {path}: {exc.strerror or exc}") from exc
    if first < 1 or first > len(lines):
        raise FindsessionError(
            f"{path} has {len(lines)} line{'s' if len(lines) != 1 else ''}, not line {first}"
        )
    last = min(last, len(lines))
    return [(n, lines[n - 1]) for n in range(first, last + 1)]
