"""A Sourcegraph Cody chat as format-free records.

A transcript is `{id, chatTitle?, lastInteractionTimestamp, interactions:
[{humanMessage, assistantMessage}]}` (`SerializedChatTranscript`; 2023's
`TranscriptJSON` has the same fields and a `timestamp` per interaction); its id, the
time it began, is also its `lastInteractionTimestamp`: current builds keep no other
time. A chat of the first month, or of a JetBrains project (`cody_jetbrains`), is
`{id, messages}` instead, a flat list.

A message is `{speaker, text, contextFiles, editorState, intent, model, content,
processes, error, ...}`. The person's `text` is what they typed, `@`-mentions inline
(2023's `displayText`: its `text` was the prompt Cody built around it); its
`contextFiles` are the context sent with it, of which the files the person chose
(`source: user`, the selection) are the prompt's files, and a `tree` item marked
`isWorkspaceRoot` names the workspace folder. Cody's `text` is its reply, a model's
thinking first inside `<think>`. In agent mode (2025, `intent: agentic`) Cody's message
carries its tool calls in `content` (`{type: tool_call, tool_call: {id, name,
arguments}}`) and the next interaction's human message, which no one typed (no
`text`), their results (`{type: tool_result, tool_result: {id, content}}`), with a
`tool-state` context item per call whose `status` is `error` when it failed. Deep
Cody's context steps (early 2025) are the person's message's `processes` (`{type:
tool, title, content, state, error}`).

Each chat is numbered as a store's session is (`foreign_db.Lines`): its rank a hash of
its key, position 0 its title, its messages from 1 in order.
"""

from __future__ import annotations

import json
from typing import Any

from findsession.domain import Message, MessageKind, MetaEvent, MetaKind, Problem
from findsession.sources.claude_code_records import (
    PROMPT_CAP,
    THINKING_CAP,
    TOOL_INPUT_CAP,
    TOOL_OUTPUT_CAP,
)
from findsession.sources.cody_history import Chat
from findsession.sources.cursor import Record
from findsession.sources.cursor_ide_records import rank_of, when
from findsession.sources.foreign_db import Lines, line_of
from findsession.sources.jsonl import clean_text, leading_thinking
from findsession.sources.tool_args import FILE_KEYS, args_text, parsed
from findsession.sources.tool_args import files as arg_files
from findsession.sources.vscode_copilot_records import uri_path

#: The context a person chose for a prompt (an `@`-mention, the selection); the rest
#: Cody added or retrieved.
_CHOSEN = ("user", "selection", None)
#: Where Cody's tools name a file (`text_editor`'s `path`, `get_file`'s `name`).
_FILE_KEYS = (*FILE_KEYS, "name")


def chat_records(chat: Chat, problems: list[Problem]) -> list[Record]:
    """Every record of one chat: its messages in order, then its title."""
    lines = Lines(rank_of(chat.key), chat.key)
    started = when(chat.data.get("id")) or when(chat.data.get("lastInteractionTimestamp"))
    cwd = chat.cwd or workspace_folder(chat.data)
    out: list[Record] = []
    if "messages" in chat.data:  # a flat list of messages
        for message in chat.data["messages"]:
            if isinstance(message, dict):
                stamp = when(message.get("timestamp")) or started
                out += _message(message, lines, stamp, cwd, {})
    else:
        names: dict[str, str] = {}  # tool call id -> its tool's name
        for number, interaction in enumerate(chat.data["interactions"], 1):
            if not isinstance(interaction, dict):
                at = line_of(lines.rank, lines.position + 1)
                problems.append(Problem(at, f"interaction {number} is not a JSON object"))
                continue
            stamp = when(interaction.get("timestamp")) or started
            for side in ("humanMessage", "assistantMessage"):
                message = interaction.get(side)
                if isinstance(message, dict):
                    out += _message(message, lines, stamp, cwd, names)
    if not out:
        return []
    title = _str(chat.data.get("chatTitle"))
    if title and title.strip():
        line = line_of(lines.rank, 0)
        out.append(MetaEvent(MetaKind.CUSTOM_TITLE, title.strip(), line, session_key=chat.key))
    return out


def _message(
    message: dict[str, Any], lines: Lines, stamp: str | None, cwd: str | None, names: dict[str, str]
) -> list[Message]:
    fields: dict[str, Any] = {"timestamp": stamp, "cwd": cwd}
    out: list[Message | None] = []
    if message.get("speaker") == "human":
        typed = _str(message.get("displayText")) or _str(message.get("text"))
        if typed:
            chosen = chosen_files(message.get("contextFiles"))
            out.append(lines.message(MessageKind.PROMPT, typed, PROMPT_CAP, files=chosen, **fields))
        out += _steps(message.get("processes"), lines, fields)
        out += _results(message, lines, fields, names)
    elif message.get("speaker") == "assistant":
        text = _str(message.get("text")) or _str(message.get("displayText")) or _parts_text(message)
        thinking, reply = leading_thinking(text or "")
        out.append(lines.message(MessageKind.THINKING, thinking, THINKING_CAP, **fields))
        out.append(lines.message(MessageKind.REPLY, reply, PROMPT_CAP, **fields))
        out += _calls(message.get("content"), lines, fields, names)
    return [m for m in out if m is not None]


