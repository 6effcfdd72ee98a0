"""OpenHands events as format-free records, one event file at a time.

The OpenHands agent SDK writes each event of a conversation to a file of its own,
`events/event-<index, 5 digits or more>-<event id>.json`: one serialized event, its
class in `kind`, with `id`, `timestamp` (ISO, no offset: UTC) and `source` (`user`,
`agent`, `environment`). Read here:

- `MessageEvent {llm_message: {role, content: [{type: text, text} | {type: image}],
  reasoning_content, thinking_blocks}, extended_content}`: from the person (`user`) a
  prompt, the skills and context added to it (`extended_content`) kept as harness text;
  from the agent a reply, with its reasoning as thinking;
- `ActionEvent {thought: [text], reasoning_content, tool_name, tool_call_id, tool_call:
  {name, arguments}, action: {kind, ...}}`: the text the model wrote with the call (a
  reply; a leading `<think>…</think>` is thinking) and the call itself (its `action`'s
  fields, else the `arguments` the model sent);
- `ObservationEvent {tool_call_id, tool_name, observation: {content, is_error}}`,
  `UserRejectObservation {rejection_reason}` and `AgentErrorEvent {error}`: the call's
  output, the last two failed;
- `CondensationSummaryEvent {summary}`: a summary of what was condensed away.

The system prompt, state updates, token counts, hooks and the like carry nothing to
search.
"""

from __future__ import annotations

from typing import Any

from findsession.domain import MessageKind
from findsession.sources.cursor import Record
from findsession.sources.epoch import iso_utc
from findsession.sources.jsonl import clean_text, leading_thinking, said
from findsession.sources.tool_args import call_message, result_message

PROMPT_CAP = 100_000
CONTEXT_CAP = 8_000
THINKING_CAP = 8_000
TOOL_INPUT_CAP = 2_000
TOOL_OUTPUT_CAP = 4_000
#: Event kinds with nothing to search.
QUIET = frozenset({
    "SystemPromptEvent", "ConversationStateUpdateEvent", "TokenEvent", "PauseEvent",
    "InterruptEvent", "LLMCompletionLogEvent", "HookExecutionEvent", "StreamingDeltaEvent",
    "Condensation", "CondensationRequest", "ConversationErrorEvent", "ACPToolCallEvent",
})  # fmt: skip
_FILE_KEYS = ("path", "file_path")


def event_records(
    event: Any, line: int, cwd: str | None, unknown: dict[str, list[int]]
) -> list[Record]:
    """The records of one event."""
    if not isinstance(event, dict):
        return []
    kind = event.get("kind")
    base = {"line": line, "cwd": cwd, "timestamp": iso_utc(event.get("timestamp"))}
    if kind == "MessageEvent":
        return _message(event, base)
    if kind == "ActionEvent":
        return _action(event, base)
    if kind == "ObservationEvent":
        observation = event.get("observation")
        observation = observation if isinstance(observation, dict) else {}
        text = _contents(observation.get("content"))
        return _output(event, text, observation.get("is_error") is True, base)
    if kind == "UserRejectObservation":
        reason = _str(event.get("rejection_reason")) or "rejected by the user"
        return _output(event, reason, True, base)
    if kind == "AgentErrorEvent":
        return _output(event, _str(event.get("error")), True, base)
    if kind == "CondensationSummaryEvent":
        return said(MessageKind.COMPACT_SUMMARY, _str(event.get("summary")), base, PROMPT_CAP)
    if not isinstance(kind, str) or kind not in QUIET:
        name = clean_text(kind) if isinstance(kind, str) else type(kind).__name__
        unknown.setdefault(name, []).append(line)
    return []


def _message(event: dict[str, Any], base: dict[str, Any]) -> list[Record]:
    message = event.get("llm_message")
    if not isinstance(message, dict):
        return []
    text = _contents(message.get("content"))
    if message.get("role") == "user" and event.get("source") == "user":
        out = said(MessageKind.PROMPT, text, base, PROMPT_CAP)
        for extra in _contents_each(event.get("extended_content")):
            out += said(MessageKind.HARNESS, extra, base, CONTEXT_CAP)
        return out
    if message.get("role") == "assistant":
        return _thinking(message, base) + said(MessageKind.REPLY, text, base, PROMPT_CAP)
    return []


def _action(event: dict[str, Any], base: dict[str, Any]) -> list[Record]:
    inline, thought = leading_thinking(_contents(event.get("thought")))
    out = _thinking(event, base)
    if not out and inline:
        out = said(MessageKind.THINKING, inline, base, THINKING_CAP)
    out += said(MessageKind.REPLY, thought, base, PROMPT_CAP)
    call = event.get("tool_call") if isinstance(event.get("tool_call"), dict) else {}
    name = _str(event.get("tool_name")) or _str(call.get("name")) or "tool"
    action = event.get("action")
    if isinstance(action, dict):
        args: Any = {k: v for k, v in action.items() if k != "kind"}
    else:
        args = call.get("arguments")
    call_id = _str(event.get("tool_call_id")) or _str(call.get("id")) or None
    out.append(call_message(name, call_id, args, base, _FILE_KEYS, TOOL_INPUT_CAP))
    return out


def _output(event: dict[str, Any], text: str, failed: bool, base: dict[str, Any]) -> list[Record]:
    text = text.strip()
    if not text:
        return []
    name, call_id = _str(event.get("tool_name")) or None, _str(event.get("tool_call_id")) or None
    return [result_message(name, call_id, text, failed, base, TOOL_OUTPUT_CAP)]


def _thinking(holder: dict[str, Any], base: dict[str, Any]) -> list[Record]:
    """`reasoning_content`, else the text of its `thinking_blocks`."""
    text = _str(holder.get("reasoning_content"))
    if not text.strip():
        blocks = holder.get("thinking_blocks")
        text = "\n".join(
            b["thinking"]
            for b in (blocks if isinstance(blocks, list) else [])
            if isinstance(b, dict) and isinstance(b.get("thinking"), str)
        )
    return said(MessageKind.THINKING, clean_text(text), base, THINKING_CAP)



def _contents(value: Any) -> str:
    return "\n".join(_contents_each(value))


def _contents_each(value: Any) -> list[str]:
    """The text of each `{type: text, text}` item (an image has none)."""
    return [
        clean_text(item["text"])
        for item in (value if isinstance(value, list) else [])
        if isinstance(item, dict) and isinstance(item.get("text"), str)
    ]


def _str(value: Any) -> str:
    return clean_text(value) if isinstance(value, str) else ""
