"""A Nanocoder session document as format-free records, one message at a time.

Nanocoder keeps the conversation as it sends it to the model, in OpenAI's chat form
(`openai_chat`), its system prompt left out: `user` (`content`, and `images` beside it,
not read), `assistant` (`content`, `reasoning`, and `tool_calls[{id, function: {name,
arguments}}]` with the arguments as an object) and `tool` (`tool_call_id`, `name`,
`content`). No message has a time of its own: the first takes the session's
`createdAt`, the others its `lastAccessedAt` (the last save).

A `user` message is what was typed, except what Nanocoder wrote there itself (its
`conversation-loop`, `auto-diagnostics`, `llm-summariser`, `app-util` and
`prompt-processor`):

- the output of a command the person ran with `!` ("Bash command output:"), its nudges to
  a model that answered nothing ("Please continue with the task."), a malformed call's
  correction and the diagnostics it runs after edits: harness text;
- `<conversation-summary>`, the summary `/compact` (or auto-compact) left in place of
  the messages it replaced: a compaction summary;
- the files an `@file` mention inlined (`=== File: NAME ===` … a rule of `=`, or a head
  and `=== N more lines, use read_file(…) ===`): cut out of the prompt, which keeps
  `@path` where each stood, and kept as harness text.

A custom command is sent as its expanded template (`[Executing custom command: /name]`
and the text): the prompt it was sent as. A call failed when its result starts with
`Error: ` or `⚒ Validation failed` (as Nanocoder's own replay marks it), a command's
`EXIT_CODE` is not 0, the person declined it, or the tool does not exist.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from findsession.domain import Message, MessageKind, MetaEvent, MetaKind, Problem
from findsession.sources.cursor import Record
from findsession.sources.epoch import iso_utc
from findsession.sources.jsonl import cap, clean_text, text_of
from findsession.sources.openai_chat import call_records, result_record

PROMPT_CAP = 100_000
THINKING_CAP = 8_000
TOOL_INPUT_CAP = 2_000
TOOL_OUTPUT_CAP = 4_000
#: Where Nanocoder's tools name a file: `path` (`write_file`, `string_replace`,
#: `diff_edit`, `read_file`, `file_op`), `file_path` (what its replay also reads), and
#: `file_op`'s `destination`.
FILE_KEYS = ("path", "file_path", "destination")
#: What Nanocoder says to a model that gave no answer, or after compacting to retry.
_NUDGES = frozenset((
    "Please continue with the task.",
    "Please provide a summary or response based on the tool results above.",
    "You produced reasoning but no final response. Please provide your answer based on "
    "your reasoning above.",
    "Context has been compacted. Please continue with the task.",
))  # fmt: skip
_HARNESS_HEADS = (
    "Bash command output:\n```\n$ ",  # a `!command` the person ran, with its output
    "Your previous response contained a malformed tool call.",
    "Automatic diagnostics after the recent edits found issues.",
)
#: (A mechanical compaction after it cuts a long summary short, its closing tag too.)
_SUMMARY = re.compile(
    r"\A<conversation-summary>\n?(.*?)\n?(?:</conversation-summary>|\Z)", re.DOTALL
)
#: An `@file` mention's inlined block: its header, then (small file) `Path: …`, the text
#: and a rule of `=` as long as the header, or (large) a head and a line naming the rest.
_FILE_HEAD = re.compile(r"=== File: ([^\n]+?)(?: \(\d+ lines, showing first \d+\))? ===\n")
#: (What was typed after a mention follows its block's last line on the same line.)
_MORE = re.compile(r"^=== \d+ more lines, use read_file\('[^'\n]*'\) for the full file ===",
                   re.MULTILINE)  # fmt: skip
_PATH_LINE = re.compile(r"\APath: ([^\n]+)\n")
_FAILED_HEADS = (
    "Error: ",
    "⚒ Validation failed",
    "Tool execution was cancelled by the user.",
    "Execution aborted because another tool call in this request was invalid.",
    'The tool "',
)
_EXIT = re.compile(r"\A(?:Error: [^\n]*\n)?EXIT_CODE: (-?\d+)\n")


@dataclass(frozen=True, slots=True)
class Context:
    """What every message of a session shares: its folder, its start and its last save."""

    cwd: str | None = None
    created: str | None = None
    saved: str | None = None


def session_context(doc: dict[str, Any]) -> Context:
    """The folder and times a session document gives its messages."""
    folder = doc.get("workingDirectory")
    cwd = clean_text(folder) if isinstance(folder, str) and folder.strip() else None
    created = iso_utc(doc.get("createdAt"))
    return Context(cwd, created, iso_utc(doc.get("lastAccessedAt")) or created)


def document_records(doc: Any, problems: list[Problem]) -> list[Record]:
    """A session document's messages, numbered by place (from 1), then its title."""
    if not isinstance(doc, dict):
        problems.append(Problem(1, "not a JSON object", type(doc).__name__))
        return []
    messages = doc.get("messages")
    if not isinstance(messages, list):
        problems.append(Problem(1, "no messages", type(messages).__name__))
        return []
    ctx = session_context(doc)
    records: list[Record] = []
    for number, msg in enumerate(messages, 1):
        records += message_records(number, msg, ctx, problems)
    records += _title(doc, records)
    return records


