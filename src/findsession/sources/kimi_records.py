"""Kimi CLI's wire log as format-free records, one line at a time.

`wire.jsonl` opens with `{type: metadata, protocol_version}` (since January 2026; files
written before have none), then one `{timestamp (s), message: {type, payload}}` per
event, as Kimi CLI's `WireFile` appends it. The events are recorded after Kimi merged
its stream (`WireSoulSide`), so each `ContentPart` is a whole run of text or thinking and
each `ToolCall` carries its whole arguments. Read here:

- `TurnBegin {user_input}` and `SteerInput {user_input}` (typed while a turn runs): a
  prompt, `user_input` a string or `[{type: text, text} | {type: image_url} ...]`; but
  the turn Kimi begins itself in a subagent whose answer was too short to hand back
  (`SUMMARY_CONTINUATION_PROMPT` in `subagents/runner.py`) is Kimi's text, not a prompt;
- `ContentPart {type: text, text}` a reply, `{type: think, think}` thinking;
- `ToolCall {id, function: {name, arguments (JSON text)}}` a tool call, answered by
  `ToolResult {tool_call_id, return_value: {is_error, output, message}}`;
- `BtwBegin {id, question}` / `BtwEnd {id, response}`: a side question asked with `/btw`
  and its answer; `PlanDisplay {content, file_path}`: a plan shown to the person;
- `SubagentEvent {parent_tool_call_id, agent_id, subagent_type, event: {type,
  payload}}` (`task_tool_call_id` and no agent id in older logs): a subagent's event
  forwarded to its parent's log. Since Kimi CLI keeps a
  log of each subagent's own (`subagents/<agent id>/wire.jsonl`), such an event is read
  only for a subagent without one; it becomes a session of its own under the parent's.

Control-flow and status events (`TurnEnd`, `StepBegin`, `StatusUpdate`, `CompactionBegin`,
approval and hook requests, ...) carry nothing to search.

Kimi Code CLI, its successor, writes another log (`kimi_code_records`) with the same
content parts, tool calls and results: the helpers that read those (`content_part`,
`tool_call`, `tool_result`, `said`, `input_text`) serve both.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from findsession.domain import Message, MessageKind
from findsession.sources.cursor import Record
from findsession.sources.epoch import epoch_iso
from findsession.sources.jsonl import cap, clean_text
from findsession.sources.tool_args import args_text, files

PROMPT_CAP = 100_000
THINKING_CAP = 8_000
TOOL_INPUT_CAP = 2_000
TOOL_OUTPUT_CAP = 4_000
#: Event types with nothing to search.
QUIET = frozenset({
    "TurnEnd", "StepBegin", "StepInterrupted", "StepRetry", "HookTriggered", "HookResolved",
    "CompactionBegin", "CompactionEnd", "MCPLoadingBegin", "MCPLoadingEnd", "StatusUpdate",
    "Notification", "ToolCallPart", "ApprovalResponse", "ApprovalRequestResolved",
    "ApprovalRequest", "ToolCallRequest", "QuestionRequest", "HookRequest",
})  # fmt: skip
_FILE_KEYS = ("path", "file_path")
#: How the turn Kimi CLI begins itself, asking a subagent for a longer answer, opens.
_ASKED_FOR_MORE = "Your previous response was too brief. Please provide a more comprehensive"


@dataclass
class Context:
    """What reading one file keeps between its lines."""

    cwd: str | None
    #: Whether a subagent keeps a log of its own (then its forwarded events are skipped).
    has_own_log: Callable[[str], bool] = lambda _agent: False
    calls: dict[str, str] = field(default_factory=dict)
    unknown: dict[str, list[int]] = field(default_factory=dict)


def line_records(line: int, obj: dict[str, Any], ctx: Context) -> list[Record]:
    """The records of one line of the log."""
    message = obj.get("message")
    if not isinstance(message, dict):
        return []  # the metadata header, or a line that is no event
    base = {"line": line, "cwd": ctx.cwd, "timestamp": epoch_iso(obj.get("timestamp"))}
    return _event(message, base, ctx, None)


def _event(
    message: dict[str, Any], base: dict[str, Any], ctx: Context, child: str | None
) -> list[Record]:
    kind = message.get("type")
    payload = message.get("payload")
    if not isinstance(payload, dict) or not isinstance(kind, str):
        return []
    if child is not None:
        base = {**base, "session_key": child}
    if kind in ("TurnBegin", "SteerInput"):
        text = input_text(payload.get("user_input"))
        who = MessageKind.HARNESS if text.startswith(_ASKED_FOR_MORE) else MessageKind.PROMPT
        return said(who, text, base)
    if kind == "ContentPart":
        return content_part(payload, base)
    if kind == "ToolCall":
        return _call(payload, base, ctx)
    if kind == "ToolResult":
        return _result(payload, base, ctx)
    if kind == "BtwBegin":
        return said(MessageKind.PROMPT, _str(payload.get("question")), base)
    if kind == "BtwEnd":
        return said(MessageKind.REPLY, _str(payload.get("response")), base)
    if kind == "PlanDisplay":
        return said(MessageKind.REPLY, _str(payload.get("content")), base)
    if kind == "SubagentEvent":
        return _forwarded(payload, base, ctx, child)
    if kind not in QUIET:
        ctx.unknown.setdefault(clean_text(kind), []).append(base["line"])
    return []


def _forwarded(
    payload: dict[str, Any], base: dict[str, Any], ctx: Context, child: str | None
) -> list[Record]:
    """A subagent's event in its parent's log, read when the subagent has no log of its
    own; a subagent's own subagents stay under the first (their logs are their own)."""
    agent = (
        _str(payload.get("agent_id"))
        or _str(payload.get("parent_tool_call_id"))
        or _str(payload.get("task_tool_call_id"))  # the field's name before 2026
    )
    event = payload.get("event")
    if not agent or not isinstance(event, dict) or ctx.has_own_log(agent):
        return []
    return _event(event, base, ctx, child or agent)


