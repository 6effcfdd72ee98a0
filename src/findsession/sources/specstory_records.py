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
  fence, or a tool's one-line failure (`Cancelled`, `Tool call timed out after 5000ms`);
- anything else is the reply the person read.

A subagent's blocks (`Agent - sidechain`) are the work of a tool, not a reply: their
text is kept as tool output. Each message's line is where its part starts.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, replace

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
#: What a tool gave, after its call: Claude Code's `Result:`, Codex's `Output:`, errors.
_OUTPUT = re.compile(r"^(?:\*\*)?(Result|Output|Error):(?:\*\*)?\s*$")
_WHOLE_FENCE = re.compile(r"^```(\w*)\n(.*)\n```$", re.DOTALL)
#: The first exports' one-line tool failures.
_FAILURES = (
    "Cancelled",
    "Tool call timed out after",
    "Error calling tool",
    "Could not find file",
    "Could not resolve URI",
)
#: A fence alone in a first-export reply part: the edit or the command it made.
_FENCE_TOOLS = {"diff": "edit_file", "bash": "run_terminal_cmd", "shell": "run_terminal_cmd",
                "sh": "run_terminal_cmd", "powershell": "run_terminal_cmd"}  # fmt: skip
#: The first exports' `<details>` summaries, by Cursor's own names for those tools.
_DETAILS = (
    ("Listed", "list_dir"),
    ("Searched codebase", "codebase_search"),
    ("Grep search", "grep_search"),
    ("Searched files", "file_search"),
    ("Searched web", "web_search"),
    ("Read file", "read_file"),
)
#: SpecStory's own markup around a part, by what opens it and what closes it.
_ENVELOPES = (("<tool-use ", "</tool-use>"), ("<think>", "</think>"), ("<details", "</details>"))
_SUMMARY = re.compile(r"<summary>(.*?)</summary>", re.DOTALL)
_TAGS = re.compile(r"</?(?:think|details|tool-use)\b[^>]*>|<summary>Thought Process</summary>")
_FILE_IN_SUMMARY = re.compile(r"\b(?:Read|Edit|Write|Create|Delete)(?: file)?: ([^\s<•]+)")
_BACKTICKED = re.compile(r"`([^`\s]*[/.][^`\s]*)`")
_FILE_TOOLS = frozenset(
    {"Read", "Write", "Edit", "MultiEdit", "NotebookEdit", "read_file", "edit_file",
     "search_replace", "write", "delete_file", "read", "edit"}
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class _Part:
    """One part of a reply block, before it becomes messages."""

    kind: MessageKind
    text: str
    line: int
    tool: str | None = None
    files: tuple[str, ...] = ()
    is_error: bool = False


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
                out.append(replace(base, kind=_said(text, after_command, block), text=cap(text,
                                   PROMPT_CAP)))  # fmt: skip
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
    replies: list[_Part] = []

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


def _parts(lines: list[str], first: int, extension: bool) -> Iterator[_Part]:
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
            yield _Part(MessageKind.THINKING, _thought(lines[i : end + 1]), at)
        elif _THINKING_FENCE.match(line):
            end = _fence_end(lines, i)
            yield _Part(MessageKind.THINKING, _thought(lines[i + 1 : end]), at)
        elif line.startswith("<tool-use "):
            end = _closing(lines, i, "</tool-use>")
            name = _TOOL_NAME.search(line)
            yield from _tool(name[1] if name else "tool", lines[i : end + 1], at)
        elif extension and line.startswith("<details"):
            end = _closing(lines, i, "</details>")
            yield from _details(lines[i : end + 1], at)
        elif (legacy := _LEGACY_TOOL.match(line)) is not None:
            yield from _tool(legacy[1].strip(), [legacy[2], *lines[i + 1 :]], at)
            return
        elif (read := _READ_FILE.match(line)) is not None:
            end = i
            path = read[1].strip()
            files = () if path == "undefined" else (path,)
            yield _Part(MessageKind.TOOL_CALL, cap(path, TOOL_INPUT_CAP), at, "read_file", files)
        elif line.startswith(_FAILURES) and not "".join(lines[i + 1 :]).strip():
            end = i
            yield _Part(MessageKind.TOOL_OUTPUT, cap(line, TOOL_OUTPUT_CAP), at, is_error=True)
        elif extension and (fenced := _alone_in_fence(lines[i:], at)) is not None:
            yield fenced
            return
        else:
            end = _text_end(lines, i)
            text = _text(lines[i : end + 1]).strip()
            if text:
                yield _Part(MessageKind.REPLY, text, at)
        i = end + 1


def _tool(name: str, lines: list[str], at: int) -> Iterator[_Part]:
    """A tool call and what it gave: the output after a `Result:`/`Output:`/`Error:`
    line, else the last fence when it is a `text` one (Claude Code's output), else
    none; the call's files from its summary, or its first path for a file tool."""
    body = [ln for ln in lines if not ln.strip().startswith(("<tool-use", "</tool-use"))]
    summary = _SUMMARY.search("\n".join(body))
    call_lines, output_lines, error = _split_output(body)
    call = _TAGS.sub("", _SUMMARY.sub(lambda m: _summary_text(m[1], name), "\n".join(call_lines)))
    files = tuple(_FILE_IN_SUMMARY.findall(summary[1])) if summary else ()
    head = "\n".join([ln for ln in call.splitlines() if ln.strip()][:2])
    if not files and name in _FILE_TOOLS and (path := _BACKTICKED.search(head)):
        files = (path[1],)  # Claude Code names the file first: `./src/app.ts`
    yield _Part(MessageKind.TOOL_CALL, cap(call.strip(), TOOL_INPUT_CAP), at, name, files)
    output = _TAGS.sub("", "\n".join(output_lines)).strip()
    if output:
        yield _Part(MessageKind.TOOL_OUTPUT, cap(output, TOOL_OUTPUT_CAP), at, name,
                    is_error=error)  # fmt: skip


def _details(lines: list[str], at: int) -> Iterator[_Part]:
    """A first-export `<details>` block: a listing or a search, named by its summary."""
    text = "\n".join(lines)
    summary = _SUMMARY.search(text)
    said = " ".join(summary[1].split()) if summary else ""
    name = next((tool for start, tool in _DETAILS if said.startswith(start)), "tool")
    yield _Part(MessageKind.TOOL_CALL, cap(said, TOOL_INPUT_CAP), at, name)
    rest = _TAGS.sub("", _SUMMARY.sub("", text)).strip()
    if rest:
        yield _Part(MessageKind.TOOL_OUTPUT, cap(rest, TOOL_OUTPUT_CAP), at, name)


def _alone_in_fence(lines: list[str], at: int) -> _Part | None:
    """The edit or command a first-export part holds when it is one fence and nothing
    else (```` ```diff ````, ```` ```bash ````)."""
    m = _WHOLE_FENCE.match("\n".join(lines).strip())
    tool = _FENCE_TOOLS.get(m[1].lower()) if m else None
    if m is None or tool is None or "\n```" in m[2]:
        return None
    return _Part(MessageKind.TOOL_CALL, cap(m[2], TOOL_INPUT_CAP), at, tool)


def _summary_text(summary: str, name: str) -> str:
    """A tool summary's words without the repeated `Tool use: **name**` and bullets."""
    text = summary.replace(f"Tool use: **{name}**", "").replace("•", " ")
    return " ".join(text.split())


def _thought(lines: list[str]) -> str:
    return cap(_TAGS.sub("", "\n".join(lines)).strip(), THINKING_CAP)


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


def _split_output(body: list[str]) -> tuple[list[str], list[str], bool]:
    """A tool's call and output lines, and whether the output is an error: split at a
    `Result:`, `Output:` or `Error:` line, else at Claude Code's output fence (its last
    ```` ```text ````), else all call."""
    for n, line in enumerate(body):
        if (m := _OUTPUT.match(line.strip())) is not None:
            return body[:n], body[n + 1 :], m[1] == "Error"
    for n in range(len(body) - 1, 0, -1):
        if body[n].strip() == "```text":
            return body[:n], [ln for ln in body[n + 1 :] if ln.strip() != "```"], False
    return body, [], False


def _text(lines: list[str]) -> str:
    """Lines as text, without separators or the first exports' part markers at the ends."""
    kept = [ln for ln in lines if ln.strip() != _STARS]
    while kept and kept[-1].strip() in ("", SEPARATOR):
        kept.pop()
    return "\n".join(kept)
