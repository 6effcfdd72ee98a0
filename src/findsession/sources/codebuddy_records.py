"""What CodeBuddy Code's transcript lines mean: each JSON line mapped to format-free records.

A line is one item of the history its agent loop keeps, in the OpenAI Agents SDK's
shapes, with CodeBuddy's fields beside them (`id`, `parentId`, `timestamp` in epoch
milliseconds, `sessionId`, `cwd`, `providerData`):

- `message` with `role` `user` (`input_text` parts) or `assistant` (`output_text`
  parts); a `system` message is a separator `/clear` leaves, with no text;
- `reasoning`: the model's thinking, in `rawContent` (`reasoning_text` parts);
- `function_call`: `name`, `callId`, `arguments` (a JSON string); the assistant message
  of the same response carries the same `id`;
- `function_call_result`: `callId` (its call's), `output` (`{"type": "text", "text"}`);
  a failure says so in `providerData.toolResult` (`error`, or a shell command's
  `rawResponse.is_error`), not in `status`, which is `completed` either way;
- `custom-title` (`customTitle`, what `/rename` writes; the last one wins),
  `ai-title` (`aiTitle`, the title its model gives the session), `topic` (`topic`),
  `summary` (the first prompt again, `providerData.source: "initial-user-message"`),
  `file-history-snapshot` (the checkpoints of edited files): of these only the titles
  are read.

What CodeBuddy wrote in the person's place is not a prompt: a message it replays without
running (`providerData.skipRun`), the summary a compaction leaves
(`isCompactInternal`, `isSummary`), a teammate's message (`teammateMessage`), and text
in the wrappers Claude Code's harness uses too (`<system-reminder>`,
`<local-command-stdout>`, ...). A prompt sent wrapped in `<user_query>` is read without
the wrapper.
"""

from __future__ import annotations

from typing import Any

from findsession.domain import Message, MessageKind, MetaEvent, MetaKind
from findsession.sources import claude_code_blocks as blocks
from findsession.sources.claude_code_blocks import (
    PROMPT_CAP,
    THINKING_CAP,
    TOOL_INPUT_CAP,
    TOOL_OUTPUT_CAP,
)
from findsession.sources.claude_code_records import HARNESS_PREFIXES
from findsession.sources.epoch import epoch_iso
from findsession.sources.jsonl import clean_text, text_of, text_or_none
from findsession.sources.tool_args import args_text, files, parsed

_TITLES: dict[str, tuple[MetaKind, str]] = {
    "custom-title": (MetaKind.CUSTOM_TITLE, "customTitle"),
    "ai-title": (MetaKind.AI_TITLE, "aiTitle"),
    "topic": (MetaKind.AI_TITLE, "topic"),
}
#: Titles CodeBuddy itself passes over as placeholders (`isGeneratedPlaceholderTitle`).
_PLACEHOLDERS = frozenset({"(No content)", "/compact"})
_QUERY_OPEN, _QUERY_CLOSE = "<user_query>", "</user_query>"
#: The argument names CodeBuddy's tools give the file they read or write.
_FILE_KEYS = ("file_path", "notebook_path", "path")


def parse_line(obj: dict[str, Any], line: int, in_subagent_file: bool) -> list[Message | MetaEvent]:
    """Turn one JSON line into records; a line of another kind gives none."""
    kind = obj.get("type")
    title = _TITLES.get(kind) if isinstance(kind, str) else None
    if title is not None:
        value = obj.get(title[1])
        if isinstance(value, str) and value.strip() and value.strip() not in _PLACEHOLDERS:
            return [MetaEvent(title[0], clean_text(value.strip())[:200], line)]
        return []
    common = _common(obj, line)
    if kind == "message":
        role = obj.get("role")
        if role == "user":
            return _user(obj, common, in_subagent_file)
        if role == "assistant":
            text = text_of(obj.get("content")).strip()
            return (
                [Message(MessageKind.REPLY, blocks.capped(text, PROMPT_CAP), **common)]
                if text
                else []
            )
        return []
    if kind == "reasoning":
        text = (text_of(obj.get("rawContent")) or text_of(obj.get("content"))).strip()
        return (
            [Message(MessageKind.THINKING, blocks.capped(text, THINKING_CAP), **common)]
            if text
            else []
        )
    if kind == "function_call":
        return [_call(obj, common)]
    if kind == "function_call_result":
        return [_result(obj, common)]
    return []


