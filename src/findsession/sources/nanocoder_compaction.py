"""Where a Nanocoder session document carries on when Nanocoder compacted it.

Nanocoder writes a session again whole at every save, and a compaction changes what the
file holds of the conversation before it (`summariseWithLLM`, `compressMessages`):

- `/compact`, and auto-compact, ask the model for a summary and keep
  `[<conversation-summary>…, *recent]`: the last messages (two, or back to the call
  whose results they are) follow the summary as they were, and everything before them
  is gone from the file;
- `/compact --mechanical`, and the same when the model's summary fails or is no
  shorter (or after empty answers, to retry), keep every message in its place but
  shorten all but the last two: a tool's result becomes `Tool: NAME\\nResult: …` (or
  `Error: …`), a long prompt or reply its first sentences;
- `/compact --restore` puts back the messages as they were before the last compaction.

Nanocoder rewrites a saved message nowhere else: a prompt taken back with Escape before
the model answered goes from the end, and `/clear` in an editor (over ACP) starts the
same session again with none of its messages. Those replace what they replaced.

So the index keeps what it read before a compaction. Each compaction's document is a
generation of the session, its messages numbered from `number × STRIDE + 1` in the
order of the file, so a later generation's lines follow the earlier's: a summary's
generation keeps the lines of the one before up to the messages the summary kept after
it (found by their digests among the last the index read), which it gives again
itself; a mechanical compaction keeps the lines it shortened, and the document is read
on after them (`skip`). The cursor's state holds the generations (number, skip, the
digest of each one's first message), how many messages the last reading held, and the
digests of its last `_TAIL`.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from typing import Any

from findsession.sources.cursor import State
from findsession.sources.json_doc import Carried

#: Lines per generation: a session's messages in one document stay far below it.
STRIDE = 1_000_000
#: The last generation's number: every line stays below 2**31 (PostgreSQL's integer).
_LAST_NUMBER = 2_000
#: The messages whose digests the state keeps: those a summary can keep after it (two,
#: or back to the call whose results they are).
_TAIL = 64
#: The generations the state keeps, for `/compact --restore` (which restores one).
_KEPT = 8
_MARK_BYTES = 6


@dataclass(frozen=True, slots=True)
class Generation:
    """One compaction's document: its number, how many of its first messages keep the
    text read before a mechanical compaction shortened them, its first message's digest."""

    number: int
    skip: int
    head: str


@dataclass(frozen=True, slots=True)
class _Last:
    """What the state says of the last reading."""

    generations: list[Generation]
    held: int
    tail: list[str]
    squeezed: int

    @property
    def start(self) -> int:
        """The place of the first message `tail` holds the digest of."""
        return self.held - len(self.tail)


def follow(doc: Any, state: State | None) -> Carried:
    """`json_doc.Follow` for a Nanocoder session document."""
    messages = doc.get("messages") if isinstance(doc, dict) else None
    if not isinstance(messages, list) or not messages:
        return Carried()
    marks = [_mark(m) for m in messages]
    squeezed = [i for i, m in enumerate(messages) if _squeezed(m)]
    last = _last(state)
    if last is None:
        generations, kept = [Generation(0, 0, marks[0])], 0
    else:
        generations, kept = _placed(messages, marks, squeezed, last)
    return Carried(kept, generations[-1].number * STRIDE, _state(generations, marks, squeezed))


