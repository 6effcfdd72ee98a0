"""What one Aider reply holds: prose, the model's reasoning, and the edits it made.

Aider logs a reply as plain Markdown, edits included: SEARCH/REPLACE blocks (the
`diff` and `diff-fenced` formats) and unified diffs (`udiff`). An edit is what a tool
call is in other agents' transcripts, so it becomes a `TOOL_CALL` named `edit` with the
file it changes: it is found by keyword and lists the file on the hit, but its code does
not drown the prose that answered the person. Reasoning logged between aider's
`<thinking-content-…>` tags (or a model's `<think>` tags) becomes `THINKING`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from findsession.domain import Message, MessageKind
from findsession.sources.jsonl import cap

REPLY_CAP = 100_000
THINKING_CAP = 8_000
EDIT_CAP = 2_000

#: A reply's lines as `(line number, text)`.
Lines = list[tuple[int, str]]

_SEARCH = re.compile(r"^\s*<{5,9} SEARCH>?\s*$")
_REPLACE = re.compile(r"^\s*>{5,9} REPLACE\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_THINK_OPEN = re.compile(r"^\s*<(thinking-content-[0-9a-f]+|think|thinking|reasoning)>\s*$")
#: The end of that thinking: aider sends an architect's reply to the editor without it.
THINK_CLOSE = re.compile(r"^\s*</(thinking-content-[0-9a-f]+|think|thinking|reasoning)>\s*$")
_UDIFF_FILE = re.compile(r"^\+\+\+ (?:b/)?(.+?)\s*$")


def split_reply(lines: Lines, common: dict[str, Any]) -> Iterator[Message]:
    """The reply's messages in order, each at the line where its text starts."""
    start = _first_text(lines, 0)
    if start is not None and (opened := _THINK_OPEN.match(lines[start][1])):
        close = f"</{opened.group(1)}>"
        end = next((i for i in range(start + 1, len(lines)) if lines[i][1].strip() == close), None)
        if end is not None:
            yield from _message(MessageKind.THINKING, lines[start + 1 : end], THINKING_CAP, common)
            lines = lines[end + 1 :]
    prose_from = 0
    last_file: str | None = None
    i = 0
    while i < len(lines):
        text = lines[i][1]
        if _SEARCH.match(text):
            begin, path = _edit_head(lines, i, prose_from)
            path = path or last_file
            end = _edit_end(lines, i)
        elif _FENCE.match(text) and text.strip().lstrip("`~").strip().lower() == "diff":
            end = _fence_end(lines, i)
            paths = [m.group(1) for _, t in lines[i:end] if (m := _UDIFF_FILE.match(t))]
            if not paths or paths[0] == "/dev/null":
                i += 1
                continue
            begin, path = i, paths[0]
        else:
            i += 1
            continue
        yield from _message(MessageKind.REPLY, lines[prose_from:begin], REPLY_CAP, common)
        block = lines[begin:end]
        if block:
            files = (path,) if path else ()
            body = cap("\n".join(t for _, t in block).strip(), EDIT_CAP)
            yield Message(
                MessageKind.TOOL_CALL,
                body,
                line=block[0][0],
                tool_name="edit",
                files=files,
                **common,
            )
        last_file = path or last_file
        prose_from = i = max(end, i + 1)
    yield from _message(MessageKind.REPLY, lines[prose_from:], REPLY_CAP, common)


def _message(
    kind: MessageKind, lines: Lines, limit: int, common: dict[str, Any]
) -> Iterator[Message]:
    start = _first_text(lines, 0)
    if start is None:
        return
    text = "\n".join(t for _, t in lines[start:]).strip()
    yield Message(kind, cap(text, limit), line=lines[start][0], **common)


def _first_text(lines: Lines, start: int) -> int | None:
    return next((i for i in range(start, len(lines)) if lines[i][1].strip()), None)


def _edit_head(lines: Lines, search: int, floor: int) -> tuple[int, str | None]:
    """Where a SEARCH/REPLACE block begins, and the file it names.

    `diff` puts the file name above the opening fence, `diff-fenced` inside it, right
    above the SEARCH marker; either may be missing (the file of the previous edit).
    """
    begin, path = search, None
    for back in (search - 1, search - 2):
        if back < floor:
            break
        text = lines[back][1]
        if _FENCE.match(text):
            begin = back
            continue
        name = _file_name(text)
        if name is None or path is not None:
            break
        begin, path = back, name
    return begin, path


def _file_name(text: str) -> str | None:
    """A line that can be the name of the edited file (aider strips the same marks).

    A line with a space is taken for prose ("Here is the change:"), not a name.
    """
    name = text.strip().strip("#*`:").strip()
    if not name or len(name) > 300 or name == "..." or any(c.isspace() for c in name):
        return None
    return name


def _edit_end(lines: Lines, search: int) -> int:
    """Just past the REPLACE marker (and the fence closing the block, if any)."""
    for i in range(search + 1, len(lines)):
        if _REPLACE.match(lines[i][1]):
            if i + 1 < len(lines) and _FENCE.match(lines[i + 1][1]):
                return i + 2
            return i + 1
    return len(lines)


def _fence_end(lines: Lines, opening: int) -> int:
    for i in range(opening + 1, len(lines)):
        if _FENCE.match(lines[i][1]):
            return i + 1
    return len(lines)
