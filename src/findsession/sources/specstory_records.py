"""What a SpecStory export's blocks mean: each turn label's block mapped to format-free
records.

A `User` block is what the person typed, unless it is the agent's own harness (Claude
Code's `<command-name>`, `<local-command-stdout>`, an interruption, a custom command's
expanded text right after its `<command-message>`) or a compaction summary. A reply
block (`Assistant`, `Agent`) is a run of parts, which the extension separates by `---`
lines and the CLI gives a label each:

- thinking: `<think><details><summary>Thought Process</summary>…</details></think>`, or a
  model's own ```` ```thinking ```` fence;
- a tool call: a `<tool-use data-tool-type=… data-tool-name=…>` envelope (since late
  2025); a line `Tool use: **Name**` with `Result:`, `Output:` or `Error:` before what the
  tool gave (mid-2025); in the first exports, a `<details>` listing or search, a `Read
  file: …` line, an edit as one ```` ```diff ```` fence, a command as one ```` ```bash ````
  fence, or a tool's one-line failure (`Cancelled`, `Tool call timed out after 5000ms`)
  (`specstory_tools` reads each);
- anything else is the reply the person read.

A subagent's blocks (`Agent - sidechain`) are the work of a tool, not a reply: their
text is kept as tool output. Each message's line is where its part starts.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace

from findsession.domain import Message, MessageKind, MetaEvent, MetaKind
from findsession.sources.claude_code_records import (
    HARNESS_PREFIXES,
    PROMPT_CAP,
    THINKING_CAP,
    TOOL_INPUT_CAP,
    TOOL_OUTPUT_CAP,
)
from findsession.sources.cursor import Record
from findsession.sources.jsonl import cap
from findsession.sources.specstory_parse import SEPARATOR, Block, Fences, Header
from findsession.sources.specstory_times import label_time
from findsession.sources.specstory_tools import TAGS, Part, alone_in_fence, details, tool

#: Claude Code's user lines that SpecStory keeps but no person typed.
_HARNESS = (*HARNESS_PREFIXES, "<task-notification>")
_COMPACTED = "This session is being continued from a previous conversation"
_COMMAND = "<command-message>"
#: The first exports' marker between a reply's parts; never text.
_STARS = "_****_"
_THINKING_FENCE = re.compile(r"^.{0,3}?```thinking\s*$")
_TOOL_NAME = re.compile(r'data-tool-name="([^"]*)"')
_LEGACY_TOOL = re.compile(r"^Tool use: \*\*([^*]+)\*\*\s*(.*)$")
_READ_FILE = re.compile(r"^Read file: (.+)$")
#: The first exports' one-line tool failures.
_FAILURES = (
    "Cancelled",
    "Tool call timed out after",
    "Error calling tool",
    "Could not find file",
    "Could not resolve URI",
)
#: SpecStory's own markup around a part, by what opens it and what closes it.
_ENVELOPES = (("<tool-use ", "</tool-use>"), ("<think>", "</think>"), ("<details", "</details>"))


def session_records(head: Header, blocks: list[Block], cwd: str | None) -> list[Record]:
    """Every message of the chat in order, then its title."""
    out: list[Record] = []
    when = head.started
    after_command = False
    for block in blocks:
        when = label_time(block.label) or when
        base = Message(MessageKind.HARNESS, "", block.line, timestamp=when, cwd=cwd)
        if block.user:
            text = _text(block.lines).strip()
            if text:
                kind = _said(text, after_command, block)
                out.append(replace(base, kind=kind, text=cap(text, PROMPT_CAP)))
            after_command = text.startswith(_COMMAND)
            continue
        after_command = False
        out.extend(_reply_messages(block, base))
    if head.title:
        out.append(MetaEvent(MetaKind.AI_TITLE, head.title, head.title_line))
    return out


def _said(text: str, after_command: bool, block: Block) -> MessageKind:
    if block.sidechain:
        return MessageKind.TOOL_OUTPUT  # the parent agent's task for its subagent
    if after_command or text.startswith(_HARNESS):
        return MessageKind.HARNESS
    if text.startswith(_COMPACTED):
        return MessageKind.COMPACT_SUMMARY
    return MessageKind.PROMPT


def _reply_messages(block: Block, base: Message) -> Iterator[Message]:
    """A reply block's messages; its reply parts joined, a subagent's as tool output."""
    replies: list[Part] = []

    def flush() -> Iterator[Message]:
        if replies:
            text = "\n\n".join(p.text for p in replies)
            kind = MessageKind.TOOL_OUTPUT if block.sidechain else MessageKind.REPLY
            yield replace(base, kind=kind, text=cap(text, PROMPT_CAP), line=replies[0].line)
            replies.clear()

    for first, lines in _pieces(block):
        for part in _parts(lines, first, block.speaker == "Assistant"):
            if part.kind is MessageKind.REPLY:
                replies.append(part)
                continue
            yield from flush()
            yield replace(
                base,
                kind=part.kind,
                text=part.text,
                line=part.line,
                tool_name=part.tool,
                files=part.files,
                is_error=part.is_error,
            )
    yield from flush()


def _pieces(block: Block) -> Iterator[tuple[int, list[str]]]:
    """The block's parts as the extension separates them: at `---` lines, except inside
    SpecStory's own envelopes (a tool's output may hold a `---` line of its own). Code
    fences do not count: replies hold fences that never close, and a `---` in a fence
    only cuts a reply's text in two."""
    closer: str | None = None
    start, lines = block.line + 1, []
    for number, line in enumerate(block.lines, block.line + 1):
        stripped = line.strip()
        if closer is None and stripped == SEPARATOR:
            if lines:
                yield start, lines
            start, lines = number + 1, []
            continue
        if stripped != _STARS:
            lines.append(line)
        if closer is None:
            closer = next((c for o, c in _ENVELOPES if stripped.startswith(o)), None)
        if closer is not None and closer in stripped:
            closer = None
    if lines:
        yield start, lines


