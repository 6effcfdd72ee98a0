"""A Hermes Agent conversation's rows as format-free records.

Rows are OpenAI-shaped chat messages. A `user` row is what the person typed, or what
their chat platform sent, unless Hermes wrote it (`agent/conversation_compression.py`
tells the same apart): a compaction's summary (`[CONTEXT COMPACTION …`, `[CONTEXT
SUMMARY]:`, or its merged form after `[END OF PRIOR CONTEXT …]`), a subagent's or a
background process's report (`[ASYNC DELEGATION …`, `[IMPORTANT: Background process …`),
a recovery nudge (`[System: …`), the task list kept across a compaction, a memory
review's instructions. Some rows hold the person's words after Hermes' own: a scheduled
job's prompt after its `[IMPORTANT: You are running as a scheduled cron job …]`, a chat
message after the gateway's `[System note: …]` or the `[Replying to: "…"]` it quotes,
the instruction given with a `/skill` after the skill's text (kept as `/<skill>
<instruction>`, what was typed); recalled memory (`<memory-context>`) is cut out. What a
gateway only overheard in a group chat (`observed`) opened no turn and is kept aside.

An `assistant` row's `tool_calls` are calls; each `tool` row answers one by
`tool_call_id`, its text JSON (`{"output", "exit_code", "error"}` from the terminal,
`{"error": …}` or `"success": false` from a tool that failed, as Hermes' own display
reads them). A `/steer` Hermes appended to a tool's result (`[OUT-OF-BAND USER MESSAGE
…]`) is the person's, steering the turn. Reasoning is thinking.

Copies are not read twice: a compaction starts the kept messages again around its
summary (in the same session since 0.19, in a continuation before), and a `/branch`
starts with the parent's messages so far. Each record is a line of its own,
`foreign_db.line_of(rank, position)`; the title and the parent sit on line 0.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from findsession.domain import Message, MessageKind, MetaEvent, MetaKind, Problem
from findsession.sources import foreign_db
from findsession.sources.cursor import Record
from findsession.sources.epoch import epoch_iso
from findsession.sources.foreign_db import Lines
from findsession.sources.hermes_db import Conversation, MessageRow
from findsession.sources.jsonl import clean_text, text_of
from findsession.sources.openai_chat import calls_of
from findsession.sources.tool_args import args_text, files, parsed

PROMPT_CAP = 100_000
THINKING_CAP = 8_000
TOOL_INPUT_CAP = 2_000
TOOL_OUTPUT_CAP = 4_000
#: How Hermes stores a message whose content is a list of parts (`hermes_state`).
_JSON_CONTENT = "\x00json:"
_SUMMARY = ("[CONTEXT COMPACTION", "[CONTEXT SUMMARY]:")
_MERGED = "[END OF PRIOR CONTEXT — COMPACTION SUMMARY BELOW]"
#: User rows Hermes wrote whole.
_HARNESS = (
    "[ASYNC DELEGATION",
    "[IMPORTANT: Background process ",
    "[IMPORTANT: MCP servers have been reloaded",
    "[System: ",
    "[Your active task list was preserved",
    "[PRIOR CONTEXT",
    "Review the conversation above and update the skill library",
    "Review the conversation above and consider saving to memory",
)
#: Hermes' words before the person's in one row, each ended by its closing text.
_LEADS = (
    ("[IMPORTANT: You are running as a scheduled cron job", "]\n\n"),
    ("[SYSTEM: You are running as a scheduled cron job", "]\n\n"),
    ("[System note:", "]\n\n"),
    ('[Replying to: "', '"]\n\n'),
)
_SKILL = re.compile(r'\A\[IMPORTANT: The user has invoked the "([^"\n]{1,200})" skill')
_SKILL_SAID = "The user has provided the following instruction alongside the skill invocation: "
_BUNDLE_SAID = "\nUser instruction: "
_RUNTIME_NOTE = "\n\n[Runtime note:"
_MEMORY = re.compile(
    r"<\s*memory-context\s*>[\s\S]*?</\s*memory-context\s*>"
    r"|\[System note:\s*The following is recalled memory context,[^\]]*\]\s*",
    re.IGNORECASE,
)
#: A local model's reasoning at the head of its reply (Ollama's, Qwen3's), as Hermes finds
#: it (`agent/conversation_loop`).
_THINK = re.compile(r"\A\s*<(think|thinking|reasoning)>([\s\S]*?)</\1>\s*")
_STEER = "\n\n[OUT-OF-BAND USER MESSAGE — a direct message from the user, delivered mid-turn"
_STEER_END = "[/OUT-OF-BAND USER MESSAGE]"
#: The sources of a session started in the terminal; any other (a chat platform, a
#: scheduled job, the API server) is where it came from.
_LOCAL = frozenset({"cli", "tui", "subagent", ""})


def conversation_records(
    conversation: Conversation,
    rows: list[MessageRow],
    before: list[MessageRow],
    cwd: str | None,
    problems: list[Problem],
) -> list[Record]:
    """Every record of one conversation, then its title and parent on line 0."""
    lines = Lines(conversation.rank, conversation.key)
    records: list[Record] = []
    calls: dict[str, str] = {}
    unknown: dict[str, int] = {}
    for row in _kept(rows, before):
        base = {"timestamp": epoch_iso(row.when), "message_id": str(row.id), "cwd": cwd}
        if row.role == "user":
            records.extend(_user(row, lines, base))
        elif row.role == "assistant":
            records.extend(_assistant(row, lines, base, calls, problems))
        elif row.role == "tool":
            records.extend(_tool(row, lines, base, calls))
        elif row.role == "system":
            records.append(lines.message(MessageKind.HARNESS, _text(row), PROMPT_CAP, **base))
        elif row.role != "session_meta":  # the gateway's bookkeeping, no text
            unknown[str(row.role)] = unknown.get(str(row.role), 0) + 1
    for role, count in unknown.items():
        line = foreign_db.line_of(conversation.rank, 0)
        problems.append(Problem(line, "unknown message role", f"{role} ({count})"))
    records.extend(_meta(conversation))
    return [r for r in records if r is not None]


def _kept(rows: list[MessageRow], before: list[MessageRow]) -> list[MessageRow]:
    """The rows that are the conversation: not taken back, not a copy of a message
    given already (the parent's messages a branch starts with; the messages a
    compaction kept, which stand next to its summary, before or after it)."""
    live = [r for r in rows if not r.rewound]
    base = {_print(r) for r in before}
    start = 0
    while start < len(live) and _print(live[start]) in base:
        start += 1
    live = live[start:]
    seen: set[tuple[Any, ...]] = set()
    again = []
    for row in live:
        mark = _print(row)
        again.append(mark in seen)
        seen.add(mark)
    dropped = [False] * len(live)
    for at, row in enumerate(live):
        if not _is_summary(_text(row)):
            continue
        dropped[at] = again[at]
        for step in (-1, 1):
            near = at + step
            while 0 <= near < len(live) and again[near]:
                dropped[near] = True
                near += step
    return [row for row, gone in zip(live, dropped, strict=True) if not gone]


def _print(row: MessageRow) -> tuple[Any, ...]:
    """What two copies of one message share (a branch's copy is stripped, as Hermes
    reloads it)."""
    return (row.role, _text(row).strip(), row.call_id, tuple(_call_ids(row.calls)))


def _call_ids(calls: str | None) -> list[str]:
    return [c.id or "" for c in calls_of(calls)]


def _user(row: MessageRow, lines: Lines, base: dict[str, Any]) -> Iterator[Message | None]:
    text = _MEMORY.sub("", _text(row))
    if row.observed:
        yield lines.message(MessageKind.HARNESS, text, PROMPT_CAP, **base)
        return
    if _is_summary(text):
        yield lines.message(MessageKind.COMPACT_SUMMARY, _summary(text), PROMPT_CAP, **base)
        return
    if text.lstrip().startswith(_HARNESS):
        yield lines.message(MessageKind.HARNESS, text, PROMPT_CAP, **base)
        return
    skill = _SKILL.match(text)
    if skill:
        said = _skill_instruction(text)
        yield lines.message(MessageKind.HARNESS, text, PROMPT_CAP, **base)
        typed = f"/{skill.group(1)} {said}" if said else f"/{skill.group(1)}"
        yield lines.message(MessageKind.PROMPT, typed, PROMPT_CAP, **base)
        return
    for lead, end in _LEADS:
        if not text.startswith(lead):
            continue
        cut = text.find(end)
        if cut < 0:
            yield lines.message(MessageKind.HARNESS, text, PROMPT_CAP, **base)
            return
        yield lines.message(MessageKind.HARNESS, text[: cut + len(end)], PROMPT_CAP, **base)
        text = text[cut + len(end) :]
    yield lines.message(MessageKind.PROMPT, text, PROMPT_CAP, **base)


def _skill_instruction(text: str) -> str:
    """The instruction typed with a `/skill` (a bundle's comes before its skills, one
    skill's after its text), as Hermes itself recovers it (`agent/skill_commands`)."""
    if " skill bundle," in text.split("\n", 1)[0]:
        at = text.find(_BUNDLE_SAID)
        said = text[at + len(_BUNDLE_SAID) :] if at >= 0 else ""
        return said.split("\n\n[Loaded as part of the ", 1)[0].strip()
    at = text.rfind(_SKILL_SAID)
    said = text[at + len(_SKILL_SAID) :] if at >= 0 else ""
    return said.split(_RUNTIME_NOTE, 1)[0].strip()


def _assistant(
    row: MessageRow,
    lines: Lines,
    base: dict[str, Any],
    calls: dict[str, str],
    problems: list[Problem],
) -> Iterator[Message | None]:
    text = _MEMORY.sub("", _text(row))
    thought = _THINK.match(text)
    if row.reasoning:
        yield lines.message(MessageKind.THINKING, row.reasoning, THINKING_CAP, **base)
    elif thought:
        yield lines.message(MessageKind.THINKING, thought.group(2), THINKING_CAP, **base)
    if thought:
        text = text[thought.end() :]
    if _is_summary(text):
        yield lines.message(MessageKind.COMPACT_SUMMARY, _summary(text), PROMPT_CAP, **base)
    else:
        yield lines.message(MessageKind.REPLY, text, PROMPT_CAP, **base)
    if row.calls and not calls_of(row.calls):
        line = foreign_db.line_of(lines.rank, lines.position)
        problems.append(Problem(line, "malformed JSON", f"tool_calls of message {row.id}"))
    for name, args, call_id in calls_of(row.calls):
        if call_id:
            calls[call_id] = name
        yield lines.message(
            MessageKind.TOOL_CALL, args_text(args, TOOL_INPUT_CAP), TOOL_INPUT_CAP,
            tool_name=name, tool_id=call_id, files=files(args), **base,
        )  # fmt: skip


def _tool(
    row: MessageRow, lines: Lines, base: dict[str, Any], calls: dict[str, str]
) -> Iterator[Message | None]:
    text = _text(row)
    steer = None
    at = text.find(_STEER)
    if at >= 0:
        text, rest = text[:at], text[at:].split("\n", 3)
        steer = rest[3] if len(rest) > 3 else ""
        steer = steer.removesuffix(_STEER_END).strip()
    name = row.tool or calls.get(row.call_id or "") or "tool"
    output, failed = _result(name, text)
    yield lines.message(
        MessageKind.TOOL_OUTPUT, output, TOOL_OUTPUT_CAP,
        tool_name=name, tool_id=row.call_id, is_error=failed, **base,
    )  # fmt: skip
    if steer:
        yield lines.message(MessageKind.STEER, steer, PROMPT_CAP, **base)


def _result(name: str, text: str) -> tuple[str, bool]:
    """A tool's result as it reads (a command's output, a file's text, an error), and
    whether it failed (Hermes' `agent/display._detect_tool_failure`)."""
    data = parsed(text.strip())
    if not isinstance(data, dict):
        return text, text.lstrip().startswith("Error")
    error = data.get("error")
    failed = bool(error) or data.get("success") is False
    if "exit_code" in data:
        code = data.get("exit_code")
        failed = code is not None and code != 0
    output = data.get("output") if isinstance(data.get("output"), str) else None
    if output is None and isinstance(data.get("content"), str):
        output = data["content"]
    if isinstance(error, str) and error.strip() and output is not None:
        output = f"{output}\n{error}"
    if output is None or (failed and not output.strip()):
        return text, failed  # a failure that printed nothing is still a failure
    return output, failed


def _meta(conversation: Conversation) -> Iterator[MetaEvent]:
    """Line 0: the title Hermes gave the conversation, and the conversation a subagent
    was started from. Hermes' title model names a session after its first exchange and
    `/title` renames it in the same column: which of the two gave it cannot be told, and
    the title model gives most. A session that did not start in the terminal says where
    it came from after its title (`… (telegram)`), as Hermes' session list does in a
    column of its own: the title is what every list of findsession shows."""
    head = foreign_db.line_of(conversation.rank, 0)
    title = clean_text(re.sub(r"\s+", " ", conversation.title or "")).strip()
    source = clean_text(conversation.source or "").strip()
    if title and source not in _LOCAL:
        title = f"{title} ({source})"
    if title:
        yield MetaEvent(MetaKind.AI_TITLE, title, head, session_key=conversation.key)
    if conversation.parent and conversation.parent != conversation.key:
        at = foreign_db.parent_line(conversation.rank)
        yield MetaEvent(MetaKind.PARENT, conversation.parent, at, session_key=conversation.key)


def _is_summary(text: str) -> bool:
    head = text.lstrip()
    if _MERGED in head:
        head = head.split(_MERGED, 1)[1].lstrip()
    return head.startswith(_SUMMARY)


def _summary(text: str) -> str:
    """A compaction's summary without the kept text a merged one carries before it."""
    return text.split(_MERGED, 1)[1] if _MERGED in text else text


def _text(row: MessageRow) -> str:
    """A row's text: its content, or the text parts of a list of parts."""
    content = row.content
    if isinstance(content, bytes):
        content = content.decode("utf-8", "replace")
    if isinstance(content, str) and content.startswith(_JSON_CONTENT):
        try:
            content = json.loads(content[len(_JSON_CONTENT) :])
        except (ValueError, RecursionError):
            return content
    return text_of(content)
