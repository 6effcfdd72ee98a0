"""A Code Puppy session envelope as format-free records, one model message at a time.

Code Puppy saves a conversation as pydantic-ai dumps its message list
(`ModelMessagesTypeAdapter`, `encoding` `pydantic-ai-messages`) inside an envelope
`{format, code_puppy, pydantic_ai, encoding, messages}`. Each message is a `request`
(what was sent to the model: `parts` of `part_kind` `system-prompt`, `user-prompt`,
`tool-return`, `retry-prompt`, and the system prompt again as its `instructions`) or a
`response` (the model's `text`, `thinking` and `tool-call` parts). Each message and
most parts carry a `timestamp`.

What was typed is a `user-prompt`, except what Code Puppy put there itself:

- a request tagged `code_puppy_steer` in its `metadata` is a `/steer` (words typed into
  a turn already running): a steer, not a prompt;
- a `[system note] …` it appends when a subagent was interrupted: harness text.

The system prompt (`instructions`, or a `system-prompt` part from pydantic-ai before
1.0) is left out, except the summary a compaction leaves in its place (`Summary of
previous conversation:`), read as a compaction summary. A `tool-call` (`tool_name`,
`args`: JSON text or an object, `tool_call_id`) is answered by the `tool-return` or
`retry-prompt` naming the same `tool_call_id` in the next request. A result failed
when pydantic-ai says so (`outcome` `failed` or `denied`, or a `retry-prompt`: an
unknown tool, arguments that did not validate) or when Code Puppy's tool returned
`success: false`, an `error`, or a command's non-zero `exit_code`.
"""

from __future__ import annotations

import json
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
#: Where Code Puppy's tools name a file (`create_file`, `replace_in_file`,
#: `delete_snippet`, `delete_file`, `read_file`; `list_files` and `grep` a folder).
FILE_KEYS = ("file_path", "directory")
STEER_KEY = "code_puppy_steer"
SUMMARY_HEAD = "Summary of previous conversation:"
_NOTE_HEAD = "[system note] "
#: A tuple, not a set: the outcome is whatever JSON the file holds, a list among them.
_FAILED_OUTCOMES = ("failed", "denied")
#: The tools that run a subagent, whose result names its session.
INVOKE = ("invoke_agent", "invoke_agent_with_model")


@dataclass(frozen=True, slots=True)
class Context:
    """What every message of a session shares: its folder."""

    cwd: str | None = None


def envelope_records(doc: Any, problems: list[Problem], ctx: Context) -> list[Record]:
    """An envelope's messages, numbered by place (from 1)."""
    if not isinstance(doc, dict):
        problems.append(Problem(1, "not a JSON object", type(doc).__name__))
        return []
    messages = doc.get("messages")
    if not isinstance(messages, list):
        problems.append(Problem(1, "no messages list", type(messages).__name__))
        return []
    if doc.get("encoding", "pydantic-ai-messages") != "pydantic-ai-messages":
        # A plugin's own history kept verbatim (`encoding` `json`): no model messages.
        problems.append(Problem(1, "not pydantic-ai messages", str(doc.get("encoding"))[:40]))
        return []
    records: list[Record] = []
    for number, msg in enumerate(messages, 1):
        records += message_records(number, msg, ctx, problems)
    return records


def message_records(
    number: int, msg: Any, ctx: Context, problems: list[Problem] | None = None
) -> list[Record]:
    """The records of the `number`-th model message."""
    if not isinstance(msg, dict):
        return []
    parts = msg.get("parts")
    kind = msg.get("kind")
    if not isinstance(parts, list) or kind not in ("request", "response"):
        if problems is not None:
            problems.append(Problem(number, "unknown message kind", clean_text(str(kind))[:40]))
        return []
    when = iso_utc(msg.get("timestamp"))
    steer = isinstance(msg.get("metadata"), dict) and msg["metadata"].get(STEER_KEY) is True
    records: list[Record] = []
    for part in parts:
        if not isinstance(part, dict):
            continue
        base = {"timestamp": iso_utc(part.get("timestamp")) or when, "cwd": ctx.cwd}
        if kind == "request":
            records += _request_part(part, number, base, steer)
        else:
            records += _response_part(part, number, base)
    started = [sid for part in parts if (sid := invoked_session(part))]
    if started:
        records.append(MetaEvent(MetaKind.CHILDREN, " ".join(dict.fromkeys(started)), number))
    return records


