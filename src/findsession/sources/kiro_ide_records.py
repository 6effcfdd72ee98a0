"""One run of Kiro IDE's agent (an execution log) as format-free records.

Kiro IDE's session file (Continue's shape, `continue_records`) keeps what the person
typed, and for each answer only a placeholder (`On it.`) and the `executionId` of the
agent's run. The run is a JSON document of its own, `{executionId, workflowType,
status, startTime, endTime, input, actions, context: {messages}, result,
usageSummary}`. `context.messages` is what the agent's model was given and answered,
each message `{role, entries, messageId, forcedRole}`:

- `bot`: the model's turn, its `entries` `text` (the reply), `reasoningContent`
  (thinking) and `toolUse` (`{id, name, args}`);
- `tool`: the results, each `toolUseResponse` `{id, name, args, message, success}`;
- `human`: Kiro's system prompt, the steering files it includes, the editor's state
  (`<EnvironmentContext>`) and the typed text again, run together: harness, not read
  (the session file holds the prompt as typed).

A run's messages begin with those of the runs before it in the session, so a message
is read once per session, by its `messageId`. Kiro's own acknowledgement of its system
prompt (`forcedRole`) and the listing of the workspace it hands the model as a call of
its own (`tooluse_fileTree`) are not the model's and are not read.
"""

from __future__ import annotations

from typing import Any

from findsession.domain import Message, MessageKind
from findsession.sources.continue_records import (
    PROMPT_CAP,
    THINKING_CAP,
    TOOL_INPUT_CAP,
    TOOL_OUTPUT_CAP,
)
from findsession.sources.cursor import Record
from findsession.sources.jsonl import cap, clean_text
from findsession.sources.tool_args import args_text, files

#: The call Kiro makes up to hand the model the workspace's file tree.
FILE_TREE = "tooluse_fileTree"
#: The argument names Kiro's tools give a file.
_FILE_KEYS = ("path", "targetFile", "filePath", "file_path")


def execution_records(doc: Any, seen: set[str], base: dict[str, Any]) -> list[Record]:
    """The model's replies, thinking, calls and results in the run `doc`, each with the
    fields of `base`; a message whose `messageId` is in `seen` is skipped, and each one
    read is added to it."""
    context = doc.get("context") if isinstance(doc, dict) else None
    messages = context.get("messages") if isinstance(context, dict) else None
    out: list[Record] = []
    for message in messages if isinstance(messages, list) else []:
        if not isinstance(message, dict):
            continue
        key = message.get("messageId")
        if isinstance(key, str) and key:
            if key in seen:
                continue
            seen.add(key)
        entries = message.get("entries")
        if message.get("forcedRole") is True or not isinstance(entries, list):
            continue
        role = message.get("role")
        if role == "bot":
            out += _bot(entries, base)
        elif role == "tool":
            out += _results(entries, base)
    return out


def _bot(entries: list[Any], base: dict[str, Any]) -> list[Record]:
    out: list[Record] = []
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        kind = entry.get("type")
        text = entry.get("text")
        said = clean_text(text.strip()) if isinstance(text, str) else ""
        if kind == "text" and said:
            out.append(Message(MessageKind.REPLY, cap(said, PROMPT_CAP), **base))
        elif kind == "reasoningContent" and said:
            out.append(Message(MessageKind.THINKING, cap(said, THINKING_CAP), **base))
        elif kind == "toolUse" and entry.get("id") != FILE_TREE:
            args = entry.get("args")
            out.append(
                Message(
                    MessageKind.TOOL_CALL,
                    cap(args_text(args, TOOL_INPUT_CAP), TOOL_INPUT_CAP),
                    tool_name=_str(entry.get("name")) or "tool",
                    tool_id=_str(entry.get("id")),
                    files=files(args, _FILE_KEYS),
                    **base,
                )
            )
    return out


def _results(entries: list[Any], base: dict[str, Any]) -> list[Record]:
    out: list[Record] = []
    for entry in entries:
        if not isinstance(entry, dict) or entry.get("type") != "toolUseResponse":
            continue  # a `document` beside a result: the file tree Kiro hands the model
        if entry.get("id") == FILE_TREE:
            continue
        failed = entry.get("success") is False
        text = entry.get("message")
        output = clean_text(text.strip()) if isinstance(text, str) else ""
        output = output or ("failed" if failed else "")
        if output:
            out.append(
                Message(
                    MessageKind.TOOL_OUTPUT,
                    cap(output, TOOL_OUTPUT_CAP),
                    tool_name=_str(entry.get("name")),
                    tool_id=_str(entry.get("id")),
                    is_error=failed,
                    **base,
                )
            )
    return out


def _str(value: Any) -> str | None:
    return clean_text(value) if isinstance(value, str) and value else None
