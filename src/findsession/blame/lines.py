"""Which stored writes hold a file's lines as they read now.

Lines are compared with their whitespace normalised (runs collapsed, ends stripped), so a
re-indented or re-wrapped file still matches what was written. A line that is blank or
only brackets and punctuation (`}`, `);`, `*/`) could have been written by anyone: it is
neutral, counted for no one. A write of one fragment of a line (an edit inside a line)
holds the lines that contain it. A line a change has on both sides (the anchor an edit
repeats, context it kept) is not one it wrote. What a line is shown as is what the write
holds of it (`as_written`), never the file's own text.
"""

from __future__ import annotations

from dataclasses import dataclass

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

    #: Each line it wrote, normalised, and as it wrote it.
    lines: dict[str, str]
    fragment: str | None

    @classmethod
    def of(cls, text: str, removed: str = "") -> Written:
        """A change's new side; a line its old side holds too is context it kept, not a
        line it wrote (an edit's unchanged first line, a block's anchor)."""
        kept = {normal(line) for line in removed.splitlines()}
        lines: dict[str, str] = {}
        for line in text.splitlines():
            if (n := normal(line)) not in kept:
                lines.setdefault(n, line)
        fragment = normal(text) if "\n" not in text.strip() else None
        if fragment is not None and len(fragment) < FRAGMENT_CHARS:
            fragment = None
        return cls(lines, fragment)

    def holds(self, line: str) -> bool:
        """Whether it wrote `line` (normalised)."""
        return line in self.lines or bool(self.fragment and self.fragment in line)

    def as_written(self, line: str) -> str | None:
        """What it wrote of `line` (normalised), as the index keeps it: the whole line,
        or the fragment of it an edit inside the line wrote; None if it wrote none."""
        if line in self.lines:
            return self.lines[line]
        if self.fragment and self.fragment in line:
            return self.fragment
        return None
