"""Mistral Vibe's messages as format-free records: one message at a time, either layout.

Vibe keeps the conversation as the model saw it, in OpenAI's chat form: `system` (the
prompt Vibe built: left out), `user` (`content` a string or a list of `{type: text,
text}` parts), `assistant` (`content`, `reasoning_content`, and `tool_calls[{id,
function: {name, arguments (JSON text)}}]`) and `tool` (`tool_call_id`, `name`, and the
result as `content`, which starts `<tool_error>` when the call failed). A message has no
time of its own: each takes the session's start from its metadata.

What was not typed is not a prompt: a message Vibe's middleware added (`injected`) is
harness; the summary that replaces a compacted conversation (`context_boundary:
compaction`) is a compaction summary; and the `<vibe_warning>` Vibe 1.x appended to
the person's own words in plan mode ("Plan mode is active…") is cut off them.

Vibe 2.2 resumes a session into a new one whose first save copies the conversation so
far: `message_uuid` names a message so that its copy is known, by its `message_id`
(a tool result has none: by its call's id under the message that made the call).

In a Vibe 3 store, a `/branch` (`identity.kind: fork`) begins with the history it
copied, entries numbered `imported-<n>` (`inherited`): the session it came from holds
them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

from findsession.domain import Message, MessageKind, Problem
from findsession.sources.cursor import Record
from findsession.sources.epoch import epoch_iso
from findsession.sources.jsonl import cap, clean_text, text_of
from findsession.sources.openai_chat import call_records, result_record
from findsession.sources.tool_args import args_text
from findsession.sources.tool_args import files as arg_files

PROMPT_CAP = 100_000
THINKING_CAP = 8_000
TOOL_INPUT_CAP = 2_000
TOOL_OUTPUT_CAP = 4_000
#: Where Vibe's tools name a file: `write_file` (`path` in 1.x, `file_path` later),
#: `search_replace`, `edit` and `read_file` (`file_path`).
FILE_KEYS = ("file_path", "path")
_WARNING = re.compile(r"\s*<vibe_warning>.*?</vibe_warning>\s*", re.DOTALL)
_FAILED = "<tool_error>"
_IMPORTED = "imported-"


@dataclass(frozen=True, slots=True)
class Context:
    """What every message of a session shares: its folder and its start."""

    cwd: str | None = None
    started: str | None = None


def message_records(
    number: int, msg: Any, ctx: Context, problems: list[Problem] | None = None
) -> list[Record]:
    """The records of the `number`-th message (numbered from 1, as the file orders them)."""
    if not isinstance(msg, dict):
        return []
    role = msg.get("role")
    base = {"timestamp": ctx.started, "cwd": ctx.cwd, "message_id": _str(msg.get("message_id"))}
    if role == "user":
        text = _WARNING.sub("\n", text_of(msg.get("content"))).strip()
        if not text:
            return []
        kind = MessageKind.PROMPT
        if msg.get("context_boundary") == "compaction":
            kind = MessageKind.COMPACT_SUMMARY
        elif msg.get("injected"):
            kind = MessageKind.HARNESS
        return [_message(kind, text, number, PROMPT_CAP, base)]
    if role == "assistant":
        return _assistant(msg, number, base)
    if role == "tool":
        output = _WARNING.sub("\n", text_of(msg.get("content"))).strip()
        if not output:
            return []
        failed = output.lstrip().startswith(_FAILED)
        return [result_record(msg, output, number, base, TOOL_OUTPUT_CAP, failed)]
    if role != "system" and problems is not None:
        problems.append(Problem(number, "unknown message role", clean_text(str(role))[:40]))
    return []


def message_uuid(msg: Any, calls: dict[str, str]) -> str | None:
    """What a 2.x message is known by in a copy of it: its `message_id`; a tool result,
    which has none, by its call's id under the message that made it (`calls`: each call
    id seen so far, to that message's id; an id a server gives may repeat across
    sessions)."""
    if not isinstance(msg, dict):
        return None
    made = _str(msg.get("message_id"))
    if msg.get("role") == "assistant" and made and isinstance(msg.get("tool_calls"), list):
        for call in msg["tool_calls"]:
            call_id = _str(call.get("id")) if isinstance(call, dict) else None
            if call_id:
                calls[call_id] = made
    if made:
        return f"vibe:{made}"
    call_id = _str(msg.get("tool_call_id"))
    maker = calls.get(call_id) if call_id else None
    return f"vibe:{maker}/{call_id}" if maker else None


def inherited(entry: dict[str, Any], store_kind: str) -> bool:
    """Whether a store's entry is history a `/branch` copied (Vibe's harness numbers the
    entries it imports `imported-<n>`; a store imported whole is no fork and keeps
    them)."""
    entry_id = entry.get("id")
    return (
        store_kind == "fork"
        and isinstance(entry_id, str)
        and entry_id.startswith(_IMPORTED)
        and entry_id[len(_IMPORTED) :].isdigit()
    )


def _assistant(msg: dict[str, Any], number: int, base: dict[str, Any]) -> list[Record]:
    records: list[Record] = []
    thought = text_of(msg.get("reasoning_content"))
    if thought.strip():
        records.append(_message(MessageKind.THINKING, thought, number, THINKING_CAP, base))
    said = text_of(msg.get("content"))
    kind = MessageKind.COMPACT_SUMMARY if msg.get("context_boundary") else MessageKind.REPLY
    if said.strip():
        records.append(_message(kind, said, number, PROMPT_CAP, base))
    records += call_records(msg.get("tool_calls"), number, base, FILE_KEYS, TOOL_INPUT_CAP)
    return records


def _message(kind: MessageKind, text: str, line: int, limit: int, base: dict[str, Any]) -> Message:
    return Message(kind, cap(clean_text(text).strip(), limit), line, **base)


def _str(value: Any) -> str | None:
    return clean_text(value) if isinstance(value, str) and value else None


#: Vibe 3's built-in tools are named in a group (`file_system.bash`); the records keep
#: the tool's own name, as Vibe 1.x and 2.x named it and as blame knows it.
_BUILTIN_GROUP = "file_system."
_FAILED_STATES = ("failed", "skipped", "cancelled")


def entry_records(number: int, entry: dict[str, Any], cwd: str | None) -> list[Record]:
    """The records of Vibe 3's `number`-th history entry (`vibe_store`): a person's
    message (`turn_start`, or `turn_steer` typed while a turn ran), a committed reply (a
    reply discarded by a retry or an interruption never reached the model's history),
    reasoning, and a tool call with its result (`effect`). Hook notices and checkpoints
    (a compaction, a change of model) are not conversation."""
    kind = entry.get("type")
    base = {"timestamp": epoch_iso(entry.get("createdAt")), "cwd": cwd,
            "message_id": _str(entry.get("id"))}  # fmt: skip
    if kind == "message" and entry.get("role") == "user":
        shown = entry.get("userDisplayContent")
        blocks = shown.get("content") if isinstance(shown, dict) else None
        text = text_of(blocks if isinstance(blocks, list) else entry.get("content")).strip()
        steer = entry.get("source") == "turn_steer"
        said = MessageKind.STEER if steer else MessageKind.PROMPT
        return [_message(said, text, number, PROMPT_CAP, base)] if text else []
    if kind == "message" and entry.get("role") == "assistant":
        outcome = entry.get("outcome")
        if isinstance(outcome, dict) and outcome.get("type") != "committed":
            return []
        text = text_of(entry.get("content"))
        return [_message(MessageKind.REPLY, text, number, PROMPT_CAP, base)] if text.strip() else []
    if kind == "reasoning":
        text = _str(entry.get("text")) or ""
        if not text.strip() or text == "[redacted]":
            return []
        return [_message(MessageKind.THINKING, text, number, THINKING_CAP, base)]
    if kind == "effect":
        return _effect(entry, number, base)
    return []


def _effect(entry: dict[str, Any], number: int, base: dict[str, Any]) -> list[Record]:
    detail = entry.get("detail") if isinstance(entry.get("detail"), dict) else {}
    state = entry.get("state") if isinstance(entry.get("state"), dict) else {}
    name = (_str(detail.get("toolName")) or "tool").removeprefix(_BUILTIN_GROUP)
    args = detail.get("input")
    call = _message(MessageKind.TOOL_CALL, args_text(args, TOOL_INPUT_CAP), number,
                    TOOL_INPUT_CAP, base)  # fmt: skip
    tool_id = _str(entry.get("id"))
    records: list[Record] = [
        replace(call, tool_name=name, tool_id=tool_id, files=arg_files(args, FILE_KEYS))
    ]
    output = state.get("output") if isinstance(state.get("output"), dict) else {}
    text = _result_text(state, output)
    if text.strip():
        failed = state.get("status") in _FAILED_STATES or output.get("type") == "failure"
        done = _message(MessageKind.TOOL_OUTPUT, text, number, TOOL_OUTPUT_CAP, base)
        records.append(replace(done, tool_name=name, tool_id=tool_id, is_error=failed))
    return records


def _result_text(state: dict[str, Any], output: dict[str, Any]) -> str:
    """What a call gave back: the text Vibe shows, else its content's text, else its
    structured result (a command's stdout, stderr and exit code) as `key: value` lines,
    else why it did not run."""
    shown = _str(state.get("outputText"))
    if shown:
        return shown
    text = text_of(output.get("content"))
    if text.strip():
        return text
    structured = output.get("structured_content")
    if isinstance(structured, dict) and structured:
        return args_text(structured, TOOL_OUTPUT_CAP)
    error = state.get("error") if isinstance(state.get("error"), dict) else {}
    return _str(error.get("message")) or _str(state.get("reason")) or ""
