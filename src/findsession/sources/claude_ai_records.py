"""What a Claude.ai conversation means, mapped to format-free records.

A conversation of `conversations.json` is `{uuid, name, summary, created_at,
updated_at (ISO 8601), account: {uuid}, chat_messages}`, its messages in the order they
were said: `{uuid, sender: human | assistant, text, content, created_at, updated_at,
attachments, files}`. `content` is a list of blocks:

- `text` (`text`): what the person typed, or the reply;
- `thinking` (`thinking`): the model's reasoning;
- `tool_use` (`name`, `input`): a tool call; an artifact (`artifacts`, its `input`
  `{id, type, title, command, content, language}`) is code or a document the reply
  wrote, kept in the reply as a fenced block under its title;
- `tool_result` (`content`: text blocks or a string, `is_error`): the tool's output.

The flat `text` repeats the blocks with each tool block replaced by a placeholder and
the thinking inlined, so it is read only when a message has no blocks. An attachment
(`{file_name, file_size, file_type, extracted_content}`, a pasted or uploaded text
file) is named beside the prompt with the text Claude.ai extracted from it; a file
(`{file_name, file_uuid}`, an image or a document) by its name. The export names no
model; a conversation's `model`, where one is written, is kept.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from findsession.domain import Message, MessageKind, Problem
from findsession.sources.chat_export import Conversation, heads, numbered, problem_line
from findsession.sources.chatgpt_records import ATTACHMENT
from findsession.sources.claude_code_records import (
    PROMPT_CAP,
    THINKING_CAP,
    TOOL_INPUT_CAP,
    TOOL_OUTPUT_CAP,
)
from findsession.sources.cursor import Record
from findsession.sources.epoch import iso_utc
from findsession.sources.jsonl import cap, clean_text
from findsession.sources.tool_args import args_text

#: What the flat `text` holds where a block could not be shown.
PLACEHOLDER = "```\nThis block is not supported on your current device yet.\n```"
_ARTIFACTS = "artifacts"


def conversation_records(conv: Conversation, problems: list[Problem]) -> list[Record]:
    """The conversation's title, revision and messages, in the order they were said."""
    doc = conv.value
    title = _str(doc.get("name"))
    revision = iso_utc(doc.get("updated_at")) or iso_utc(doc.get("created_at"))
    model = _str(doc.get("model"))
    chat = doc.get("chat_messages")
    if not isinstance(chat, list):
        problems.append(
            Problem(problem_line(conv), "a conversation with no chat_messages", conv.key)
        )
        chat = []
    when = iso_utc(doc.get("created_at"))
    unknown: dict[str, int] = {}
    messages: list[Message] = []
    for msg in chat:
        if not isinstance(msg, dict):
            continue
        when = iso_utc(msg.get("created_at")) or when
        base = {"line": 0, "timestamp": when, "message_id": _str(msg.get("uuid"))}
        sender = msg.get("sender")
        if sender == "human":
            messages.extend(_said(msg, MessageKind.PROMPT, base, unknown))
            messages.extend(_attachments(msg, base))
        elif sender == "assistant":
            messages.extend(_said(msg, MessageKind.REPLY, {**base, "version": model}, unknown))
    for kind, n in sorted(unknown.items()):
        problems.append(
            Problem(problem_line(conv), "unknown content block", f"{kind} ({n}) in {conv.key}")
        )
    return [*heads(conv, title, revision), *numbered(conv, messages)]


def _said(
    msg: dict[str, Any], speaker: MessageKind, base: dict[str, Any], unknown: dict[str, int]
) -> Iterator[Message]:
    """A message's blocks, or its flat text when it has none."""
    blocks = msg.get("content")
    if not isinstance(blocks, list) or not blocks:
        text = (_str(msg.get("text")) or "").replace(PLACEHOLDER, "").strip()
        if text:
            yield Message(speaker, cap(text, PROMPT_CAP), **base)
        return
    calls: dict[str, str] = {}
    for block in blocks:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text":
            text = (_str(block.get("text")) or "").strip()
            if text:
                yield Message(speaker, cap(text, PROMPT_CAP), **base)
        elif kind == "thinking":
            text = (_str(block.get("thinking")) or "").strip()
            if text:
                yield Message(MessageKind.THINKING, cap(text, THINKING_CAP), **base)
        elif kind == "tool_use":
            yield from _tool_use(block, speaker, base, calls)
        elif kind == "tool_result":
            text = _result_text(block.get("content"))
            if text.strip():
                name = _str(block.get("name")) or calls.get(str(block.get("tool_use_id")), "tool")
                yield Message(
                    MessageKind.TOOL_OUTPUT,
                    cap(text, TOOL_OUTPUT_CAP),
                    tool_name=name,
                    tool_id=_str(block.get("tool_use_id")),
                    is_error=block.get("is_error") is True,
                    **base,
                )
        elif kind not in ("token_budget", "image", "document"):
            unknown[str(kind)] = unknown.get(str(kind), 0) + 1


def _tool_use(
    block: dict[str, Any], speaker: MessageKind, base: dict[str, Any], calls: dict[str, str]
) -> Iterator[Message]:
    name = _str(block.get("name")) or "tool"
    calls[str(block.get("id"))] = name
    args = block.get("input")
    if name == _ARTIFACTS and isinstance(args, dict) and _str(args.get("content")):
        # An artifact is what the reply wrote: its code stays code, under its title.
        title = _str(args.get("title"))
        language = _str(args.get("language")) or ""
        body = f"```{language}\n{args['content']}\n```"
        text = f"{title}\n\n{body}" if title else body
        yield Message(MessageKind.REPLY, cap(clean_text(text), PROMPT_CAP), **base)
        return
    yield Message(
        MessageKind.TOOL_CALL,
        cap(args_text(args, TOOL_INPUT_CAP), TOOL_INPUT_CAP),
        tool_name=name,
        tool_id=_str(block.get("id")),
        **base,
    )


def _attachments(msg: dict[str, Any], base: dict[str, Any]) -> Iterator[Message]:
    """Each file given with the prompt: its name, and the text Claude.ai took from it."""
    for key in ("attachments", "files"):
        items = msg.get(key)
        for item in items if isinstance(items, list) else []:
            if not isinstance(item, dict):
                continue
            name = _str(item.get("file_name"))
            if not name:
                continue
            yield Message(MessageKind.TOOL_CALL, name, tool_name=ATTACHMENT, files=(name,), **base)
            extracted = _str(item.get("extracted_content"))
            if extracted and extracted.strip():
                yield Message(
                    MessageKind.TOOL_OUTPUT,
                    cap(extracted, TOOL_OUTPUT_CAP),
                    tool_name=ATTACHMENT,
                    **base,
                )


def _result_text(content: Any) -> str:
    if isinstance(content, str):
        return clean_text(content)
    out = []
    for part in content if isinstance(content, list) else []:
        if isinstance(part, dict) and isinstance(part.get("text"), str):
            out.append(clean_text(part["text"]))
        elif isinstance(part, str):
            out.append(clean_text(part))
    return "\n".join(out)


def _str(value: Any) -> str | None:
    return clean_text(value) if isinstance(value, str) and value else None