def _placed(
    messages: list[Any], marks: list[str], squeezed: list[int], last: _Last
) -> tuple[list[Generation], int]:
    """The generations with the document's last, and the line the lines before it end at."""
    generations, now, first = last.generations, last.generations[-1], marks[0]
    summary = _summary(messages[0])
    restored = [i for i, g in enumerate(generations[:-1]) if g.head == first]
    if summary and first != now.head and not restored:
        return _summarised(marks, last)
    if len(squeezed) > last.squeezed and (first == now.head or not restored):
        # Shortened in place (not an earlier generation, shortened before, put back).
        changed = [j for j in range(last.start, min(last.held, len(marks)))
                   if marks[j] != last.tail[j - last.start]]  # fmt: skip
        ends = max(squeezed[-1] + 1, changed[-1] + 1 if changed else 0)
        skip = max(now.skip, min(last.held, ends))
        return [*generations, Generation(now.number, skip, first)], now.number * STRIDE + skip
    if first == now.head:
        if all(marks[j] == last.tail[j - last.start]
               for j in range(last.start, min(last.held, len(marks)))):  # fmt: skip
            return generations, now.number * STRIDE + now.skip  # saved again, as it went on
        if summary:
            return _summarised(marks, last)  # a summary word for word the last one's
    if restored:
        back = generations[: restored[-1] + 1]
        return back, back[-1].number * STRIDE + back[-1].skip
    return [Generation(0, 0, first)], 0  # another conversation in the same file


def _summarised(marks: list[str], last: _Last) -> tuple[list[Generation], int]:
    """A summary's generation after the last: the lines before the messages it kept
    stay (all of them, when none of the messages it kept was read).

    The first kept message's place `p` is where the remembered tail lines up with the
    messages after the summary. A summary that kept more messages than the tail holds
    (a reply's many calls and their results) puts `p` before the tail: the tail is then
    found whole among them, and the kept messages before it are taken to be those the
    last reading held before it."""
    now = last.generations[-1]
    if now.number >= _LAST_NUMBER:
        return last.generations, now.number * STRIDE + now.skip
    start, held, tail = last.start, last.held, last.tail
    kept = next(
        p
        for p in range(max(0, held + 1 - len(marks)), held + 1)
        if 1 + held - p <= len(marks)
        and all(marks[1 + j - p] == tail[j - start] for j in range(max(p, start), held))
    )
    return [*last.generations, Generation(now.number + 1, 0, marks[0])], now.number * STRIDE + kept


def _state(generations: list[Generation], marks: list[str], squeezed: list[int]) -> State:
    return {
        "generations": " ".join(f"{g.number}.{g.skip}.{g.head}" for g in generations[-_KEPT:]),
        "held": len(marks),
        "tail": "".join(marks[-_TAIL:]),
        "squeezed": len(squeezed),
    }


def _last(state: State | None) -> _Last | None:
    """The last reading as its state says, or None (none, or not one this reads)."""
    if state is None:
        return None
    named, held, tail = state.get("generations"), state.get("held"), state.get("tail")
    squeezed = state.get("squeezed")
    width = 2 * _MARK_BYTES
    if not (isinstance(named, str) and isinstance(tail, str) and len(tail) % width == 0):
        return None
    if not (isinstance(held, int) and isinstance(squeezed, int) and held >= len(tail) // width):
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
    marks = [tail[at : at + width] for at in range(0, len(tail), width)]
    return _Last(generations, held, marks, squeezed)


def _mark(message: Any) -> str:
    """A message's digest, as its document holds it; one that matches nothing for a
    message nested too deep to write out again."""
    try:
        text = json.dumps(message, sort_keys=True).encode()
    except (ValueError, RecursionError):
        return os.urandom(_MARK_BYTES).hex()
    return hashlib.blake2b(text, digest_size=_MARK_BYTES).hexdigest()


def _summary(message: Any) -> bool:
    """Whether the message is a summary Nanocoder's `/compact` left."""
    if not isinstance(message, dict) or message.get("role") != "user":
        return False
    content = message.get("content")
    return isinstance(content, str) and content.startswith("<conversation-summary>")


def _squeezed(message: Any) -> bool:
    """Whether the message is a tool's result a mechanical compaction shortened."""
    if not isinstance(message, dict) or message.get("role") != "tool":
        return False
    name, content = message.get("name"), message.get("content")
    if not (isinstance(name, str) and name and isinstance(content, str)):
        return False
    return content.startswith((f"Tool: {name}\nResult: ", f"Tool: {name}\nError: "))
