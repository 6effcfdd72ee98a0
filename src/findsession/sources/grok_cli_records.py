"""A Grok CLI session's messages as format-free records.

Each row of `messages` is one AI SDK `ModelMessage` (`grok_cli_db`):

- `user`: what the person typed, its `content` a text, or parts (`text`, and an `image`
  or `file` it attached, which have no text). A turn the agent starts itself (`/verify`)
  is written the same way, as the command typed.
- `system`: the agent's own notice put into the conversation (a background task that
  finished): harness.
- `assistant`: parts; `text` the reply, `reasoning` the thinking, `tool-call` a call
  (`toolCallId`, `toolName`, `input`).
- `tool`: parts, each `tool-result` the result of the call its `toolCallId` names. Its
  `output` is the AI SDK's: `json` wrapping the tool's own `{success, output, error,
  ...}` (failed when `success` is false; its text `output`, else `error`), `text`,
  `error-text` or `error-json` (failed), `content` (text parts), or
  `execution-denied` (failed, with its `reason`). Grok CLI tells a failure the same
  way (`src/storage/tool-results.ts`).

Each record is a line of its own, `foreign_db.line_of(session's rank, position)`; the
session's title (the one the agent generated from the first prompt) sits on line 0.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from findsession.domain import Message, MessageKind, MetaEvent, MetaKind, Problem
from findsession.sources import foreign_db, grok_cli_db
from findsession.sources.cursor import Record
from findsession.sources.epoch import iso_utc
from findsession.sources.foreign_db import Lines
from findsession.sources.jsonl import clean_text, text_of, text_or_empty
from findsession.sources.tool_args import args_text, files

PROMPT_CAP = 100_000
THINKING_CAP = 8_000
TOOL_INPUT_CAP = 2_000
TOOL_OUTPUT_CAP = 4_000
_FAILED_KINDS = frozenset(("error-text", "error-json", "execution-denied"))


def session_records(
    session: grok_cli_db.SessionRow,
    rows: list[grok_cli_db.MessageRow],
    problems: list[Problem],
) -> list[Record]:
    """Every record of one session: its messages in order, then its title."""
    lines = Lines(session.rank, session.id)
    calls: dict[str, str] = {}
    records: list[Record] = []
    for row in rows:
        message = lines.json_object(row.message, problems, f"message_json of message {row.seq}")
        if message is None:
            continue
        base = {
            "timestamp": iso_utc(row.created_at),
            "message_id": f"{session.id}:{row.seq}",
            "cwd": session.cwd,
        }
        records.extend(r for r in _records(message, lines, base, calls) if r is not None)
    title = clean_text(re.sub(r"\s+", " ", session.title or "")).strip()
    if title:
        head_line = foreign_db.line_of(session.rank, 0)
        records.append(MetaEvent(MetaKind.AI_TITLE, title, head_line, session_key=session.id))
    return records


def _records(
    message: dict[str, Any], lines: Lines, base: dict[str, Any], calls: dict[str, str]
) -> Iterator[Message | None]:
    role = message.get("role")
    content = message.get("content")
    if role == "user":
        yield lines.message(MessageKind.PROMPT, text_of(content), PROMPT_CAP, **base)
    elif role == "system":
        yield lines.message(MessageKind.HARNESS, text_of(content), PROMPT_CAP, **base)
    elif role == "assistant":
        if isinstance(content, str):
            yield lines.message(MessageKind.REPLY, content, PROMPT_CAP, **base)
            return
        for part in _parts(content):
            kind = part.get("type")
            if kind == "text":
                text = text_or_empty(part.get("text"))
                yield lines.message(MessageKind.REPLY, text, PROMPT_CAP, **base)
            elif kind == "reasoning":
                text = text_or_empty(part.get("text"))
                yield lines.message(MessageKind.THINKING, text, THINKING_CAP, **base)
            elif kind == "tool-call":
                yield _call(part, lines, base, calls)
    elif role == "tool":
        for part in _parts(content):
            if part.get("type") == "tool-result":
                yield _result(part, lines, base, calls)


def _call(
    part: dict[str, Any], lines: Lines, base: dict[str, Any], calls: dict[str, str]
) -> Message | None:
    name = text_or_empty(part.get("toolName")) or "tool"
    call_id = text_or_empty(part.get("toolCallId")) or None
    if call_id:
        calls[call_id] = name
    args = part.get("input")
    return lines.message(
        MessageKind.TOOL_CALL, args_text(args, TOOL_INPUT_CAP), TOOL_INPUT_CAP,
        tool_name=name, tool_id=call_id, files=files(args), **base,
    )  # fmt: skip


def _result(
    part: dict[str, Any], lines: Lines, base: dict[str, Any], calls: dict[str, str]
) -> Message | None:
    call_id = text_or_empty(part.get("toolCallId")) or None
    name = calls.get(call_id or "") or text_or_empty(part.get("toolName")) or "tool"
    text, failed = outcome(part.get("output"))
    return lines.message(
        MessageKind.TOOL_OUTPUT, text, TOOL_OUTPUT_CAP, tool_name=name, tool_id=call_id,
        is_error=failed, **base,
    )  # fmt: skip


def outcome(output: Any) -> tuple[str, bool]:
    """A tool result's text and whether it failed, as Grok CLI tells them."""
    if not isinstance(output, dict):
        return (output if isinstance(output, str) else ""), False
    kind = output.get("type")
    value = output.get("value")
    if "success" in output:  # the tool's own result, stored without the SDK's wrapper
        return _own(output)
    if kind == "json" and isinstance(value, dict) and "success" in value:
        return _own(value)
    if kind == "execution-denied":
        return text_or_empty(output.get("reason")) or "execution denied", True
    if kind == "content":
        return text_of(value), False
    text = value if isinstance(value, str) else _json(value)
    return text, isinstance(kind, str) and kind in _FAILED_KINDS


def _own(result: dict[str, Any]) -> tuple[str, bool]:
    """The tool's `{success, output, error}`: a failed one's error said first."""
    failed = not result.get("success")
    order = ("error", "output") if failed else ("output", "error")
    said = [text_or_empty(result.get(k)) for k in order]
    return "\n".join(t for t in said if t), failed


def _parts(content: Any) -> Iterator[dict[str, Any]]:
    for part in content if isinstance(content, list) else ():
        if isinstance(part, dict):
            yield part


def _json(value: Any) -> str:
    if value is None:
        return ""
    return json.dumps(value, ensure_ascii=False)
