"""A gptme conversation as format-free records, one message (line) at a time.

Each line of `conversation.jsonl` is one message, `{role, content, timestamp}` and, when
set, `hide`, `pinned`, `files`, `call_id` and `metadata`. The timestamp is the writer's
local time without a zone (`datetime.now()`), read in this machine's zone. Read here:

- `user`: a prompt. gptme appends the text of each file or URL the prompt names, each in
  a block fenced with four backticks whose info string is its path (`\\n\\n````greet.py`):
  that part is not typed and is kept apart as harness text (a block from piped standard
  input, `````stdin`, is what the person gave and stays). A message that is a whole
  `<system>…</system>` is gptme's own nudge (its loop's "No tool call detected…"):
  harness text.
- `assistant`: a reply. Its tool calls are in its text: a fenced block whose info
  string starts with a tool's name (```` ```save greet.py ````, ```` ```shell ````,
  ```` ```patch path ````), or, with native tool calling, a line
  `@<tool>(<call id>): {<arguments as JSON>}`. Each becomes a call and is cut out of the
  reply; `<think>`/`<thinking>` blocks are thinking.
- `system`: a hidden one (`hide`) is gptme's own prompt and context (its system prompt,
  the workspace's files, the date): not read. A shown one after a call is that call's
  result, paired by `call_id` when it has one, else with the oldest call not yet
  answered (a markdown call has no id: each is numbered by its line and place). A
  result that starts with `Error`, or ends a command with a non-zero `Return code`, is a
  failed call's. A shown system message no call waits for is harness text.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from typing import Any

from findsession.domain import Message, MessageKind
from findsession.sources.cursor import Record
from findsession.sources.epoch import iso_utc
from findsession.sources.jsonl import cap, clean_text
from findsession.sources.tool_args import args_text

PROMPT_CAP = 100_000
THINKING_CAP = 8_000
TOOL_INPUT_CAP = 2_000
TOOL_OUTPUT_CAP = 4_000
#: Calls waiting for their result, kept across reads: more than this were never answered.
PENDING_CAP = 64
#: The block types of gptme's tools (`ToolSpec.block_types`, 0.35): a fenced block whose
#: info string starts with one of them is a call of that tool; any other is code shown.
BLOCK_TOOLS = {
    "save": "save", "append": "append", "patch": "patch", "patch_many": "patch_many",
    "shell": "shell", "ipython": "ipython", "py": "ipython", "read": "read",
    "tmux": "tmux", "complete": "complete", "todo": "todo", "memory": "memory",
    "gh": "gh", "morph": "morph", "hashline_edit": "hashline_edit", "choice": "choice",
    "clarify": "clarify", "elicit": "elicit", "form": "form", "progress": "progress",
    "vent": "vent", "watch": "watch", "mcp": "mcp", "restart": "restart",
    "request_tool_change": "request_tool_change",
}  # fmt: skip
#: Tools whose info string names a file (` ```save path `): its path argument.
PATH_TOOLS = frozenset(("save", "append", "patch", "read", "morph"))
#: What each tool's block body is, as its native call names the argument.
_BODY = {"save": "content", "append": "content", "patch": "patch", "shell": "command",
         "ipython": "code", "morph": "edit"}  # fmt: skip
_FENCE = re.compile(r"^(`{3,})(.*)$")
_NATIVE = re.compile(r"^@([^\s(){}]+)\(([\w\-:.]+)\):\s*(?=\{)", re.MULTILINE)
_THINK = re.compile(r"<(think|thinking)>(.*?)</\1>\s*", re.DOTALL)
_NUDGE = re.compile(r"\A\s*<system>.*</system>\s*\Z", re.DOTALL)
#: A block gptme attached to a prompt: four backticks and a path (not `stdin`).
_ATTACHED = re.compile(r"\n\n````([^`\n]+)\n")
_FAILED_HEAD = re.compile(r"\A\s*(?:error|failed|cannot|command timed out|command killed)\b",
                          re.IGNORECASE)  # fmt: skip
_RETURN_CODE = re.compile(r"^Return code: (-?\d+)\s*$", re.MULTILINE)
_WORKDIR = re.compile(r"\*\*Working Directory:\*\* (\S[^\n]*)|<working-directory>([^<\n]+)<")


@dataclass
class Calls:
    """What reading one conversation keeps between its lines (and, through the cursor,
    between reads): the calls not yet answered, and the last one answered (a call may
    give several results in a row)."""

    pending: list[tuple[str, str]] = field(default_factory=list)
    last: tuple[str, str] | None = None


@dataclass(frozen=True, slots=True)
class Call:
    """One tool call found in an assistant's text."""

    name: str
    args: dict[str, Any]
    call_id: str | None
    start: int
    end: int