def _common(obj: dict[str, Any], line: int) -> dict[str, Any]:
    """Where and when an item was written. A response's message and its calls share one
    `id`: a call is told apart by its `callId`, so no item is taken for another's copy."""
    uuid = text_or_none(obj.get("id"))
    call = text_or_none(obj.get("callId"))
    if uuid and obj.get("type") == "function_call" and call:
        uuid = f"{uuid}/{call}"
    provider = obj.get("providerData") if isinstance(obj.get("providerData"), dict) else {}
    return {
        "line": line,
        "uuid": uuid,
        "parent_uuid": text_or_none(obj.get("parentId")),
        "timestamp": epoch_iso(obj.get("timestamp")),
        "cwd": text_or_none(obj.get("cwd")),
        "record_session_id": text_or_none(obj.get("sessionId")),
        "message_id": text_or_none(provider.get("messageId")),
    }


def _user(obj: dict[str, Any], common: dict[str, Any], in_subagent_file: bool) -> list[Message]:
    text = _unwrapped(text_of(obj.get("content")).strip())
    if not text:
        return []
    provider = obj.get("providerData") if isinstance(obj.get("providerData"), dict) else {}
    teammate = provider.get("teammateMessage")
    if (
        isinstance(teammate, dict)
        and isinstance(teammate.get("from"), str)
        and not in_subagent_file
    ):
        # Another agent's message to the lead: what came back from it.
        return [Message(MessageKind.TOOL_OUTPUT, blocks.capped(text, TOOL_OUTPUT_CAP), **common)]
    if provider.get("isCompactInternal") is True and provider.get("isSummary") is True:
        kind = MessageKind.COMPACT_SUMMARY
    elif (
        provider.get("skipRun") is True
        or provider.get("isCompactInternal") is True
        or provider.get("agent") == "compact"
        or text.startswith(HARNESS_PREFIXES)
    ):
        kind = MessageKind.HARNESS
    else:
        kind = MessageKind.PROMPT
    return [Message(kind, blocks.capped(text, PROMPT_CAP), **common)]


def _unwrapped(text: str) -> str:
    """A prompt without the `<user_query>` tags CodeBuddy sends it in."""
    if text.startswith(_QUERY_OPEN) and text.endswith(_QUERY_CLOSE):
        return text[len(_QUERY_OPEN) : -len(_QUERY_CLOSE)].strip()
    return text


def _call(obj: dict[str, Any], common: dict[str, Any]) -> Message:
    args = parsed(obj.get("arguments"))
    return Message(
        MessageKind.TOOL_CALL,
        blocks.capped(args_text(args, TOOL_INPUT_CAP), TOOL_INPUT_CAP),
        tool_name=text_or_none(obj.get("name")) or "tool",
        tool_id=text_or_none(obj.get("callId")),
        files=files(args, _FILE_KEYS),
        **common,
    )


def _result(obj: dict[str, Any], common: dict[str, Any]) -> Message:
    output = obj.get("output")
    text = (
        output
        if isinstance(output, str)
        else text_of(output if isinstance(output, list) else [output])
    )
    return Message(
        MessageKind.TOOL_OUTPUT,
        blocks.capped(text, TOOL_OUTPUT_CAP),
        tool_name=text_or_none(obj.get("name")),
        tool_id=text_or_none(obj.get("callId")),
        is_error=_failed(obj),
        **common,
    )


def _failed(obj: dict[str, Any]) -> bool:
    """Whether the call failed: a tool's error (`toolResult.error`), a shell command's
    non-zero exit (`toolResult.rawResponse.is_error`), or a status other than
    `completed`."""
    if obj.get("status") not in (None, "completed"):
        return True
    provider = obj.get("providerData") if isinstance(obj.get("providerData"), dict) else {}
    result = provider.get("toolResult") if isinstance(provider.get("toolResult"), dict) else {}
    raw = result.get("rawResponse") if isinstance(result.get("rawResponse"), dict) else {}
    error = result.get("error")
    return bool(isinstance(error, str) and error.strip()) or raw.get("is_error") is True