def _parts(lines: list[str], first: int, extension: bool) -> Iterator[Part]:
    """What one `---`-separated part holds, in order. `extension`: an `Assistant` block
    (the extension's, before late 2025), where a `<details>` block or a fence alone
    is a tool; in an `Agent` block they are the reply's own markup."""
    i = 0
    while i < len(lines):
        line, at = lines[i].strip(), first + i
        if not line:
            i += 1
            continue
        if line.startswith("<think>"):
            end = _closing(lines, i, "</think>")
            yield from _thinking(_thought(lines[i : end + 1]), at)
        elif _THINKING_FENCE.match(line):
            end = _fence_end(lines, i)
            yield from _thinking(_thought(lines[i + 1 : end]), at)
        elif line.startswith("<tool-use "):
            end = _closing(lines, i, "</tool-use>")
            name = _TOOL_NAME.search(line)
            yield from tool(name[1] if name else "tool", lines[i : end + 1], at)
        elif extension and line.startswith("<details"):
            end = _closing(lines, i, "</details>")
            yield from details(lines[i : end + 1], at)
        elif (legacy := _LEGACY_TOOL.match(line)) is not None:
            yield from tool(legacy[1].strip(), [legacy[2], *lines[i + 1 :]], at)
            return
        elif (read := _READ_FILE.match(line)) is not None:
            end = i
            path = read[1].strip()
            files = () if path == "undefined" else (path,)
            yield Part(MessageKind.TOOL_CALL, cap(path, TOOL_INPUT_CAP), at, "read_file", files)
        elif line.startswith(_FAILURES) and not "".join(lines[i + 1 :]).strip():
            end = i
            yield Part(MessageKind.TOOL_OUTPUT, cap(line, TOOL_OUTPUT_CAP), at, is_error=True)
        elif extension and (fenced := alone_in_fence(lines[i:], at)) is not None:
            yield fenced
            return
        else:
            end = _text_end(lines, i)
            text = _text(lines[i : end + 1]).strip()
            if text:
                yield Part(MessageKind.REPLY, text, at)
        i = end + 1


def _thinking(thought: str, at: int) -> Iterator[Part]:
    """A thinking part, unless it holds no word (an empty or unclosed block)."""
    if thought:
        yield Part(MessageKind.THINKING, thought, at)


def _thought(lines: list[str]) -> str:
    return cap(TAGS.sub("", "\n".join(lines)).strip(), THINKING_CAP)


def _closing(lines: list[str], i: int, tag: str) -> int:
    """The line that closes what line `i` opens; the part's last line when none does."""
    return next((j for j in range(i, len(lines)) if tag in lines[j]), len(lines) - 1)


def _fence_end(lines: list[str], i: int) -> int:
    return next((j for j in range(i + 1, len(lines)) if lines[j].strip() == "```"),
                len(lines) - 1)  # fmt: skip


def _text_end(lines: list[str], i: int) -> int:
    """The last line of reply text from line `i`: before thinking or a tool envelope
    that starts a line outside a code fence."""
    fences = Fences()
    for j in range(i, len(lines)):
        stripped = lines[j].strip()
        if j > i and not fences.inside and stripped.startswith(("<think>", "<tool-use ")):
            return j - 1
        fences.feed(lines[j])
    return len(lines) - 1


def _text(lines: list[str]) -> str:
    """Lines as text, without separators or the first exports' part markers at the ends."""
    kept = [ln for ln in lines if ln.strip() != _STARS]
    while kept and kept[-1].strip() in ("", SEPARATOR):
        kept.pop()
    return "\n".join(kept)