def _calls(
    content: Any, lines: Lines, fields: dict[str, Any], names: dict[str, str]
) -> list[Message | None]:
    out: list[Message | None] = []
    for part in _list(content):
        call = part.get("tool_call")
        if part.get("type") != "tool_call" or not isinstance(call, dict):
            continue
        name, cid = _str(call.get("name")) or "tool", _str(call.get("id"))
        if cid:
            names[cid] = name
        args = parsed(call.get("arguments"))
        text = args_text(args, TOOL_INPUT_CAP)
        found = arg_files(args, _FILE_KEYS)
        out.append(
            lines.message(
                MessageKind.TOOL_CALL,
                text,
                TOOL_INPUT_CAP,
                tool_name=name,
                tool_id=cid,
                files=found,
                **fields,
            )  # fmt: skip
        )
    return out


def _results(
    message: dict[str, Any], lines: Lines, fields: dict[str, Any], names: dict[str, str]
) -> list[Message | None]:
    """The tool results an agent-mode human message carries, each failed where its
    `tool-state` item says so."""
    failed = {
        _str(item.get("toolId"))  # whatever JSON the store holds: a list is no key
        for item in _list(message.get("contextFiles"))
        if item.get("type") == "tool-state" and item.get("status") == "error"
    } - {None}
    out: list[Message | None] = []
    for part in _list(message.get("content")):
        result = part.get("tool_result")
        if part.get("type") != "tool_result" or not isinstance(result, dict):
            continue
        cid = _str(result.get("id"))
        body = result.get("content")
        text = body if isinstance(body, str) else json.dumps(body, ensure_ascii=False)
        out.append(
            lines.message(
                MessageKind.TOOL_OUTPUT,
                text,
                TOOL_OUTPUT_CAP,
                tool_name=names.get(cid or "", "tool"),
                tool_id=cid,
                is_error=cid in failed,
                **fields,
            )  # fmt: skip
        )
    return out


def _steps(processes: Any, lines: Lines, fields: dict[str, Any]) -> list[Message | None]:
    """Deep Cody's tool steps: each a call, and its error where it failed."""
    out: list[Message | None] = []
    for step in _list(processes):
        if step.get("type") != "tool":
            continue
        name = _str(step.get("title")) or _str(step.get("id")) or "tool"
        sid = _str(step.get("id"))
        call = {"tool_name": name, "tool_id": sid, **fields}
        out.append(
            lines.message(
                MessageKind.TOOL_CALL, _str(step.get("content")) or "", TOOL_INPUT_CAP, **call
            )
        )
        error = step.get("error")
        if step.get("state") == "error" and isinstance(error, dict):
            text = _str(error.get("message")) or "failed"
            out.append(
                lines.message(MessageKind.TOOL_OUTPUT, text, TOOL_OUTPUT_CAP, is_error=True, **call)
            )
    return out


def chosen_files(context: Any) -> tuple[str, ...]:
    """The local files the person chose as a prompt's context, each once."""
    found: list[str] = []
    for item in _list(context):
        if item.get("source") not in _CHOSEN or item.get("type") not in ("file", "symbol", None):
            continue
        path = uri_path(item.get("uri"))
        if path is None and "uri" not in item:
            path = _str(item.get("fileName"))  # 2023: a path relative to the workspace
        if path and "\n" not in path and path not in found:
            found.append(path)
    return tuple(found)


def workspace_folder(data: dict[str, Any]) -> str | None:
    """The workspace folder a chat's context names (a `tree` item marked
    `isWorkspaceRoot`), if any message's does."""
    for interaction in _list(data.get("interactions")):
        message = interaction.get("humanMessage")
        for item in _list(message.get("contextFiles") if isinstance(message, dict) else None):
            if item.get("type") == "tree" and item.get("isWorkspaceRoot"):
                folder = uri_path(item.get("uri"))
                if folder:
                    return folder
    return None


def _parts_text(message: dict[str, Any]) -> str | None:
    """A reply kept only in its content's text parts (or its sub-messages')."""
    texts = [p.get("text") for p in _list(message.get("content")) if p.get("type") == "text"]
    texts += [s.get("text") for s in _list(message.get("subMessages"))]
    joined = "\n\n".join(t for t in texts if isinstance(t, str) and t.strip())
    return clean_text(joined) or None


def _list(value: Any) -> list[dict[str, Any]]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _str(value: Any) -> str | None:
    return clean_text(value) if isinstance(value, str) and value.strip() else None
