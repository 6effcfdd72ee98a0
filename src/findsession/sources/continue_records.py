"""A Continue session as format-free records, from its JSON document.

A session file is `{sessionId, title, workspaceDirectory, history, mode?, usage?}`
(`Session` in Continue's `core/index.d.ts`). Each history item is `{message,
contextItems, toolCallStates?, reasoning?, promptLogs?, editorState?}`; its `message` has
a `role`: `user` (`content` a string or `[{type: text, text} | {type: imageUrl}]`: what
was typed), `assistant` (`content`, and `toolCalls: [{id, function: {name,
arguments}}]` in agent mode), `thinking` (reasoning a model streamed on its own), `tool`
(`content`, the rendered output of the call `toolCallId` names) and `system`. A user
item's `contextItems` are what the person attached (`{name, description, content, uri:
{type, value}}`); an assistant item's `toolCallStates` say how each call ended (`done`,
`errored`, `canceled`, ...) and, from the CLI (`cn`, which writes no `tool` message),
what each gave back (`output`: `[{name, description, content}]`); `reasoning.text` is a
reply's thinking. `promptLogs` repeat
the whole prompt sent to the model and `editorState` the input box, so neither is read.
A session the first extension saved (2023) is another document: `continue_timeline`.

A session keeps no time per message: the first message gets the time Continue's list
(`sessions.json`) gives the session's creation, the others the time the file was last
written.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any
from urllib.parse import unquote, urlparse

from findsession.domain import Message, MessageKind, MetaEvent, MetaKind, Problem
from findsession.sources.continue_timeline import is_timeline, timeline_records
from findsession.sources.cursor import Record
from findsession.sources.jsonl import cap, clean_text
from findsession.sources.tool_args import call_message, result_message

PROMPT_CAP = 100_000
CONTEXT_CAP = 8_000
THINKING_CAP = 8_000
TOOL_INPUT_CAP = 2_000
TOOL_OUTPUT_CAP = 4_000
#: Titles Continue gives a session before it has one (the editor's, the CLI's).
PLACEHOLDER_TITLES = frozenset({"New Session", "Untitled Session", ""})
#: The argument names Continue's tools give a file (the editor's, the CLI's).
_FILE_KEYS = ("filepath", "file_path", "path", "dirPath")
#: How a call ended that wrote nothing.
_FAILED = frozenset({"errored", "canceled"})

#: Reads an assistant history item in Continue's place, from its item and the fields
#: every record of the item carries (`line`, `cwd`, `timestamp`); None: read it as
#: Continue's. Kiro IDE's agent keeps its replies beside the session, the item holding
#: a placeholder.
Assistant = Callable[[dict[str, Any], dict[str, Any]], list[Record] | None]


def session_records(
    doc: Any,
    created: str | None,
    saved: str | None,
    problems: list[Problem],
    assistant: Assistant | None = None,
) -> list[Record]:
    """Every message of the session, numbered by its history item (from 1), then its
    title at line 0; an assistant item read by `assistant` where it reads it."""
    if not isinstance(doc, dict):
        problems.append(Problem(1, "not a JSON object", type(doc).__name__))
        return []
    if is_timeline(doc):  # a session of the first extension (2023)
        return timeline_records(doc, created, saved)
    history = doc.get("history")
    if not isinstance(history, list):
        problems.append(Problem(1, "not a Continue session", f"history: {type(history).__name__}"))
        history = []
    cwd = folder(doc.get("workspaceDirectory"))
    states = _states(history)
    answered = _answered(history)
    names: dict[str, str] = {}
    records: list[Record] = []
    unknown: dict[str, list[int]] = {}
    for number, item in enumerate(history, 1):
        if not isinstance(item, dict) or not isinstance(item.get("message"), dict):
            continue
        base = {"line": number, "cwd": cwd, "timestamp": created if number == 1 else saved}
        message = item["message"]
        role = message.get("role")
        if role == "user":
            records += _user(message, item.get("contextItems"), base)
        elif role == "assistant":
            own = assistant(item, base) if assistant is not None else None
            if own is None:
                own = _assistant(message, item, base, names)
                own += _state_outputs(item, base, names, answered)
            records += own
        elif role == "thinking":
            records += _thinking(_text(message.get("content")), base)
        elif role == "tool":
            records += _tool(message, base, names, states)
        elif role != "system":
            name = clean_text(role) if isinstance(role, str) else type(role).__name__
            unknown.setdefault(name, []).append(number)
    for role, numbers in unknown.items():
        count = f"{len(numbers)} message" + ("" if len(numbers) == 1 else "s")
        problems.append(Problem(numbers[0], "unknown role", f"{role} ({count})"))
    title = doc.get("title")
    if isinstance(title, str) and title.strip() not in PLACEHOLDER_TITLES:
        records.append(MetaEvent(MetaKind.AI_TITLE, clean_text(title.strip()), 0))
    return records


def folder(value: Any) -> str | None:
    """The session's folder: a path, or (the editor's) a `file://` URI."""
    if not isinstance(value, str) or not value.strip():
        return None
    if value.startswith("file://"):
        path = unquote(urlparse(value).path)
        if len(path) > 2 and path[0] == "/" and path[2] == ":":  # file:///C:/x
            path = path[1:]
        return clean_text(path) or None
    return clean_text(value)


def _user(message: dict[str, Any], context: Any, base: dict[str, Any]) -> list[Record]:
    attached: list[str] = []
    paths: list[str] = []
    for item in context if isinstance(context, list) else []:
        if not isinstance(item, dict):
            continue
        uri = item.get("uri") if isinstance(item.get("uri"), dict) else {}
        path = folder(uri.get("value")) if uri.get("type") == "file" else None
        if path and len(path) < 1024 and "\n" not in path:
            paths.append(path)
        body = item.get("content")
        if isinstance(body, str) and body.strip():
            attached.append(body.strip())
    out: list[Record] = []
    typed = _text(message.get("content")).strip()
    if typed:
        out.append(Message(MessageKind.PROMPT, cap(typed, PROMPT_CAP), files=tuple(paths), **base))
    for body in attached:  # what the person attached: context, not what they typed
        out.append(Message(MessageKind.HARNESS, cap(body, CONTEXT_CAP), **base))
    return out


def _assistant(
    message: dict[str, Any], item: dict[str, Any], base: dict[str, Any], names: dict[str, str]
) -> list[Record]:
    reasoning = item.get("reasoning")
    out = _thinking(_text(reasoning.get("text")) if isinstance(reasoning, dict) else "", base)
    reply = _text(message.get("content")).strip()
    if reply:
        out.append(Message(MessageKind.REPLY, cap(reply, PROMPT_CAP), **base))
    calls = message.get("toolCalls")
    for call in calls if isinstance(calls, list) else []:
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict):
            continue
        call_id = _str(call.get("id"))
        name = _str(function.get("name")) or "tool"
        if call_id:
            names[call_id] = name
        args = function.get("arguments")
        out.append(call_message(name, call_id, args, base, _FILE_KEYS, TOOL_INPUT_CAP))
    return out


def _tool(
    message: dict[str, Any], base: dict[str, Any], names: dict[str, str], states: dict[str, str]
) -> list[Record]:
    call_id = _str(message.get("toolCallId"))
    status = states.get(call_id or "")
    output = _text(message.get("content")).strip() or (status or "")
    return _output(output, call_id, status, names, base)


def _output(
    text: str, call_id: str | None, status: str | None, names: dict[str, str], base: dict[str, Any]
) -> list[Record]:
    """What the call `call_id` gave back, failed when it ended `errored` or `canceled`."""
    if not text:
        return []
    name, failed = names.get(call_id or ""), status in _FAILED
    return [result_message(name, call_id, text, failed, base, TOOL_OUTPUT_CAP)]


def _state_outputs(
    item: dict[str, Any], base: dict[str, Any], names: dict[str, str], answered: set[str]
) -> list[Record]:
    """What each call of an assistant item gave back as its state holds it (`output`,
    context items whose `content` is the text): the CLI writes no `tool` message. A
    call a `tool` message answers is read from that message instead."""
    states = item.get("toolCallStates")
    out: list[Record] = []
    for state in states if isinstance(states, list) else []:
        call_id = _str(state.get("toolCallId")) if isinstance(state, dict) else None
        output = state.get("output") if call_id and call_id not in answered else None
        if not isinstance(output, list):
            continue
        parts = [_text(part.get("content")) for part in output if isinstance(part, dict)]
        text = "\n\n".join(p.strip() for p in parts if p.strip())
        out += _output(text, call_id, _str(state.get("status")), names, base)
    return out


def _answered(history: list[Any]) -> set[str]:
    """The calls a `tool` message answers."""
    ids = set()
    for item in history:
        message = item.get("message") if isinstance(item, dict) else None
        if isinstance(message, dict) and message.get("role") == "tool":
            call_id = _str(message.get("toolCallId"))
            if call_id:
                ids.add(call_id)
    return ids


def _thinking(text: str, base: dict[str, Any]) -> list[Record]:
    text = text.strip()
    return [Message(MessageKind.THINKING, cap(text, THINKING_CAP), **base)] if text else []


def _states(history: list[Any]) -> dict[str, str]:
    """How each tool call ended, by its id."""
    found: dict[str, str] = {}
    for item in history:
        states = item.get("toolCallStates") if isinstance(item, dict) else None
        for state in states if isinstance(states, list) else []:
            if isinstance(state, dict):
                key, status = _str(state.get("toolCallId")), _str(state.get("status"))
                if key and status:
                    found[key] = status
    return found


def _text(content: Any) -> str:
    """A message's text: a string, or its `text` parts (an image has none)."""
    if isinstance(content, str):
        return clean_text(content)
    if isinstance(content, list):
        parts = [
            p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str)
        ]
        return clean_text("\n".join(parts))
    return ""


def _str(value: Any) -> str | None:
    return clean_text(value) if isinstance(value, str) and value else None


def created_at(listing: Any, session_id: str) -> float | None:
    """When Continue's list says the session was made (`dateCreated`, milliseconds as
    text)."""
    for entry in listing if isinstance(listing, list) else []:
        if isinstance(entry, dict) and entry.get("sessionId") == session_id:
            value = entry.get("dateCreated")
            try:
                return float(value) if isinstance(value, str | int | float) else None
            except ValueError:
                return None
    return None


def load_listing(data: bytes) -> Any:
    try:
        return json.loads(data.decode("utf-8", "replace"))
    except (ValueError, RecursionError):
        return None