def line_records(line: int, obj: dict[str, Any], calls: Calls, cwd: str | None) -> list[Record]:
    """The records of one message."""
    role = obj.get("role")
    content = obj.get("content")
    if not isinstance(content, str):
        content = ""
    base = {"timestamp": iso_utc(obj.get("timestamp"), naive_local=True), "cwd": cwd}
    if role == "user":
        calls.pending.clear()
        calls.last = None
        return _user(content, line, base)
    if role == "assistant":
        return _assistant(content, line, calls, base)
    if role == "system" and not obj.get("hide"):
        return _result(obj, content, line, calls, base)
    return []


def workdir(obj: dict[str, Any]) -> str | None:
    """The workspace a hidden system message of gptme's names (its system information)."""
    content = obj.get("content")
    if obj.get("role") != "system" or not isinstance(content, str):
        return None
    match = _WORKDIR.search(content)
    found = (match.group(1) or match.group(2)).strip() if match else ""
    return clean_text(found) if found else None


def _user(content: str, line: int, base: dict[str, Any]) -> list[Record]:
    if _NUDGE.match(content):
        return [_message(MessageKind.HARNESS, content, line, PROMPT_CAP, base)]
    typed, attached = split_attached(content)
    records: list[Record] = []
    if typed.strip():
        records.append(_message(MessageKind.PROMPT, typed, line, PROMPT_CAP, base))
    if attached.strip():
        records.append(_message(MessageKind.HARNESS, attached, line, PROMPT_CAP, base))
    return records


def split_attached(content: str) -> tuple[str, str]:
    """What was typed, and the files gptme attached after it. A block is taken for an
    attachment only when the typed text before it names its file (or URL)."""
    for match in _ATTACHED.finditer(content):
        where = match.group(1).strip()
        name = where.rstrip("/").rsplit("/", 1)[-1]
        if where != "stdin" and name and name in content[: match.start()]:
            return content[: match.start()], content[match.start() :]
    return content, ""


def _assistant(content: str, line: int, calls: Calls, base: dict[str, Any]) -> list[Record]:
    records: list[Record] = []
    found = tool_calls(content)
    said, thought = _said(content, found)
    if thought.strip():
        records.append(_message(MessageKind.THINKING, thought, line, THINKING_CAP, base))
    if said.strip():
        records.append(_message(MessageKind.REPLY, said, line, PROMPT_CAP, base))
    calls.pending.clear()
    calls.last = None
    for place, call in enumerate(found):
        tool_id = call.call_id or f"{line}:{place}"
        path = call.args.get("path") if call.name in PATH_TOOLS else None
        files = (clean_text(path),) if isinstance(path, str) and 0 < len(path) < 1024 else ()
        text = args_text(call.args, TOOL_INPUT_CAP)
        message = _message(MessageKind.TOOL_CALL, text, line, TOOL_INPUT_CAP, base)
        records.append(replace(message, tool_name=call.name, tool_id=tool_id, files=files))
        calls.pending.append((tool_id, call.name))
    del calls.pending[:-PENDING_CAP]
    return records


def _result(
    obj: dict[str, Any], content: str, line: int, calls: Calls, base: dict[str, Any]
) -> list[Record]:
    if not content.strip():
        return []
    call_id = clean_text(obj["call_id"]) if isinstance(obj.get("call_id"), str) else None
    answered: tuple[str, str] | None = None
    if call_id:
        answered = next((c for c in calls.pending if c[0] == call_id), None)
        answered = answered or (call_id, _str(obj.get("metadata"), "tool") or "tool")
    elif calls.pending:
        answered = calls.pending[0]
    elif calls.last is not None:
        answered = calls.last  # a further result of the call just answered
    if answered is None:
        return [_message(MessageKind.HARNESS, content, line, TOOL_OUTPUT_CAP, base)]
    if answered in calls.pending:
        calls.pending.remove(answered)
    calls.last = answered
    done = _message(MessageKind.TOOL_OUTPUT, content, line, TOOL_OUTPUT_CAP, base)
    return [replace(done, tool_id=answered[0], tool_name=answered[1], is_error=failed(content))]


