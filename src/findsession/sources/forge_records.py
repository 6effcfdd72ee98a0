"""A Forge conversation's context as format-free records.

`context` (`forge_db`) is a `ContextRecord`: `{conversation_id, initiator?, messages,
tools, ...}`. Each entry of `messages` is `{message, usage?}`, or, as older rows hold
it, the message alone; a message is one of:

- `text`: `{role, content, raw_content?, tool_calls?, reasoning_details?, droppable?}`,
  `role` `System`, `User` or `Assistant`.
  - `System`: the agent's instructions; one of them holds the folder Forge ran in
    (`<current_working_directory>`), which is the session's folder. Not indexed.
  - `User` with `raw_content`: what the person typed. `content` is that text put into
    the agent's template (`<task>…</task>`, `<feedback>…</feedback>` with the date);
    `raw_content` keeps it as typed, `{"Text": …}`, or `{"Command": {name, parameters,
    template}}` for a command (read as `/<name> <parameters>`, as typed). A row written
    before `raw_content` existed is read from its `<task>` or `<feedback>` wrapper.
  - any other `User` text is Forge's own (a file attached with `@[…]`, piped input,
    the task list put back on resume, a retry's or a tool error's reminder, the
    summary a compaction put in place of the messages it replaced): harness, the
    compaction's summary a compact summary.
  - `Assistant`: `content` the reply, `reasoning_details[].text` thinking, `tool_calls`
    `[{name, call_id, arguments}]` calls (`arguments` an object, or a text the model
    sent that did not parse).
- `tool`: `{name, call_id, output: {is_error, values}}`, the result of one call;
  `is_error` marks a failed one. `values` are `{"text": …}`, `{"aI": {value,
  conversation_id}}` (a subagent's answer: the conversation it ran in is that
  subagent's session), `{"image": …}`, `"empty"`, and older rows' `markdown`,
  `fileDiff` and `pair`.
- `image`: an image the person attached; no text.

Forge keeps no time per message: messages up to the last typed prompt take the
conversation's `created_at`, that prompt and what follows it the time its request
began (`metrics.started_at`), and the last message the row's `updated_at`. Each record
is a line of its own, `foreign_db.line_of(rank, position)`; the title sits on line 0,
a subagent's parent on `foreign_db.parent_line`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from findsession.domain import Message, MessageKind, MetaEvent, MetaKind, Problem
from findsession.sources import foreign_db
from findsession.sources.cursor import Record
from findsession.sources.epoch import iso_utc
from findsession.sources.foreign_db import Lines
from findsession.sources.forge_db import ConversationRow
from findsession.sources.jsonl import clean_text, text_or_empty
from findsession.sources.tool_args import args_text, files

PROMPT_CAP = 100_000
THINKING_CAP = 8_000
TOOL_INPUT_CAP = 2_000
TOOL_OUTPUT_CAP = 4_000
_CWD = re.compile(r"<current_working_directory>([^<\n]+)</current_working_directory>")
_WRAPPED = re.compile(r"\A\s*<(task|feedback)>(.*?)</\1>", re.S)
_SUMMARY = "Use the following summary frames"
#: The argument names Forge's tool catalog takes as aliases (`serde(alias)`), by tool.
_ALIASES = {
    "patch": {"path": "file_path", "search": "old_string", "content": "new_string"},
    "read": {"path": "file_path"},
    "write": {"path": "file_path"},
}
_ORDER = ("file_path", "old_string", "new_string")


def conversation_records(
    row: ConversationRow, context: str | None, metrics: str | None, problems: list[Problem]
) -> list[Record]:
    """Every record of one conversation: its messages in order, its title and parent."""
    lines = Lines(row.rank, row.id)
    entries = _entries(row, context, problems)
    cwd = _cwd(entries)
    messages: list[Message] = []
    calls: dict[str, str] = {}
    for index, entry in enumerate(entries):
        message = _message(entry)
        if message is None:
            at = foreign_db.line_of(row.rank, lines.position + 1)
            why = f"message {index} of conversation {row.id}"
            problems.append(Problem(at, "unknown message shape", why))
            continue
        base = {"message_id": f"{row.id}:{index}", "cwd": cwd}
        messages.extend(m for m in _records(message, lines, base, calls) if m is not None)
    records: list[Record] = [*_timed(messages, row, _started(metrics)), *_meta(row)]
    return records


def _entries(row: ConversationRow, context: str | None, problems: list[Problem]) -> list[Any]:
    """The context's messages, or none (with a problem) when it is no JSON object."""
    try:
        data = json.loads(context) if context is not None else None
    except (ValueError, RecursionError):
        data = None
    if isinstance(data, dict):
        messages = data.get("messages")
        return messages if isinstance(messages, list) else []
    line = foreign_db.line_of(row.rank, 1)
    problems.append(Problem(line, "malformed JSON", f"context of conversation {row.id}"))
    return []


