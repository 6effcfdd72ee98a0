"""An assistant block of cursor-agent's older `.txt` transcript, cut into its parts.

The agent writes each block's parts one after another, joined by a single line end:
thinking (`[Thinking] ` before its text, or wrapped in `<think>` tags), the reply, each
tool call (`[Tool call] <name>`, then its arguments as `  key: value` lines, `key=value`
in older ones) and each result (`[Tool result] <name>`, with an indented body when the
output was kept). Nothing but the markers is indented or escaped: a thinking summary's
paragraphs and a multi-line argument's lines stand at the left margin as they were
written. So a call runs to the next marker, and a `[Thinking]` text runs until a plain
line follows another directly, which is where the reply starts: inside the thinking,
paragraphs are set apart by blank lines, and lists, tables, headings, quotes, indented
lines, fenced blocks, a bold title and the line after it go on without one.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from findsession.domain import MessageKind

THINKING = "[Thinking]"
CALL = "[Tool call] "
RESULT = "[Tool result]"
THINK_OPEN, THINK_CLOSE = "<think>", "</think>"
_MARKERS = (THINKING, CALL, RESULT, THINK_OPEN)
#: A line that goes on a Markdown block: indented, a list item, a table row, a heading,
#: a quote.
_BLOCK_LINE = re.compile(r"^(\s|[-*+]\s|\d+[.)]\s|[|#>])")
#: A bold title on a line of its own, as each of a model's reasoning summaries begins
#: (a block's summaries follow one another without a blank line).
_TITLE = re.compile(r"^\*\*[^*].*\*\*:?$")
#: An argument's first line: two spaces, then `key: ` or `key=`.
_ARGUMENT = re.compile(r"^  ([A-Za-z_-][\w.-]*)(?:(: ?)|=)(.*)$", re.S)
_FENCE = "```"


class Part(NamedTuple):
    """One part of an assistant block: its kind, text, the line it starts on, and the
    tool a call names."""

    kind: MessageKind
    text: str
    line: int
    tool: str | None = None


def assistant_parts(body: list[tuple[int, str]]) -> list[Part]:
    """The parts of an assistant block's numbered lines, in order; the reply is one part
    at the line its first text stands on, whatever parts stand between its lines."""
    out: list[Part] = []
    said: list[tuple[int, str]] = []
    i = 0
    while i < len(body):
        number, raw = body[i]
        head = raw.strip()
        if head.startswith(THINK_OPEN):
            i, text, after = _tagged(body, i)
            out.append(Part(MessageKind.THINKING, text, number))
            if after.strip():
                said.append((body[i - 1][0], after))
        elif head.startswith(THINKING):
            end = _thinking_end(body, i)
            first = head[len(THINKING) :].strip()
            text = "\n".join([first, *_dedent([t for _, t in body[i + 1 : end]])]).strip()
            out.append(Part(MessageKind.THINKING, text, number))
            i = end
        elif head.startswith(CALL):
            end = _next_marker(body, i + 1)
            name = head[len(CALL) :].strip() or "tool"
            out.append(Part(MessageKind.TOOL_CALL, arguments(body[i + 1 : end]), number, name))
            i = end
        elif head.startswith(RESULT):
            # The name is no output; an indented body, when kept, is.
            end = i + 1
            while end < len(body) and not _ends_result(body[end][1]):
                end += 1
            text = "\n".join(_dedent([t for _, t in body[i + 1 : end]])).strip()
            out.append(Part(MessageKind.TOOL_OUTPUT, text, number))
            i = end
        else:
            said.append((number, raw))
            i += 1
    text = "\n".join(t for _, t in said).strip()
    if text:
        first = next(n for n, t in said if t.strip())
        out.append(Part(MessageKind.REPLY, text, first))
    return sorted(out, key=lambda p: p.line)


def arguments(lines: list[tuple[int, str]]) -> str:
    """A call's arguments as `key: value` lines; a value's further lines as written."""
    kept = [raw.rstrip("\r") for _, raw in lines]
    while kept and not kept[-1].strip():
        kept.pop()
    out = []
    for raw in kept:
        found = _ARGUMENT.match(raw)
        if found is None:
            out.append(raw)
        elif found.group(2) is not None:
            out.append(raw[2:])
        else:
            out.append(f"{found.group(1)}: {found.group(3).strip()}")
    return "\n".join(out).strip("\n")


def _tagged(body: list[tuple[int, str]], i: int) -> tuple[int, str, str]:
    """`<think>` to `</think>` (or the block's end): the index after it, the thinking,
    and what follows the closing tag on its line."""
    inner: list[str] = []
    rest = body[i][1].split(THINK_OPEN, 1)[1]
    while THINK_CLOSE not in rest and i + 1 < len(body):
        inner.append(rest)
        i += 1
        rest = body[i][1]
    text, _, after = rest.partition(THINK_CLOSE)
    inner.append(text)
    return i + 1, "\n".join(inner).strip(), after


def _thinking_end(body: list[tuple[int, str]], i: int) -> int:
    """The index of the first line after a `[Thinking]` text that starts at `i`."""
    prev = body[i][1].strip()[len(THINKING) :].strip()
    said = bool(prev)
    fenced = prev.startswith(_FENCE)
    end = i + 1
    while end < len(body):
        raw = body[end][1]
        head = raw.strip()
        if head.startswith(_MARKERS):
            break
        if fenced or head.startswith(_FENCE):
            fenced = fenced != head.startswith(_FENCE)
        elif head and not _goes_on(prev, raw, said):
            break
        said = said or bool(head)
        prev = head
        end += 1
    return end


def _goes_on(prev: str, raw: str, said: bool) -> bool:
    """Whether a non-blank line goes on the thinking whose last line was `prev`."""
    if not prev:
        return said or raw[:1].isspace()
    return bool(_BLOCK_LINE.match(raw) or _TITLE.match(prev) or _TITLE.match(raw.strip()))


def _next_marker(body: list[tuple[int, str]], i: int) -> int:
    while i < len(body) and not body[i][1].strip().startswith(_MARKERS):
        i += 1
    return i


def _ends_result(raw: str) -> bool:
    """A marker, or a line at the left margin, ends a result's indented body."""
    head = raw.strip()
    return head.startswith(_MARKERS) or (bool(head) and not raw[:1].isspace())


def _dedent(lines: list[str]) -> list[str]:
    indents = [len(t) - len(t.lstrip()) for t in lines if t.strip()]
    cut = min(indents, default=0)
    return [t[cut:] for t in lines]
