"""One Goose message → records: the content blocks both of Goose's layouts share.

A message is `{role, created (seconds), content: [blocks], metadata: {userVisible,
agentVisible}}`, the same in a row of `sessions.db` (`content_json`, `metadata_json`)
and on a line of an older `.jsonl` session. Blocks (serde tag `type`, camelCase):

- `text` — typed by the person in a `user` message, the reply in an `assistant` one;
- `thinking` (`thinking`) — the model's reasoning; `redactedThinking` has none to read;
- `toolRequest` / `frontendToolRequest` `{id, toolCall: {status, value: {name,
  arguments}} | {status: error, error}}` — a tool call;
- `toolResponse` `{id, toolResult: {status, value}}` in a `user` message — the tool's
  output, never a prompt; `value` is a list of MCP content items or, in later builds, a
  `CallToolResult` `{content, isError}`;
- `image`, `toolConfirmationRequest`, `actionRequired`, `systemNotification` and the
  older `conversationCompacted`, `summarizationRequested`, `contextLengthExceeded`: UI
  state or nothing to read, skipped.

A message with `userVisible: false` is one Goose put in the model's context for it (a
compaction summary, an injected instruction): the person never saw it, so it is left
out. A block kind not listed is counted and reported once per kind, never fatal.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from findsession.domain import Message, MessageKind, Problem
from findsession.sources.jsonl import cap, clean_text
from findsession.sources.tool_args import args_text
from findsession.sources.tool_args import files as arg_files

PROMPT_CAP = 100_000
THINKING_CAP = 8_000
TOOL_INPUT_CAP = 2_000
TOOL_OUTPUT_CAP = 4_000
_FILE_KEYS = ("path", "file_path", "filePath")
_SILENT = frozenset(
    {
        "image",
        "redactedThinking",
        "toolConfirmationRequest",
        "actionRequired",
        "systemNotification",
        "conversationCompacted",
        "summarizationRequested",
        "contextLengthExceeded",
    }
)


@dataclass
class Blocks:
    """What reading one session's messages keeps between them: each tool call's name by
    its id (its output comes in the next message), and the block kinds not known here."""

    tools: dict[str, str] = field(default_factory=dict)
    unknown: dict[str, list[int]] = field(default_factory=dict)

    def problems(self) -> list[Problem]:
        """One problem per unknown block kind, at its first line, with its count."""
        out = []
        for kind, lines in self.unknown.items():
            count = f"{len(lines)} block" + ("" if len(lines) == 1 else "s")
            out.append(Problem(lines[0], "unknown content block", f"{kind} ({count})"))
        return out


def visible(metadata: Any) -> bool:
    """False only for a message Goose marked as not shown to the person."""
    return not (isinstance(metadata, dict) and metadata.get("userVisible") is False)


def message_records(role: Any, content: Any, blocks: Blocks, **base: Any) -> Iterator[Message]:
    """The records of one message; `base` holds what every record carries (`line`,
    `timestamp`, `cwd`, `session_key`, `uuid`)."""
    if role not in ("user", "assistant"):
        return
    parts = [{"type": "text", "text": content}] if isinstance(content, str) else content
    for part in parts if isinstance(parts, list) else []:
        if not isinstance(part, dict):
            continue
        kind = part.get("type")
        if kind == "text":
            text = _str(part.get("text")).strip()
            if text:
                speaker = MessageKind.PROMPT if role == "user" else MessageKind.REPLY
                yield Message(speaker, cap(text, PROMPT_CAP), **base)
        elif kind == "thinking":
            thought = _str(part.get("thinking")).strip()
            if thought:
                yield Message(MessageKind.THINKING, cap(thought, THINKING_CAP), **base)
        elif kind in ("toolRequest", "frontendToolRequest"):
            yield _tool_call(part, blocks, base)
        elif kind == "toolResponse":
            output = _tool_output(part, blocks, base)
            if output is not None:
                yield output
        elif not isinstance(kind, str) or kind not in _SILENT:
            blocks.unknown.setdefault(str(kind), []).append(base["line"])


def _tool_call(part: dict[str, Any], blocks: Blocks, base: dict[str, Any]) -> Message:
    call_id = _str(part.get("id")) or None
    call = part.get("toolCall") if isinstance(part.get("toolCall"), dict) else {}
    value = call.get("value") if isinstance(call.get("value"), dict) else {}
    name = _str(value.get("name")) or "tool"
    args = value.get("arguments")
    text = (
        args_text(args, TOOL_INPUT_CAP)
        if call.get("status") != "error"
        else _str(call.get("error"))
    )
    if call_id:
        blocks.tools[call_id] = name
    return Message(
        MessageKind.TOOL_CALL,
        cap(text, TOOL_INPUT_CAP),
        tool_name=name,
        tool_id=call_id,
        files=arg_files(args, _FILE_KEYS),
        is_error=call.get("status") == "error",
        **base,
    )


def _tool_output(part: dict[str, Any], blocks: Blocks, base: dict[str, Any]) -> Message | None:
    call_id = _str(part.get("id")) or None
    result = part.get("toolResult") if isinstance(part.get("toolResult"), dict) else {}
    failed = result.get("status") == "error"
    value = result.get("value")
    if isinstance(value, dict):  # a CallToolResult
        failed = failed or value.get("isError") is True
        value = value.get("content")
    text = _str(result.get("error")) if failed and "error" in result else _content_text(value)
    if not text.strip():
        return None
    return Message(
        MessageKind.TOOL_OUTPUT,
        cap(text, TOOL_OUTPUT_CAP),
        tool_name=blocks.tools.get(call_id or ""),
        tool_id=call_id,
        is_error=failed,
        **base,
    )


def _content_text(items: Any) -> str:
    """The readable text of MCP content items: text, and a text resource's text."""
    if isinstance(items, str):
        return clean_text(items)
    out = []
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict):
            continue
        resource = item.get("resource") if isinstance(item.get("resource"), dict) else {}
        if isinstance(item.get("text"), str):
            out.append(item["text"])
        elif isinstance(resource.get("text"), str):
            out.append(resource["text"])
    return clean_text("\n".join(out))


def iso_seconds(value: Any) -> str | None:
    """Goose's `created` (epoch seconds) as ISO 8601 UTC."""
    if not isinstance(value, int | float) or isinstance(value, bool) or not 0 < value < 1e11:
        return None
    moment = datetime.fromtimestamp(value, UTC)
    return moment.isoformat(timespec="seconds").replace("+00:00", "Z")


def _str(value: Any) -> str:
    return clean_text(value) if isinstance(value, str) else ""