def _message(entry: Any) -> tuple[str, dict[str, Any]] | None:
    """`(kind, body)` of one entry (`text`, `tool` or `image`), or None for a shape
    this reader does not know."""
    if isinstance(entry, dict) and isinstance(entry.get("message"), dict):
        entry = entry["message"]
    if not isinstance(entry, dict):
        return None
    kinds = [k for k in ("text", "tool", "image") if isinstance(entry.get(k), dict)]
    return (kinds[0], entry[kinds[0]]) if len(kinds) == 1 else None


def _cwd(entries: list[Any]) -> str | None:
    """The folder Forge ran in, as its system prompt says it."""
    for entry in entries:
        message = _message(entry)
        if message and message[0] == "text" and message[1].get("role") == "System":
            found = _CWD.search(text_or_empty(message[1].get("content")))
            if found:
                return found.group(1).strip()
    return None


def _records(
    message: tuple[str, dict[str, Any]], lines: Lines, base: dict[str, Any], calls: dict[str, str]
) -> Iterator[Message | None]:
    kind, body = message
    if kind == "tool":
        yield _result(body, lines, base, calls)
        return
    if kind != "text":
        return  # an image: no text
    role = body.get("role")
    content = text_or_empty(body.get("content"))
    if role == "User":
        yield _user(body, content, lines, base)
    elif role == "Assistant":
        thinking = [text_or_empty(d.get("text")) for d in _dicts(body.get("reasoning_details"))]
        yield lines.message(MessageKind.THINKING, "\n".join(thinking), THINKING_CAP, **base)
        yield lines.message(MessageKind.REPLY, content, PROMPT_CAP, **base)
        for call in _dicts(body.get("tool_calls")):
            yield _call(call, lines, base, calls)


def _user(body: dict[str, Any], content: str, lines: Lines, base: dict[str, Any]) -> Message | None:
    typed = _typed(body.get("raw_content"))
    if typed is None and not body.get("droppable"):
        wrapped = _WRAPPED.match(content)
        typed = wrapped.group(2).strip() if wrapped else None
    if typed is not None:
        return lines.message(MessageKind.PROMPT, typed, PROMPT_CAP, **base)
    if content.startswith(_SUMMARY):
        return lines.message(MessageKind.COMPACT_SUMMARY, content, PROMPT_CAP, **base)
    return lines.message(MessageKind.HARNESS, content, PROMPT_CAP, **base)


def _typed(raw: Any) -> str | None:
    """What the person typed, from a message's `raw_content` (an `EventValue`)."""
    if not isinstance(raw, dict):
        return None
    if isinstance(raw.get("Text"), str):
        return text_or_empty(raw["Text"])
    command = raw.get("Command")
    if isinstance(command, dict) and isinstance(command.get("name"), str):
        params = [text_or_empty(p) for p in command.get("parameters") or () if isinstance(p, str)]
        return " ".join(["/" + text_or_empty(command["name"]).lstrip("/"), *params])
    return None


def _call(
    call: dict[str, Any], lines: Lines, base: dict[str, Any], calls: dict[str, str]
) -> Message | None:
    name = text_or_empty(call.get("name")) or "tool"
    call_id = text_or_empty(call.get("call_id")) or None
    if call_id:
        calls[call_id] = name
    args = _aliased(name, call.get("arguments"))
    return lines.message(
        MessageKind.TOOL_CALL, args_text(args, TOOL_INPUT_CAP), TOOL_INPUT_CAP,
        tool_name=name, tool_id=call_id, files=files(args), **base,
    )  # fmt: skip