def _request_part(
    part: dict[str, Any], number: int, base: dict[str, Any], steer: bool
) -> list[Record]:
    what = part.get("part_kind")
    if what == "user-prompt":
        text = prompt_text(part.get("content"))
        if not text.strip():
            return []
        if text.startswith(_NOTE_HEAD):
            return [_message(MessageKind.HARNESS, text, number, PROMPT_CAP, base)]
        kind = MessageKind.STEER if steer else MessageKind.PROMPT
        return [_message(kind, text, number, PROMPT_CAP, base)]
    if what == "system-prompt":
        text = text_of(part.get("content"))
        if text.startswith(SUMMARY_HEAD):
            summary = text[len(SUMMARY_HEAD) :]
            return [_message(MessageKind.COMPACT_SUMMARY, summary, number, PROMPT_CAP, base)]
        return []  # the agent's system prompt: harness, sent again with every request
    if what in ("tool-return", "builtin-tool-return", "retry-prompt"):
        output = _output_text(part.get("content"))
        if not output.strip():
            return []
        retry = what == "retry-prompt"
        if retry and not isinstance(part.get("tool_name"), str):
            # Output that did not validate: Code Puppy's model is asked again.
            return [_message(MessageKind.HARNESS, output, number, PROMPT_CAP, base)]
        named = {"tool_call_id": part.get("tool_call_id"), "name": part.get("tool_name")}
        failed = retry or result_failed(part)
        return [result_record(named, output, number, base, TOOL_OUTPUT_CAP, failed)]
    return []


def _response_part(part: dict[str, Any], number: int, base: dict[str, Any]) -> list[Record]:
    what = part.get("part_kind")
    if what == "text":
        text = text_of(part.get("content"))
        return [_message(MessageKind.REPLY, text, number, PROMPT_CAP, base)] if text.strip() else []
    if what == "thinking":
        text = text_of(part.get("content"))
        if not text.strip():
            return []
        return [_message(MessageKind.THINKING, text, number, THINKING_CAP, base)]
    if what in ("tool-call", "builtin-tool-call"):
        call = {"name": part.get("tool_name"), "arguments": part.get("args"),
                "id": part.get("tool_call_id")}  # fmt: skip
        return list(call_records([call], number, base, FILE_KEYS, TOOL_INPUT_CAP))
    if what == "builtin-tool-return":
        return _request_part(part, number, base, False)
    return []


def invoked_session(part: Any) -> str | None:
    """The subagent session an `invoke_agent` (or `invoke_agent_with_model`) result names
    (`{response, agent_name, session_id, …}`), or None."""
    if not isinstance(part, dict) or part.get("part_kind") != "tool-return":
        return None
    if part.get("tool_name") not in INVOKE:
        return None
    content = part.get("content")
    if isinstance(content, str):
        try:
            content = json.loads(content)
        except (ValueError, RecursionError):
            return None
    sid = content.get("session_id") if isinstance(content, dict) else None
    return sid if isinstance(sid, str) and sid and " " not in sid else None


def prompt_text(content: Any) -> str:
    """A user prompt's text: a string, or the strings of a list of contents joined by
    newlines (an image or a document in it gives none)."""
    if isinstance(content, list):
        texts = [c if isinstance(c, str) else text_of([c]) for c in content]
        return "\n".join(t for t in texts if t)
    return text_of(content)


def result_failed(part: dict[str, Any]) -> bool:
    """Whether a tool's return is a failed call's: pydantic-ai's outcome, or what Code
    Puppy's tool answered (`success: false`, an `error`, a non-zero `exit_code`)."""
    if part.get("outcome") in _FAILED_OUTCOMES:
        return True
    content = part.get("content")
    if not isinstance(content, dict):
        return False
    if content.get("success") is False or content.get("error"):
        return True
    code = content.get("exit_code")
    return isinstance(code, int) and not isinstance(code, bool) and code != 0


def _output_text(content: Any) -> str:
    """A tool's return as text: a string as it is, anything else as JSON."""
    if isinstance(content, str):
        return content
    if content is None:
        return ""
    try:
        return json.dumps(content, ensure_ascii=False)
    except (TypeError, ValueError):
        return str(content)


def _message(kind: MessageKind, text: str, line: int, limit: int, base: dict[str, Any]) -> Message:
    return Message(kind, cap(clean_text(text).strip(), limit), line, **base)
