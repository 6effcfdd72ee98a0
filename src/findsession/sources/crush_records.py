"""A Crush session's rows as format-free records.

A message row holds `parts`, a JSON list of `{type, data}`: `text`, `reasoning
{thinking}`, `tool_call {id, name, input (a JSON string)}`, `tool_result {tool_call_id,
name, content, is_error}` (in rows of role `tool`), `finish`, `image_url`, `binary` and,
for a `!command` typed in the prompt, `shell_command {command, output, exit_code}`. What
a `user` row says in `text` is what the person typed (or, in a sub-agent's session, what
its parent asked); an assistant row flagged `is_summary_message`, or the one the
session's `summary_message_id` names (the first OpenCode's way), is the summary of the
conversation so far.

Each message is a line of its own (`foreign_db.line_of(session rank, position)`); the
session's title and its parent sit on the session's line 0.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from findsession.domain import Message, MessageKind, MetaEvent, MetaKind, Problem
from findsession.sources import foreign_db
from findsession.sources.crush_db import MessageRow, SessionRow
from findsession.sources.cursor import Record
from findsession.sources.epoch import epoch_iso
from findsession.sources.jsonl import cap, clean_text
from findsession.sources.tool_args import args_text, files

PROMPT_CAP = 100_000
THINKING_CAP = 8_000
TOOL_INPUT_CAP = 2_000
TOOL_OUTPUT_CAP = 4_000
#: Titles Crush (and the first OpenCode) give a session before its title model has
#: answered, and a sub-agent's session for good.
PLACEHOLDER_TITLES = frozenset(
    {"New Session", "Untitled Session", "Generate a title", "New Agent Session", ""}
)
#: Part kinds with nothing to index (the end of a reply, an attached image or file).
_QUIET = frozenset({"finish", "image_url", "binary"})


def session_records(
    row: SessionRow,
    messages: list[MessageRow],
    parent: str | None,
    cwd: str | None,
    problems: list[Problem],
) -> list[Record]:
    """Every message of one session, then its title and parent on its line 0."""
    records: list[Record] = []
    calls: dict[str, str] = {}  # tool call id -> tool name, for the results
    unknown: dict[str, list[int]] = {}
    for position, msg in enumerate(messages, 1):
        line = foreign_db.line_of(row.rank, position)
        parts = _parts(msg.parts)
        if parts is None:
            preview = msg.parts[:80] if isinstance(msg.parts, str) else type(msg.parts).__name__
            problems.append(
                Problem(line, "malformed JSON", f"parts of message {msg.id}: {preview}")
            )
            continue
        base: dict[str, Any] = {
            "line": line,
            "timestamp": epoch_iso(msg.created_at) or epoch_iso(row.created_at),
            "cwd": cwd,
            "session_key": row.id,
            "uuid": msg.id,
            "message_id": msg.id,
        }
        if msg.role in ("user", "assistant", "tool"):
            if row.summary_id is not None and msg.id == row.summary_id:
                msg = replace(msg, summary=True)
            records.extend(_message(msg, parts, base, calls, unknown))
        elif msg.role != "system":
            unknown.setdefault(f"role {msg.role}", []).append(line)
    for kind, lines in unknown.items():
        count = f"{len(lines)} part" + ("" if len(lines) == 1 else "s")
        problems.append(Problem(lines[0], "unknown part kind", f"{kind} ({count})"))
    head = foreign_db.line_of(row.rank, 0)
    title = (row.title or "").strip()
    if title not in PLACEHOLDER_TITLES:
        records.append(
            MetaEvent(MetaKind.CUSTOM_TITLE, clean_text(title), head, session_key=row.id)
        )
    if parent and parent != row.id:
        at = foreign_db.parent_line(row.rank)
        records.append(MetaEvent(MetaKind.PARENT, parent, at, session_key=row.id))
    return records


def _parts(value: object) -> list[Any] | None:
    """The row's parts, or None when they are not a JSON list."""
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    if not isinstance(value, str):
        return None
    try:
        parts = json.loads(value)
    except (ValueError, RecursionError):
        return None
    return parts if isinstance(parts, list) else None


def _message(
    msg: MessageRow,
    parts: list[Any],
    base: dict[str, Any],
    calls: dict[str, str],
    unknown: dict[str, list[int]],
) -> Iterator[Message]:
    for part in parts:
        if not isinstance(part, dict):
            continue
        kind = part.get("type")
        data = part.get("data") if isinstance(part.get("data"), dict) else {}
        if kind == "text":
            text = _str(data.get("text")).strip()
            if not text:
                continue
            if msg.role == "user":
                yield Message(MessageKind.PROMPT, cap(text, PROMPT_CAP), **base)
            elif msg.summary:
                yield Message(MessageKind.COMPACT_SUMMARY, cap(text, PROMPT_CAP), **base)
            else:
                yield Message(MessageKind.REPLY, cap(text, PROMPT_CAP), **base)
        elif kind == "reasoning":
            thought = _str(data.get("thinking")).strip()
            if thought:
                yield Message(MessageKind.THINKING, cap(thought, THINKING_CAP), **base)
        elif kind == "tool_call":
            call_id, name = _str(data.get("id")) or None, _str(data.get("name")) or "tool"
            if call_id:
                calls[call_id] = name
            yield Message(
                MessageKind.TOOL_CALL,
                cap(args_text(data.get("input"), TOOL_INPUT_CAP), TOOL_INPUT_CAP),
                tool_name=name,
                tool_id=call_id,
                files=files(data.get("input")),
                **base,
            )
        elif kind == "tool_result":
            call_id = _str(data.get("tool_call_id")) or None
            name = _str(data.get("name")) or calls.get(call_id or "") or "tool"
            output = _str(data.get("content")).strip()
            if output:
                yield Message(
                    MessageKind.TOOL_OUTPUT,
                    cap(output, TOOL_OUTPUT_CAP),
                    tool_name=name,
                    tool_id=call_id,
                    is_error=data.get("is_error") is True,
                    **base,
                )
        elif kind == "shell_command":
            yield from _shell(data, base)
        elif not isinstance(kind, str) or kind not in _QUIET:
            unknown.setdefault(str(kind), []).append(base["line"])


def _shell(data: dict[str, Any], base: dict[str, Any]) -> Iterator[Message]:
    """A `!command` the person ran from Crush's prompt, and what it printed."""
    command = _str(data.get("command")).strip()
    if not command:
        return
    yield Message(MessageKind.TOOL_CALL, cap(command, TOOL_INPUT_CAP), tool_name="shell", **base)
    output = _str(data.get("output")).strip()
    if output:
        code = data.get("exit_code")
        yield Message(
            MessageKind.TOOL_OUTPUT,
            cap(output, TOOL_OUTPUT_CAP),
            tool_name="shell",
            is_error=isinstance(code, int) and code != 0,
            **base,
        )


def _str(value: Any) -> str:
    return clean_text(value) if isinstance(value, str) else ""