def failed(output: str) -> bool:
    """Whether a result is a failed call's: an error, a refusal, a command that timed
    out, or one that ended with a non-zero return code (gptme's shell writes it last)."""
    if _FAILED_HEAD.match(output):
        return True
    codes = _RETURN_CODE.findall(output)
    return bool(codes) and codes[-1] != "0"


def tool_calls(content: str) -> list[Call]:
    """The calls in an assistant's text, in order: its tools' fenced blocks and its
    native `@tool(id): {…}` lines (outside any fenced block)."""
    blocks: list[tuple[int, int, str, str]] = list(fenced_blocks(content))
    found: list[Call] = []
    for start, end, info, body in blocks:
        words = info.split(" ", 1)
        tool = BLOCK_TOOLS.get(words[0])
        if tool is None:
            continue
        args: dict[str, Any] = {}
        rest = words[1].strip() if len(words) > 1 else ""
        if tool in PATH_TOOLS and rest:
            args["path"] = rest
        elif rest:
            args["args"] = rest
        if body or tool in _BODY:
            args[_BODY.get(tool, "content")] = body
        found.append(Call(tool, args, None, start, end))
    for match in _NATIVE.finditer(content):
        if any(s <= match.start() < e for s, e, _, _ in blocks):
            continue
        try:
            args, end = json.JSONDecoder().raw_decode(content, match.end())
        except (ValueError, RecursionError):
            continue
        if isinstance(args, dict):
            name = clean_text(match.group(1))
            found.append(Call(name, args, clean_text(match.group(2)), match.start(), end))
    return sorted(found, key=lambda c: c.start)


def fenced_blocks(text: str) -> list[tuple[int, int, str, str]]:
    """Each top-level fenced block of `text`: its start and end offsets, its info string
    and its body. As gptme reads them: a fence line opens a block, a fence line with an
    info string inside it opens a nested one, and a bare fence of at least the opening's
    length closes the innermost (a block never closed runs to the end)."""
    out: list[tuple[int, int, str, str]] = []
    lines = text.split("\n")
    offsets = [0]
    for piece in lines:
        offsets.append(offsets[-1] + len(piece) + 1)
    i = 0
    while i < len(lines):
        opening = _FENCE.match(lines[i])
        if not opening:
            i += 1
            continue
        fence, info = opening.group(1), opening.group(2).strip()
        depth, j = 1, i + 1
        while j < len(lines):
            inner = _FENCE.match(lines[j])
            if inner and inner.group(2).strip():
                depth += 1
            elif inner and len(inner.group(1)) >= (len(fence) if depth == 1 else 3):
                depth -= 1
                if depth == 0:
                    break
            j += 1
        body = "\n".join(lines[i + 1 : j])
        out.append((offsets[i], min(offsets[min(j, len(lines) - 1) + 1], len(text)), info, body))
        i = j + 1
    return out


def _said(content: str, found: list[Call]) -> tuple[str, str]:
    """The reply's text without its calls, and its thinking."""
    kept: list[str] = []
    at = 0
    for call in found:
        kept.append(content[at : call.start])
        at = max(at, call.end)
    kept.append(content[at:])
    said = "".join(kept)
    thoughts = [m.group(2).strip() for m in _THINK.finditer(said)]
    return _THINK.sub("", said).strip(), "\n\n".join(t for t in thoughts if t)


def _message(kind: MessageKind, text: str, line: int, limit: int, base: dict[str, Any]) -> Message:
    return Message(kind, cap(clean_text(text).strip(), limit), line, **base)


def _str(value: Any, key: str) -> str | None:
    found = value.get(key) if isinstance(value, dict) else None
    return clean_text(found) if isinstance(found, str) and found else None
