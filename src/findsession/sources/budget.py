"""The work one file may cost in one read: lines and seconds; and what a compressed file
may expand to.

A file's size does not bound what reading it costs: 293 KB of zstd held a gigabyte of
`{}` lines and kept a run busy for more than five minutes (the decompressed-bytes cap
bounded memory, not time). So each read of a file gets a budget, and the shared readers
spend it: the JSON-lines reader a line at a time, the decompressor as it goes. When it
runs out the read stops where it is, the reading says why (`Reading.cut`), and the
indexer names the file in the run's summary and in `status`. A file read on from an
offset goes on from there on the next run; a file read whole (a compressed rollout)
keeps what was read, and the rest stays unread until the file changes.

The indexer opens one budget per file (`limit`); a reader called outside it (a test, a
`read --raw`) gets a budget of its own with the same limits.

A plain file cannot add more to the index than its own bytes; a compressed one can add
thousands of times its size (15 KB of zstd held a million valid messages: 152 s, 1.26 GB
of memory and an 876 MB index). So what a compressed file gives is bounded by its size
too (`expanded_bytes`): real transcripts compress 6 times over (112 at most, of 279
measured with zstd's default level), and a file is read to 250 times its size at most.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

#: Lines one read of a file may parse: far above any real session (the longest seen
#: hold tens of thousands), far below what a small compressed file can expand to.
MAX_LINES = 1_000_000
#: Seconds one read of a file may take.
MAX_SECONDS = 30.0
#: What a compressed file is decompressed to at most, whatever its size.
MAX_DECOMPRESSED = 1 << 30
#: Times its own size a compressed file may expand to (`expanded_bytes`).
MAX_EXPANSION = 250
#: What any compressed file may expand to, however small.
MIN_EXPANDED = 1 << 20
#: Lines between two looks at the clock.
_CLOCK_EVERY = 256


class Budget:
    """What is left of one file's read; `cut` says why it ran out (None while it has
    not)."""

    def __init__(self, lines: int | None = None, seconds: float | None = None) -> None:
        self.max_lines = MAX_LINES if lines is None else lines
        self.seconds = MAX_SECONDS if seconds is None else seconds
        self.deadline = time.monotonic() + self.seconds
        self.lines = 0
        self.cut: str | None = None

    @property
    def lines_left(self) -> int:
        return max(0, self.max_lines - self.lines)

    def line(self) -> bool:
        """Spend one line; False once the budget is spent (then `cut` says why)."""
        if self.cut is not None:
            return False
        if self.lines >= self.max_lines:
            self.cut = f"over {self.max_lines:,} lines in one read"
            return False
        self.lines += 1
        return self.lines % _CLOCK_EVERY != 0 or self.in_time()

    def in_time(self) -> bool:
        """False once the read took longer than it may (then `cut` says so)."""
        if self.cut is not None:
            return False
        if time.monotonic() > self.deadline:
            self.cut = f"over {self.seconds:g} s in one read"
            return False
        return True

    def stop(self, reason: str) -> None:
        """Cut the read for another reason (a cap on decompressed bytes), unless it
        already was."""
        self.cut = self.cut or reason


def expanded_bytes(compressed: int) -> int:
    """Decompressed bytes a compressed file of `compressed` bytes is read to at most."""
    return min(MAX_DECOMPRESSED, max(MIN_EXPANDED, MAX_EXPANSION * compressed))


_current: ContextVar[Budget | None] = ContextVar("findsession_read_budget", default=None)


@contextmanager
def limit(lines: int | None = None, seconds: float | None = None) -> Iterator[Budget]:
    """One file's budget, spent by every reader it calls until the block ends."""
    budget = Budget(lines, seconds)
    token = _current.set(budget)
    try:
        yield budget
    finally:
        _current.reset(token)


def current() -> Budget:
    """The budget of the file being read; a fresh one outside `limit`."""
    return _current.get() or Budget()
