"""Generations of a session document its agent rewrites when it compacts.

Nanocoder and Code Puppy write a session again whole at every save, and a compaction
drops from the file the messages it summarised (or cut). The index keeps what it read
before: each compaction's document is a generation of the session, its messages
numbered from `number × STRIDE + 1` in the order of the file, so a later generation's
lines follow the earlier's. Where a summary's generation starts is found by the digests
of the last messages the index read (the cursor's state keeps them): the lines of the
generation before stay up to the messages the compaction kept after its summary, which
the new generation gives again itself. What makes a document a compaction, and which
messages an agent carries into each one (Code Puppy its first prompt), each source
says (`nanocoder_compaction`, `code_puppy_compaction`).

A source that reads generations must never have its files read again from the top
(`Source.reads`) once an index holds generations of them: the file no longer holds
what came before its last compaction, and a reading from the top would replace it.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from typing import Any

from findsession.sources.base import texts_by_line
from findsession.sources.cursor import Record, State
from findsession.sources.json_doc import shifted

#: Lines per generation: a session's messages in one document stay far below it.
STRIDE = 1_000_000
#: The last generation's number: every line stays below 2**31 (PostgreSQL's integer).
LAST_NUMBER = 2_000
#: The messages whose digests the state keeps: those a compaction may keep after its
#: summary (Nanocoder two, or back to the call whose results they are).
TAIL = 64
#: The generations the state keeps (Nanocoder's `/compact --restore` restores one).
KEPT = 8
_MARK_BYTES = 6
_WIDTH = 2 * _MARK_BYTES


@dataclass(frozen=True, slots=True)
class Generation:
    """One compaction's document: its number, how many of its first messages keep the
    text read before (Nanocoder's mechanical compaction shortens them in place), its
    first message's digest."""

    number: int
    skip: int
    head: str

    @property
    def start(self) -> int:
        """The line the generation's lines read from the document follow."""
        return self.number * STRIDE + self.skip


@dataclass(frozen=True, slots=True)
class Last:
    """What the state says of the last reading: its generations, how many messages the
    document held, the digests of its last `TAIL`, and the whole state (for what a
    source keeps of its own)."""

    generations: list[Generation]
    held: int
    tail: list[str]
    state: State

    @property
    def start(self) -> int:
        """The place of the first message `tail` holds the digest of."""
        return self.held - len(self.tail)

    @property
    def now(self) -> Generation:
        return self.generations[-1]

    def unchanged(self, marks: list[str]) -> bool:
        """Whether each remembered message the document still holds is where it was (the
        document saved again as it went on, or fewer messages at its end)."""
        return all(
            marks[j] == self.tail[j - self.start]
            for j in range(self.start, min(self.held, len(marks)))
        )


def after_summary(marks: list[str], last: Last, lead: int = 1) -> tuple[list[Generation], int]:
    """A compaction's generation after the last, its document's messages after its first
    `lead` (a summary, the messages the agent carries into each compaction) being those
    it kept of the last reading's, then new ones; and the line the lines before it end
    at: the lines of the last generation stay up to the messages it kept (all of them,
    when none of the messages it kept was read).

    The first kept message's place `p` is where the remembered tail lines up with the
    messages after the lead. A compaction that kept more messages than the tail holds
    (a reply's many calls and their results) puts `p` before the tail: the tail is then
    found whole among them, and the kept messages before it are taken to be those the
    last reading held before it."""
    now = last.now
    if now.number >= LAST_NUMBER:
        return last.generations, now.start
    start, held, tail = last.start, last.held, last.tail
    kept = next(
        p
        for p in range(max(0, held + lead - len(marks)), held + 1)
        if lead + held - p <= len(marks)
        and all(marks[lead + j - p] == tail[j - start] for j in range(max(p, start), held))
    )
    return [*last.generations, Generation(now.number + 1, 0, marks[0])], now.number * STRIDE + kept


def reading_state(generations: list[Generation], marks: list[str], **more: int | str) -> State:
    """The cursor's state after a reading of a document whose messages' digests are
    `marks`, with what the source keeps of its own."""
    return {
        "generations": " ".join(f"{g.number}.{g.skip}.{g.head}" for g in generations[-KEPT:]),
        "held": len(marks),
        "tail": "".join(marks[-TAIL:]),
        **more,
    }


def last_reading(state: State | None) -> Last | None:
    """The last reading as its state says, or None (none, or not one this reads)."""
    if state is None:
        return None
    named, held, tail = state.get("generations"), state.get("held"), state.get("tail")
    if not (isinstance(named, str) and isinstance(tail, str) and len(tail) % _WIDTH == 0):
        return None
    if not (isinstance(held, int) and held >= len(tail) // _WIDTH):
        return None
    generations = []
    for each in named.split():
        number, _, rest = each.partition(".")
        skip, _, head = rest.partition(".")
        if not (number.isdigit() and skip.isdigit() and head):
            return None
        generations.append(Generation(int(number), int(skip), head))
    if not generations:
        return None
    marks = [tail[at : at + _WIDTH] for at in range(0, len(tail), _WIDTH)]
    return Last(generations, held, marks, state)


def marked(doc: Any) -> tuple[list[Any], list[str]]:
    """A document's `messages` and their digests; none when it holds no list of them."""
    messages = doc.get("messages") if isinstance(doc, dict) else None
    if not isinstance(messages, list):
        return [], []
    return messages, [mark(m) for m in messages]


def mark(message: Any) -> str:
    """A message's digest, as its document holds it; one that matches nothing for a
    message nested too deep to write out again."""
    try:
        text = json.dumps(message, sort_keys=True).encode()
    except (ValueError, RecursionError):
        return os.urandom(_MARK_BYTES).hex()
    return hashlib.blake2b(text, digest_size=_MARK_BYTES).hexdigest()


def texts_by_generation(records: list[Record], lines: set[int]) -> dict[tuple[int, int], str]:
    """Each wanted line's text as the document holds it now, its records numbered as a
    reading did: in each generation a wanted line is of (the reader keeps the stored
    text of a line the file no longer holds, which no longer redacts to it)."""
    texts: dict[tuple[int, int], str] = {}
    for number in sorted({line // STRIDE for line in lines}):
        texts.update(texts_by_line(shifted(records, number * STRIDE), lines))
    return texts
