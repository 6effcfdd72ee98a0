"""What Pi's session entries mean: each `{type, id, parentId, timestamp}` line mapped to
format-free records.

A `message` entry holds one of Pi's agent messages: `user` (a string or text and image
blocks), `assistant` (`text`, `thinking`, `toolCall{id, name, arguments}` blocks),
`toolResult` (`toolCallId`, `content`, `isError`), `bashExecution` (a command the person
ran with `!`, and its output), and what Pi and its extensions add (`custom`, the older
`hookMessage`, `branchSummary`, `compactionSummary`). The conversation ones are put into
the block shapes Claude Code writes and read by the same mapping
(`claude_code_records.parse_record`), so a prompt, a reply, a tool call and its output
mean the same thing whichever agent wrote them. `compaction` and `branch_summary`
entries are summaries, `custom_message` entries an extension's injected text, and the
last `session_info` name is the session's title.

A fork (`pi --fork`, `/fork`, `/clone`) copies entries of another session into a new
file unchanged, `id` and `timestamp` kept: with `copies` told, each message carries
the two as its uuid, so a line a fork shares with the session it copied stays the line
of the file it was first written in (the indexer's replay check). An `id` is 8 hex
digits, unique within a file only; with the time beside it, two sessions' entries do
not meet by chance.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from findsession.domain import Message, MessageKind, MetaEvent, MetaKind
from findsession.sources.claude_code_records import (
    PROMPT_CAP,
    TOOL_INPUT_CAP,
    TOOL_OUTPUT_CAP,
    parse_record,
)
from findsession.sources.cursor import Record
from findsession.sources.jsonl import cap, clean_text

#: Message roles that are not the conversation: an extension's or Pi's own text.
_HARNESS_ROLES = frozenset(("custom", "hookMessage"))
_SUMMARY_ROLES = {"branchSummary": "summary", "compactionSummary": "summary"}


class PiParser:
    """Turns a session file's lines into records; knows the header's working directory."""

    def __init__(self, cwd: str | None = None, copies: bool = False) -> None:
        self.cwd = cwd
        #: Entries may be copied into another file (Pi's forks): messages carry uuids.
        self.copies = copies

    def parse(self, line: int, obj: dict[str, Any]) -> list[Record]:
        """Records of one line; unknown entry types give none."""
        records = self._records(line, obj)
        entry, ts = _str(obj.get("id")), _str(obj.get("timestamp"))
        if not (self.copies and entry and ts):
            return records
        uuid = f"pi:{entry}@{ts}"
        return [replace(r, uuid=uuid) if isinstance(r, Message) else r for r in records]

    def _records(self, line: int, obj: dict[str, Any]) -> list[Record]:
        kind = obj.get("type")
        ts = _str(obj.get("timestamp"))
        if kind == "session":
            self.cwd = _str(obj.get("cwd")) or self.cwd
            return []
        common: dict[str, Any] = {"line": line, "timestamp": ts, "cwd": self.cwd}
        if kind == "message" and isinstance(obj.get("message"), dict):
            return self._message(obj["message"], line, ts, common)
        if kind in ("compaction", "branch_summary"):
            return _text_message(MessageKind.COMPACT_SUMMARY, obj.get("summary"), common)
        if kind == "custom_message":
            return _text_message(MessageKind.HARNESS, _content_text(obj.get("content")), common)
        if kind == "session_info":
            name = _str(obj.get("name"))
            return [MetaEvent(MetaKind.CUSTOM_TITLE, name.strip(), line)] if name else []
        return []

    def _message(
        self, message: dict[str, Any], line: int, ts: str | None, common: dict[str, Any]
    ) -> list[Record]:
        role = _str(message.get("role"))
        if role in _HARNESS_ROLES:
            return _text_message(MessageKind.HARNESS, _content_text(message.get("content")), common)
        if role in _SUMMARY_ROLES:
            return _text_message(MessageKind.COMPACT_SUMMARY, message.get("summary"), common)
        if role == "bashExecution":
            return _bash(message, common)
        content = message.get("content")
        if role == "user":
            blocks: Any = content if isinstance(content, str) else _blocks(content)
            shaped = {"type": "user", "message": {"role": "user", "content": blocks}}
        elif role == "assistant":
            shaped = {
                "type": "assistant",
                "message": {"role": "assistant", "content": _blocks(content)},
            }
        elif role == "toolResult":
            result = {
                "type": "tool_result",
                "tool_use_id": message.get("toolCallId"),
                "content": _blocks(content),
                "is_error": message.get("isError") is True,
            }
            shaped = {"type": "user", "message": {"role": "user", "content": [result]}}
        else:
            return []
        shaped.update(timestamp=ts, cwd=self.cwd)
        return list(parse_record(shaped, line, in_subagent_file=True))


def _blocks(content: Any) -> list[dict[str, Any]]:
    """Pi's content blocks in the shapes Claude Code writes (`toolCall` → `tool_use`)."""
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if not isinstance(content, list):
        return []
    out = []
    for block in content:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind in ("text", "thinking", "image"):
            out.append(block)
        elif kind == "toolCall":
            args = block.get("arguments")
            out.append(
                {
                    "type": "tool_use",
                    "id": block.get("id"),
                    "name": block.get("name"),
                    "input": args if isinstance(args, dict) else {"arguments": args},
                }
            )
    return out


def _bash(message: dict[str, Any], common: dict[str, Any]) -> list[Record]:
    """A command the person ran in Pi (`!cmd`) and what it printed."""
    command = _str(message.get("command"))
    if not command:
        return []
    code = message.get("exitCode")
    out: list[Record] = [
        Message(MessageKind.TOOL_CALL, cap(command, TOOL_INPUT_CAP), tool_name="bash", **common)
    ]
    output = _str(message.get("output"))
    if output:
        failed = isinstance(code, int) and code != 0
        text = cap(output, TOOL_OUTPUT_CAP)
        out.append(Message(MessageKind.TOOL_OUTPUT, text, is_error=failed, **common))
    return out


def _text_message(kind: MessageKind, text: Any, common: dict[str, Any]) -> list[Record]:
    value = (_str(text) or "").strip()
    return [Message(kind, cap(value, PROMPT_CAP), **common)] if value else []


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    parts = [b.get("text") for b in _blocks(content) if b.get("type") == "text"]
    return "\n".join(p for p in parts if isinstance(p, str))


def _str(value: Any) -> str | None:
    return clean_text(value) if isinstance(value, str) and value else None
