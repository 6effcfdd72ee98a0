"""Where a Code Puppy session document carries on when Code Puppy compacted it.

Code Puppy saves a session again whole after each turn, and compacts its history
(pydantic-ai-harness's strategies) when a request would fill more than
`compaction_threshold` of the model's context, and on `/compact`, keeping the last
`protected_token_count` tokens of messages:

- `compaction_strategy = summarization` (the default; `SummarizingCompaction`) keeps
  `[summary, first prompt, *kept]`: a request whose system-prompt part is `Summary of
  previous conversation:` and the summary, the request of the session's first prompt
  again (`preserve_first_user_message`), then the last messages as they were; when the
  model's summary fails, it truncates instead;
- `compaction_strategy = truncation` (`SlidingWindowCompaction`), and `/truncate N`,
  keep `[first prompt, *kept]`, with no summary.

A compaction in the middle of a run happens before the run is saved: the messages it
summarised or cut since the last save, the run's own prompt among them, never reach
the file. Code Puppy rewrites a saved message nowhere else: `/clear`, `/session new`
and switching agents save the session and go on in a new file; `-r NAME` and
`/resume` load a session and go on saving to it; a run cancelled or interrupted has a
tool call left without its result answered by a result it makes up (in the messages at
the end). `/dump_context NAME` saves the current conversation under NAME, over what
NAME held.

So the index keeps what it read before a compaction, in generations (`generations`):
a compaction's generation keeps the lines of the one before up to the messages it kept
after its lead (the summary, the first prompt), and the first prompt, which the index
holds already, is not read again. Besides the generations, the cursor's state holds the
digest of the first prompt's request the index read (`pin`), whose copies in later
generations are not read again, and of the message after it (`next`): a document that
starts with the first prompt and goes on with another message was truncated.
"""

from __future__ import annotations

from typing import Any

from findsession.sources.code_puppy_records import SUMMARY_HEAD
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
    """`json_doc.Follow` for a Code Puppy session envelope."""
    messages, marks = marked(doc)
    if not messages:
        return Carried()
    last = last_reading(state)
    held = last.state.get("pin") if last is not None else None
    if last is None or not isinstance(held, str):
        generations, kept = [Generation(0, 0, marks[0])], 0
    else:
        generations, kept = _placed(messages, marks, last, held)
    number = generations[-1].number
    if number and isinstance(held, str):
        pin = held  # the first prompt the index read, in an earlier generation
    else:
        first = next((i for i, m in enumerate(messages) if _prompted(m)), None)
        pin = marks[first] if first is not None else ""
    places = [i for i, m in enumerate(marks) if pin and m == pin]
    again = frozenset(number * STRIDE + i + 1 for i in places) if number else frozenset()
    after = marks[places[0] + 1] if places and places[0] + 1 < len(marks) else ""
    more = reading_state(generations, marks, pin=pin, next=after)
    return Carried(kept, number * STRIDE, more, again)


def _placed(
    messages: list[Any], marks: list[str], last: Last, pin: str
) -> tuple[list[Generation], int]:
    """The generations with the document's last, and the line the lines before it end at."""
    now, after = last.now, last.state.get("next")
    if _summary(messages[0]) and marks[0] != now.head:
        return after_summary(marks, last, 2 if len(marks) > 1 and pin and marks[1] == pin else 1)
    cut = marks[0] != now.head or (after and len(marks) > 1 and marks[1] != after)
    if pin and marks[0] == pin and cut:
        return after_summary(marks, last)  # truncated: the first prompt, then the last messages
    if marks[0] == now.head:
        return last.generations, now.start  # saved again, as it went on or rewritten
    return [Generation(0, 0, marks[0])], 0  # another conversation in the same file


def _summary(message: Any) -> bool:
    """Whether the message is the request a summarising compaction put first."""
    parts = message.get("parts") if isinstance(message, dict) else None
    return isinstance(parts, list) and any(
        isinstance(p, dict)
        and p.get("part_kind") == "system-prompt"
        and isinstance(p.get("content"), str)
        and p["content"].startswith(SUMMARY_HEAD)
        for p in parts
    )


def _prompted(message: Any) -> bool:
    """Whether the message is a request with a prompt: the first one is the one every
    compaction keeps."""
    parts = message.get("parts") if isinstance(message, dict) else None
    return (
        isinstance(message, dict)
        and message.get("kind") == "request"
        and isinstance(parts, list)
        and any(isinstance(p, dict) and p.get("part_kind") == "user-prompt" for p in parts)
    )
