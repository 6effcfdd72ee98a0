"""A tool call in a SpecStory export, in each era's markup: what the call was, what the
tool gave, and the file it touched.

Since late 2025 a `<tool-use data-tool-type=… data-tool-name=…>` envelope holds a
`<summary>` and the call's input, then what it gave after `**Result:**`, `Output:`,
`Error:` or, from Claude Code, in a last ```` ```text ```` fence; in mid-2025 a `Tool use:
**Name**` line did, with the same `Result:` markers; the first exports had `<details>`
listings and searches (named here by Cursor's own names for those tools), and an edit or
a command alone in a fence.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from findsession.domain import MessageKind
from findsession.sources.claude_code_records import TOOL_INPUT_CAP, TOOL_OUTPUT_CAP
from findsession.sources.jsonl import cap

#: What a tool gave, after its call: Claude Code's `Result:`, Codex's `Output:`, errors.
_OUTPUT = re.compile(r"^(?:\*\*)?(Result|Output|Error):(?:\*\*)?\s*$")
_WHOLE_FENCE = re.compile(r"^```(\w*)\n(.*)\n```$", re.DOTALL)
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
_SUMMARY = re.compile(r"<summary>(.*?)</summary>", re.DOTALL)
TAGS = re.compile(r"</?(?:think|details|tool-use)\b[^>]*>|<summary>Thought Process</summary>")
_FILE_IN_SUMMARY = re.compile(r"\b(?:Read|Edit|Write|Create|Delete)(?: file)?: ([^\s<•]+)")
_BACKTICKED = re.compile(r"`([^`\s]*[/.][^`\s]*)`")
_FILE_TOOLS = frozenset(
    {"Read", "Write", "Edit", "MultiEdit", "NotebookEdit", "read_file", "edit_file",
     "search_replace", "write", "delete_file", "read", "edit"}
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Part:
    """One part of a reply block, before it becomes messages."""

    kind: MessageKind
    text: str
    line: int
    tool: str | None = None
    files: tuple[str, ...] = ()
    is_error: bool = False


def tool(name: str, lines: list[str], at: int) -> Iterator[Part]:
    """A tool call and what it gave: the output after a `Result:`/`Output:`/`Error:`
    line, else the last fence when it is a `text` one (Claude Code's output), else
    none; the call's files from its summary, or its first path for a file tool."""
    body = [ln for ln in lines if not ln.strip().startswith(("<tool-use", "</tool-use"))]
    summary = _SUMMARY.search("\n".join(body))
    call_lines, output_lines, error = _split_output(body)
    call = TAGS.sub("", _SUMMARY.sub(lambda m: _summary_text(m[1], name), "\n".join(call_lines)))
    files = tuple(_FILE_IN_SUMMARY.findall(summary[1])) if summary else ()
    head = "\n".join([ln for ln in call.splitlines() if ln.strip()][:2])
    if not files and name in _FILE_TOOLS and (path := _BACKTICKED.search(head)):
        files = (path[1],)  # Claude Code names the file first: `./src/app.ts`
    yield Part(MessageKind.TOOL_CALL, cap(call.strip(), TOOL_INPUT_CAP), at, name, files)
    output = TAGS.sub("", "\n".join(output_lines)).strip()
    if output:
        yield Part(MessageKind.TOOL_OUTPUT, cap(output, TOOL_OUTPUT_CAP), at, name,
                    is_error=error)  # fmt: skip


def details(lines: list[str], at: int) -> Iterator[Part]:
    """A first-export `<details>` block: a listing or a search, named by its summary."""
    text = "\n".join(lines)
    summary = _SUMMARY.search(text)
    said = " ".join(summary[1].split()) if summary else ""
    name = next((tool for start, tool in _DETAILS if said.startswith(start)), "tool")
    yield Part(MessageKind.TOOL_CALL, cap(said, TOOL_INPUT_CAP), at, name)
    rest = TAGS.sub("", _SUMMARY.sub("", text)).strip()
    if rest:
        yield Part(MessageKind.TOOL_OUTPUT, cap(rest, TOOL_OUTPUT_CAP), at, name)


def alone_in_fence(lines: list[str], at: int) -> Part | None:
    """The edit or command a first-export part holds when it is one fence and nothing
    else (```` ```diff ````, ```` ```bash ````)."""
    m = _WHOLE_FENCE.match("\n".join(lines).strip())
    tool = _FENCE_TOOLS.get(m[1].lower()) if m else None
    if m is None or tool is None or "\n```" in m[2]:
        return None
    return Part(MessageKind.TOOL_CALL, cap(m[2], TOOL_INPUT_CAP), at, tool)


def _summary_text(summary: str, name: str) -> str:
    """A tool summary's words without the repeated `Tool use: **name**` and bullets."""
    text = summary.replace(f"Tool use: **{name}**", "").replace("•", " ")
    return " ".join(text.split())


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