def message_records(
    number: int, msg: Any, ctx: Context, problems: list[Problem] | None = None
) -> list[Record]:
    """The records of the `number`-th message."""
    if not isinstance(msg, dict):
        return []
    role = msg.get("role")
    base = {"timestamp": ctx.created if number == 1 else ctx.saved, "cwd": ctx.cwd}
    if role == "user":
        return _user(text_of(msg.get("content")), number, base)
    if role == "assistant":
        records: list[Record] = []
        thought = text_of(msg.get("reasoning"))
        if thought.strip():
            records.append(_message(MessageKind.THINKING, thought, number, THINKING_CAP, base))
        said = text_of(msg.get("content"))
        if said.strip():
            records.append(_message(MessageKind.REPLY, said, number, PROMPT_CAP, base))
        calls = msg.get("tool_calls")
        return records + call_records(calls, number, base, FILE_KEYS, TOOL_INPUT_CAP)
    if role == "tool":
        output = text_of(msg.get("content"))
        if not output.strip():
            return []
        return [result_record(msg, output, number, base, TOOL_OUTPUT_CAP, failed(output))]
    if role != "system" and problems is not None:
        problems.append(Problem(number, "unknown message role", clean_text(str(role))[:40]))
    return []


def failed(output: str) -> bool:
    """Whether a tool's result is a failed call's."""
    if output.startswith(_FAILED_HEADS):
        return True
    code = _EXIT.match(output)
    return code is not None and code.group(1) != "0"


def split_files(content: str) -> tuple[str, str]:
    """What was typed, each `@file` block Nanocoder inlined put back as `@path`, and the
    blocks themselves."""
    typed: list[str] = []
    files: list[str] = []
    at = 0
    while match := _FILE_HEAD.search(content, at):
        end = _block_end(content, match)
        if end is None:
            break
        body = content[match.end() : end]
        where = _PATH_LINE.match(body)
        typed.append(content[at : match.start()] + "@" + (where.group(1) if where else
                                                           match.group(1)))  # fmt: skip
        files.append(content[match.start() : end])
        at = end
    typed.append(content[at:])
    return "".join(typed), "\n\n".join(files)


def _block_end(content: str, head: re.Match[str]) -> int | None:
    """Where the block `head` opens ends (after its closing line), or None when no
    closing line follows."""
    if "(" in head.group(0):
        more = _MORE.search(content, head.end())
        return more.end() if more else None
    rule = "\n" + "=" * (len(head.group(0)) - 1)
    at = content.find(rule, head.end() - 1)
    while at >= 0:
        end = at + len(rule)
        if end == len(content) or content[end] != "=":
            return end
        at = content.find(rule, end)
    return None


def _user(content: str, number: int, base: dict[str, Any]) -> list[Record]:
    if not content.strip():
        return []
    summary = _SUMMARY.match(content)
    if summary:
        text = summary.group(1)
        return [_message(MessageKind.COMPACT_SUMMARY, text, number, PROMPT_CAP, base)]
    if content.strip() in _NUDGES or content.startswith(_HARNESS_HEADS):
        return [_message(MessageKind.HARNESS, content, number, PROMPT_CAP, base)]
    typed, files = split_files(content)
    records: list[Record] = []
    if typed.strip():
        records.append(_message(MessageKind.PROMPT, typed, number, PROMPT_CAP, base))
    if files:
        records.append(_message(MessageKind.HARNESS, files, number, PROMPT_CAP, base))
    return records


def _title(doc: dict[str, Any], records: list[Record]) -> list[Record]:
    """A title the person gave (`titleManuallySet`: a rename from the editor); else the
    prompt Nanocoder's own title was cut from (its last, in the CLI; the first line of
    its first, over ACP), or the last prompt when the title is not a prompt's (Nanocoder
    cuts it from the last user message, its own included)."""
    title = doc.get("title")
    title = clean_text(title).strip() if isinstance(title, str) else ""
    if title and doc.get("titleManuallySet") is True:
        return [MetaEvent(MetaKind.CUSTOM_TITLE, title[:200], 0)]
    prompts = [r.text for r in records if isinstance(r, Message) and r.kind is MessageKind.PROMPT]
    if not prompts:
        return []
    cut = title.removesuffix("...")
    chosen = next((p for p in reversed(prompts) if cut and p.startswith(cut)), prompts[-1])
    return [MetaEvent(MetaKind.LAST_PROMPT, chosen[:500], 0)]


def _message(kind: MessageKind, text: str, line: int, limit: int, base: dict[str, Any]) -> Message:
    return Message(kind, cap(clean_text(text).strip(), limit), line, **base)