def _call(payload: dict[str, Any], base: dict[str, Any], ctx: Context) -> list[Record]:
    function = payload.get("function")
    if not isinstance(function, dict):
        return []
    return tool_call(
        _str(payload.get("id")), _str(function.get("name")), function.get("arguments"), base,
        ctx.calls,
    )  # fmt: skip


def _result(payload: dict[str, Any], base: dict[str, Any], ctx: Context) -> list[Record]:
    value = payload.get("return_value")
    if not isinstance(value, dict):
        return []
    text = "\n".join(t for t in (input_text(value.get("output")), _str(value.get("message"))) if t)
    return tool_result(
        _str(payload.get("tool_call_id")), text, value.get("is_error") is True, base, ctx.calls
    )


def tool_call(
    call_id: str, name: str, args: Any, base: dict[str, Any], calls: dict[str, str]
) -> list[Record]:
    """A tool call (`args` an object or its JSON text; `path` as a file), remembered in
    `calls` by its id so its result is named after it."""
    name = name or "tool"
    if call_id:
        calls[call_id] = name
    return [
        Message(
            MessageKind.TOOL_CALL,
            cap(args_text(args, TOOL_INPUT_CAP), TOOL_INPUT_CAP),
            tool_name=name,
            tool_id=call_id or None,
            files=files(args, _FILE_KEYS),
            **base,
        )
    ]


def tool_result(
    call_id: str, text: str, is_error: bool, base: dict[str, Any], calls: dict[str, str]
) -> list[Record]:
    """A tool's result, named after the call of its id (when that call was read)."""
    if not text.strip():
        return []
    return [
        Message(
            MessageKind.TOOL_OUTPUT,
            cap(text.strip(), TOOL_OUTPUT_CAP),
            tool_name=calls.get(call_id),
            tool_id=call_id or None,
            is_error=is_error,
            **base,
        )
    ]


def content_part(part: Any, base: dict[str, Any]) -> list[Record]:
    """A `ContentPart` both Kimis write: `{type: text, text}` a reply, `{type: think,
    think}` thinking; an image, audio or video part says nothing to search."""
    if not isinstance(part, dict):
        return []
    if part.get("type") == "text":
        return said(MessageKind.REPLY, _str(part.get("text")), base)
    if part.get("type") == "think":
        return said(MessageKind.THINKING, _str(part.get("think")), base, THINKING_CAP)
    return []


def said(
    kind: MessageKind, text: str, base: dict[str, Any], limit: int = PROMPT_CAP
) -> list[Record]:
    text = text.strip()
    return [Message(kind, cap(text, limit), **base)] if text else []


def input_text(value: Any) -> str:
    """A string, or the `text` parts of a list of content parts."""
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, list):
        return clean_text("\n".join(
            p["text"] for p in value if isinstance(p, dict) and isinstance(p.get("text"), str)
        ))  # fmt: skip
    return ""


def _str(value: Any) -> str:
    return clean_text(value) if isinstance(value, str) else ""
