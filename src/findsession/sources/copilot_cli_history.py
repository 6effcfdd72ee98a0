"""GitHub Copilot CLI's first layout: one JSON document per session, mapped to records.

Before its event logs, the CLI kept each session as
`~/.copilot/history-session-state/session_<session id>_<start in ms>.json`, rewritten
whole as the session went on: `{sessionId, startTime, chatMessages, timeline}`.
`chatMessages` is the conversation in OpenAI's form (`system`, `user`, `assistant` with
`content` and `tool_calls[{id, function: {name, arguments}}]`, `tool` with
`tool_call_id`); `timeline` is what the CLI showed, each item `{id, timestamp, type}`:
`user` (`text`, what was typed), `copilot` (`text`), `tool_call_requested` and
`tool_call_completed` (`callId`, `name`, `arguments`, `result: {type, log}`), `info`.

The conversation is read from `chatMessages`, numbered by place (from 1), the system
prompt left out. The timeline's `user` items give what was typed and when: when there
are as many as the conversation's user messages, the n-th is the n-th prompt's text and
time (the user message may carry what the CLI added for the model); the first message
has the session's `startTime`, each later one the time before it. A document with no
`chatMessages` is read from its timeline alone. The document names no folder: the
session's is the `Current working directory` its system prompt gives, else the folder
an `info` item says was trusted (as the flat logs of the same CLI have it).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from findsession.domain import Message, MessageKind, Problem
from findsession.sources.claude_code_records import PROMPT_CAP, TOOL_INPUT_CAP, TOOL_OUTPUT_CAP
from findsession.sources.copilot_cli_records import (
    FILE_KEYS,
    system_cwd,
    text_of,
    trusted_folder,
    without_time,
)
from findsession.sources.cursor import Record
from findsession.sources.jsonl import cap, clean_text
from findsession.sources.openai_chat import call_records, result_record

#: `session_<uuid>_<ms>.json`: the prefix and suffix around the session id and time.
PREFIX, SUFFIX = "session_", ".json"
_FAILED = ("error", "failure", "rejected", "cancelled")


def session_of(name: str) -> str | None:
    """The session id a first-layout file's name holds, or None for another name."""
    if not (name.startswith(PREFIX) and name.endswith(SUFFIX)):
        return None
    middle = name[len(PREFIX) : -len(SUFFIX)]
    sid, _, stamp = middle.rpartition("_")
    return sid if sid and stamp.isdigit() else (middle or None)


def history_records(doc: Any, problems: list[Problem]) -> list[Record]:
    """A first-layout session document's messages, in conversation order."""
    if not isinstance(doc, dict):
        problems.append(Problem(1, "not a JSON object", type(doc).__name__))
        return []
    started = _str(doc.get("startTime"))
    timeline = [t for t in _list(doc.get("timeline")) if isinstance(t, dict)]
    chat = _list(doc.get("chatMessages"))
    cwd = _folder(chat, timeline)
    if chat:
        records = _from_chat(chat, timeline, started, problems)
    else:
        records = _from_timeline(timeline, started)
    return [_with(r, cwd=cwd) if cwd and isinstance(r, Message) else r for r in records]


def _folder(chat: list[Any], timeline: list[dict[str, Any]]) -> str | None:
    """The session's folder: the system prompt's working directory, else the trusted one."""
    for msg in chat:
        if isinstance(msg, dict) and msg.get("role") == "system":
            found = system_cwd(text_of(msg.get("content")))
            if found:
                return found
    for item in timeline:
        if item.get("type") == "info":
            found = trusted_folder(_str(item.get("text")) or "")
            if found:
                return found
    return None


def _from_chat(
    chat: list[Any], timeline: list[dict[str, Any]], started: str | None, problems: list[Problem]
) -> list[Record]:
    """The session as its `chatMessages` hold it, prompts as typed from the timeline."""
    typed = [t for t in timeline if t.get("type") == "user"]
    users = sum(1 for m in chat if isinstance(m, dict) and m.get("role") == "user")
    aligned = typed if len(typed) == users else []
    records: list[Record] = []
    when, asked = started, 0
    for number, msg in enumerate(chat, 1):
        if not isinstance(msg, dict):
            continue
        role = msg.get("role")
        if role == "user":
            item = aligned[asked] if aligned else {}
            asked += 1
            when = _str(item.get("timestamp")) or when
            text = _str(item.get("text")) or without_time(text_of(msg.get("content")))
            if text.strip():
                records.append(_message(MessageKind.PROMPT, text, number, when, PROMPT_CAP))
        elif role == "assistant":
            said = text_of(msg.get("content"))
            if said.strip():
                records.append(_message(MessageKind.REPLY, said, number, when, PROMPT_CAP))
            calls = msg.get("tool_calls")
            records += call_records(calls, number, {"timestamp": when}, FILE_KEYS, TOOL_INPUT_CAP)
        elif role == "tool":
            output = text_of(msg.get("content"))
            if output.strip():
                records.append(result_record(msg, output, number, {"timestamp": when},
                                             TOOL_OUTPUT_CAP))  # fmt: skip
        elif role not in ("system", None):
            problems.append(Problem(number, "unknown message role", clean_text(str(role))[:40]))
    return records


def _from_timeline(timeline: list[dict[str, Any]], started: str | None) -> list[Record]:
    """The session as its timeline shows it, when it has no `chatMessages`."""
    records: list[Record] = []
    requested: set[str] = set()
    for number, item in enumerate(timeline, 1):
        kind, when = item.get("type"), _str(item.get("timestamp")) or started
        text = _str(item.get("text")) or ""
        if kind in ("user", "copilot") and text.strip():
            speaker = MessageKind.PROMPT if kind == "user" else MessageKind.REPLY
            records.append(_message(speaker, text, number, when, PROMPT_CAP))
        elif kind in ("tool_call_requested", "tool_call_completed"):
            call_id = _str(item.get("callId"))
            if kind == "tool_call_requested" or call_id not in requested:
                function = {"name": item.get("name"), "arguments": item.get("arguments")}
                records.extend(_call({"id": call_id, "function": function}, number, when))
            requested.add(call_id or "")
            result = item.get("result") if isinstance(item.get("result"), dict) else {}
            log = _str(result.get("log")) or ""
            if kind == "tool_call_completed" and log.strip():
                done = _message(MessageKind.TOOL_OUTPUT, log, number, when, TOOL_OUTPUT_CAP)
                failed = str(result.get("type") or "").lower() in _FAILED
                records.append(_with(done, tool_id=call_id, tool_name=_str(item.get("name")),
                                     is_error=failed))  # fmt: skip
        elif kind == "info" and text.strip():
            records.append(_message(MessageKind.HARNESS, text, number, when, PROMPT_CAP))
    return records


def _call(call: Any, number: int, when: str | None) -> list[Message]:
    return call_records([call], number, {"timestamp": when}, FILE_KEYS, TOOL_INPUT_CAP)


def _message(kind: MessageKind, text: str, line: int, when: str | None, limit: int) -> Message:
    return Message(kind, cap(clean_text(text).strip(), limit), line, timestamp=when)


def _with(message: Message, **fields: Any) -> Message:
    return replace(message, **fields)


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _str(value: Any) -> str | None:
    return clean_text(value) if isinstance(value, str) and value else None