def _aliased(name: str, args: Any) -> Any:
    """A call's arguments under the names Forge reads them by today: its `patch` took
    `path`, `search` and `content` (and `operation`) before `file_path`, `old_string` and
    `new_string`, and its tool catalog still accepts the old names as aliases of the
    new, as for `read`'s and `write`'s `path`."""
    renames = _ALIASES.get(name)
    if not renames or not isinstance(args, dict) or any(new in args for new in renames.values()):
        return args
    # The path first, then the old text and the new, as a call of today's names reads.
    named = sorted((renames[k], v) for k, v in args.items() if k in renames)
    named.sort(key=lambda pair: _ORDER.index(pair[0]))
    return {**dict(named), **{k: v for k, v in args.items() if k not in renames}}


def _result(
    body: dict[str, Any], lines: Lines, base: dict[str, Any], calls: dict[str, str]
) -> Message | None:
    call_id = text_or_empty(body.get("call_id")) or None
    name = text_or_empty(body.get("name")) or calls.get(call_id or "") or "tool"
    output = body.get("output") if isinstance(body.get("output"), dict) else {}
    values = output.get("values") if isinstance(output.get("values"), list) else []
    text = "\n".join(t for t in (value_text(v) for v in values) if t)
    return lines.message(
        MessageKind.TOOL_OUTPUT, text, TOOL_OUTPUT_CAP, tool_name=name, tool_id=call_id,
        is_error=output.get("is_error") is True, **base,
    )  # fmt: skip


def value_text(value: Any) -> str:
    """The text of one `ToolValueRecord` (an image or `empty` has none)."""
    if not isinstance(value, dict) or len(value) != 1:
        return ""
    [(kind, inner)] = value.items()
    if kind in ("text", "markdown"):
        return text_or_empty(inner)
    if kind in ("aI", "ai", "AI") and isinstance(inner, dict):
        return text_or_empty(inner.get("value"))
    if kind == "fileDiff" and isinstance(inner, dict):
        return f"[File diff: {text_or_empty(inner.get('path'))}]"
    if kind == "pair" and isinstance(inner, list) and inner:
        return value_text(inner[0])  # the model's half; the second was for display
    return ""


def _started(metrics: str | None) -> str | None:
    """When the conversation's last request began (`metrics.started_at`)."""
    try:
        data = json.loads(metrics) if metrics else None
    except (ValueError, RecursionError):
        return None
    return iso_utc(data.get("started_at")) if isinstance(data, dict) else None


def _timed(records: list[Message], row: ConversationRow, started: str | None) -> list[Message]:
    """The records with the times the row gives them (see the module's docstring)."""
    created = iso_utc(row.created_at)
    updated = iso_utc(row.updated_at) or started or created
    prompts = [i for i, r in enumerate(records) if r.kind is MessageKind.PROMPT]
    last = prompts[-1] if prompts else len(records)
    late = started if started and (created is None or started >= created) else updated
    out: list[Message] = []
    for i, record in enumerate(records):
        when = created if i < last else late
        if i == len(records) - 1 and i > 0:
            when = updated
        out.append(replace(record, timestamp=when))
    return out


def _meta(row: ConversationRow) -> Iterator[MetaEvent]:
    """The title (Forge's generated one, or a subagent's task) and a subagent's parent."""
    title = clean_text(re.sub(r"\s+", " ", row.title or "")).strip()
    if title:
        yield MetaEvent(
            MetaKind.AI_TITLE, title, foreign_db.line_of(row.rank, 0), session_key=row.id
        )
    if row.parent and row.parent != row.id:
        at = foreign_db.parent_line(row.rank)
        yield MetaEvent(MetaKind.PARENT, row.parent, at, session_key=row.id)


def _dicts(value: Any) -> Iterator[dict[str, Any]]:
    for item in value if isinstance(value, list) else ():
        if isinstance(item, dict):
            yield item
