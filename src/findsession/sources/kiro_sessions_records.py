"""One line of Kiro's later session layout (`sess_<id>/messages.jsonl`) as records.

Each line is one event, `{id, timestamp, payload: {type, ...}}`, the time an ISO text in
UTC. The shapes below are those other tools' readers found in real files (Kiro is closed
source; see docs/sources.md, "Kiro IDE"):

- `user`: a prompt, its `content` a text (or a list of `{type: text, text}` parts);
  `source: steer` marks words sent into a turn already running (a steer, no new turn).
- `assistant`: the model's turn, by its `operationType`: `Say` (and `Print`) a reply,
  `Reasoning` thinking (Kiro keeps only `...` of encrypted thinking: nothing to read),
  `Summary` what Kiro wrote of the conversation so far (a compaction's summary).
- `tool_call`: `{toolCallId, toolName, args}`, and `filePath` for a call that writes a
  file; `tool_result`: `{toolCallId, content, success}`, `success: false` a failure
  (Kiro writes one for a call a stopped session never finished).
- `sub_agent_start` `{subSessionId, subAgentName, prompt}`: a subagent handed its task,
  read as a call (`subagent`), answered by the `sub_agent_complete` `{subSessionId,
  response}` of the same subagent.
- Kiro's own events carry nothing typed or said and give no record: `session_start`
  (its `content` is Kiro's system prompt), `turn_start`, `turn_end`,
  `usage_summary` (credits), `session_metadata` (context use), `pending_interaction`
  and `interaction_resolved` (an approval asked and given), `session_event`,
  `tombstone` (where a compaction cut the history).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from findsession.domain import Message, MessageKind
from findsession.sources.continue_records import (
    PROMPT_CAP,
    THINKING_CAP,
    TOOL_INPUT_CAP,
    TOOL_OUTPUT_CAP,
)
from findsession.sources.cursor import Record
from findsession.sources.epoch import iso_utc
from findsession.sources.jsonl import cap, clean_text, text_of
from findsession.sources.tool_args import args_text, files

#: Kiro's events that hold nothing to search.
QUIET = frozenset((
    "session_start", "turn_start", "turn_end", "usage_summary", "session_metadata",
    "pending_interaction", "interaction_resolved", "session_event", "tombstone",
))  # fmt: skip
#: The argument names Kiro's tools give a file (`delete_file` its `targetFile`).
_FILE_KEYS = ("path", "targetFile", "filePath", "file_path")
#: The tool a subagent's task is read as.
SUBAGENT = "subagent"
#: What Kiro writes for thinking it keeps encrypted.
_ELIDED = "..."
#: Calls whose names one read keeps for their results: more were never answered.
_NAMES_CAP = 256


@dataclass
class Lines:
    """What one read keeps between lines: each call's tool by its id, and the kinds of
    event not known here with their lines."""

    cwd: str | None = None
    names: dict[str, str] = field(default_factory=dict)
    unknown: dict[str, list[int]] = field(default_factory=dict)


def line_records(line: int, obj: dict[str, Any], seen: Lines) -> list[Record]:
    """The records of one event."""
    payload = obj.get("payload")
    kind = payload.get("type") if isinstance(payload, dict) else None
    if not isinstance(payload, dict) or not isinstance(kind, str):
        seen.unknown.setdefault("(no payload type)", []).append(line)
        return []
    base: dict[str, Any] = {"line": line, "timestamp": iso_utc(obj.get("timestamp")),
                            "cwd": seen.cwd}  # fmt: skip
    if kind == "user":
        steer = payload.get("source") == "steer"
        return _text(MessageKind.STEER if steer else MessageKind.PROMPT, payload, PROMPT_CAP, base)
    if kind == "assistant":
        operation = payload.get("operationType")
        if operation == "Reasoning":
            return _text(MessageKind.THINKING, payload, THINKING_CAP, base)
        if operation == "Summary":
            return _text(MessageKind.COMPACT_SUMMARY, payload, PROMPT_CAP, base)
        return _text(MessageKind.REPLY, payload, PROMPT_CAP, base)
    if kind == "tool_call":
        return _call(payload, seen, base)
    if kind == "tool_result":
        return _result(payload, seen, base)
    if kind == "sub_agent_start":
        task = {"subagent": payload.get("subAgentName"), "prompt": payload.get("prompt")}
        call = {"toolName": SUBAGENT, "toolCallId": payload.get("subSessionId"), "args": task}
        return _call(call, seen, base)
    if kind == "sub_agent_complete":
        done = {"toolCallId": payload.get("subSessionId"), "content": payload.get("response")}
        return _result(done, seen, base)
    if kind not in QUIET:
        seen.unknown.setdefault(clean_text(kind)[:80], []).append(line)
    return []


def _text(
    kind: MessageKind, payload: dict[str, Any], limit: int, base: dict[str, Any]
) -> list[Record]:
    said = clean_text(text_of(payload.get("content"))).strip()
    if not said or (kind is MessageKind.THINKING and said == _ELIDED):
        return []
    return [Message(kind, cap(said, limit), **base)]


def _call(payload: dict[str, Any], seen: Lines, base: dict[str, Any]) -> list[Record]:
    name = _str(payload.get("toolName")) or "tool"
    call_id = _str(payload.get("toolCallId"))
    args = payload.get("args")
    found = files(args, _FILE_KEYS) or files(payload, ("filePath",))
    if call_id:
        seen.names[call_id] = name
        while len(seen.names) > _NAMES_CAP:
            del seen.names[next(iter(seen.names))]
    text = cap(args_text(args, TOOL_INPUT_CAP), TOOL_INPUT_CAP) if args is not None else ""
    return [Message(MessageKind.TOOL_CALL, text, tool_name=name, tool_id=call_id,
                    files=found, **base)]  # fmt: skip


def _result(payload: dict[str, Any], seen: Lines, base: dict[str, Any]) -> list[Record]:
    call_id = _str(payload.get("toolCallId"))
    failed = payload.get("success") is False
    content = payload.get("content")
    if isinstance(content, dict):
        content = json.dumps(content, ensure_ascii=False)
    output = clean_text(content if isinstance(content, str) else text_of(content)).strip()
    output = output or ("failed" if failed else "")
    if not output:
        return []
    name = seen.names.pop(call_id, None) if call_id else None
    return [Message(MessageKind.TOOL_OUTPUT, cap(output, TOOL_OUTPUT_CAP), tool_name=name,
                    tool_id=call_id, is_error=failed, **base)]  # fmt: skip


def _str(value: Any) -> str | None:
    return clean_text(value) if isinstance(value, str) and value else None
