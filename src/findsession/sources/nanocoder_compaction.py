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

So the index keeps what it read before a compaction, in generations (`generations`): a
summary's generation keeps the lines of the one before up to the messages the summary
kept after it, which it gives again itself; a mechanical compaction keeps the lines it
shortened, and the document is read on after them (`skip`). Besides the generations,
the cursor's state holds how many of the document's messages a mechanical compaction
had shortened (`squeezed`).
"""

from __future__ import annotations

from typing import Any

from findsession.sources.cursor import State
from findsession.sources.generations import (
    STRIDE,
    Generation,
    Last,
    after_summary,
    last_reading,
    marked,
    reading_state,
)
from findsession.sources.json_doc import Carried


def follow(doc: Any, state: State | None) -> Carried:
    """`json_doc.Follow` for a Nanocoder session document."""
    messages, marks = marked(doc)
    if not messages:
        return Carried()
    squeezed = [i for i, m in enumerate(messages) if _squeezed(m)]
    last = last_reading(state)
    if last is None or not isinstance(last.state.get("squeezed"), int):
        generations, kept = [Generation(0, 0, marks[0])], 0
    else:
        generations, kept = _placed(messages, marks, squeezed, last)
    now = generations[-1].number * STRIDE
    return Carried(kept, now, reading_state(generations, marks, squeezed=len(squeezed)))


def _placed(
    messages: list[Any], marks: list[str], squeezed: list[int], last: Last
) -> tuple[list[Generation], int]:
    """The generations with the document's last, and the line the lines before it end at."""
    generations, now, first = last.generations, last.now, marks[0]
    summary = _summary(messages[0])
    restored = [i for i, g in enumerate(generations[:-1]) if g.head == first]
    if summary and first != now.head and not restored:
        return after_summary(marks, last)
    if len(squeezed) > last.state["squeezed"] and (first == now.head or not restored):
        # Shortened in place (not an earlier generation, shortened before, put back).
        changed = [j for j in range(last.start, min(last.held, len(marks)))
                   if marks[j] != last.tail[j - last.start]]  # fmt: skip
        ends = max(squeezed[-1] + 1, changed[-1] + 1 if changed else 0)
        skip = max(now.skip, min(last.held, ends))
        return [*generations, Generation(now.number, skip, first)], now.number * STRIDE + skip
    if first == now.head:
        if last.unchanged(marks):
            return generations, now.start  # saved again, as it went on
        if summary:
            return after_summary(marks, last)  # a summary word for word the last one's
    if restored:
        back = generations[: restored[-1] + 1]
        return back, back[-1].start
    return [Generation(0, 0, first)], 0  # another conversation in the same file


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
