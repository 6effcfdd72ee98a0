"""What cursor-agent's transcripts mean: each JSONL line, or each block of an older `.txt`
transcript, mapped to format-free records.

A JSONL line is `{role, message: {content: [blocks]}}` with Anthropic-style blocks and
nothing else: no id, no time, no model. A user message wraps what the person typed in
`<user_query>`; whatever surrounds it (`<user_info>` with the OS and workspace path,
attached files, rules, reminders) is injected by the agent and is harness text. An
assistant message's blocks are read as Claude Code's are (text, thinking, tool use).

The `.txt` form writes `user:` and `assistant:` on lines of their own; an assistant
block's thinking, reply, tool calls and results are cut apart by `cursor_agent_text`.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from findsession.domain import Message, MessageKind
from findsession.sources.claude_code_records import (
    PROMPT_CAP,
    THINKING_CAP,
    TOOL_INPUT_CAP,
    TOOL_OUTPUT_CAP,
    parse_record,
)
from findsession.sources.cursor import Record
from findsession.sources.cursor_agent_text import assistant_parts
from findsession.sources.jsonl import cap, clean_text, text_of

_QUERY = re.compile(r"<user_query>\s*(.*?)\s*(?:</user_query>|\Z)", re.S)
_WORKSPACE = re.compile(r"^\s*Workspace Path:\s*(\S.*?)\s*$", re.M)
#: What the agent redacts a block to; nothing to index.
_REDACTED = "[REDACTED]"


class TranscriptParser:
    """Turns one transcript's lines into records; one parser per read.

    `cwd` is the project directory as far as the file's place tells (its project
    folder decoded against this machine's folders), until a message names it.
    """

    def __init__(self, session_id: str, timestamp: str | None, cwd: str | None) -> None:
        self.session_id = session_id
        self.timestamp = timestamp
        self.cwd = cwd

    def parse_line(self, line: int, obj: dict[str, Any]) -> list[Record]:
        """Records of one JSONL line; a line of another shape gives none."""
        role, message = obj.get("role"), obj.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        if role not in ("user", "assistant") or not isinstance(content, list):
            return []
        blocks = [b for b in content if isinstance(b, dict)]
        if role == "user":
            texts = [b["text"] for b in blocks if b.get("type") == "text" and _is_text(b)]
            records = self._user_text("\n".join(texts), line)
        else:
            said = [b for b in blocks if b.get("type") != "text" or _is_text(b)]
            as_claude = {"type": "assistant", "message": {"content": said}}
            records = [self._own(r) for r in parse_record(as_claude, line, True)]
        records += [self._output(_result_text(b), line) for b in blocks if _is_result(b)]
        return self._numbered([r for r in records if r.text])

    def _user_text(self, text: str, line: int) -> list[Message]:
        """The typed query, and what was injected around it as harness text."""
        text = clean_text(text).strip()
        if not text:
            return []
        self.cwd = workspace_in(text) or self.cwd
        query = _QUERY.search(text)
        if query is None:
            kind = MessageKind.HARNESS if text.startswith("<") else MessageKind.PROMPT
            return [self._message(kind, cap(text, PROMPT_CAP), line)]
        rest = (text[: query.start()] + text[query.end() :]).strip()
        out = [self._message(MessageKind.PROMPT, cap(query.group(1), PROMPT_CAP), line)]
        if rest:
            out.append(self._message(MessageKind.HARNESS, cap(rest, TOOL_OUTPUT_CAP), line))
        return out

    def parse_text(self, data: str) -> list[Record]:
        """Records of a whole `.txt` transcript, each at the line its block starts on."""
        records: list[Message] = []
        role: str | None = None
        body: list[tuple[int, str]] = []
        lines = data.splitlines()
        for number, raw in enumerate([*lines, "user:"], 1):
            if raw.strip() in ("user:", "assistant:"):
                if role == "user" and body:
                    records += self._user_text("\n".join(t for _, t in body), body[0][0])
                elif role == "assistant":
                    records += self._assistant_text(body)
                role, body = raw.strip()[:-1], []
            elif role is not None and number <= len(lines):
                body.append((number, raw))
        return self._numbered([r for r in records if r.text])

    def _assistant_text(self, body: list[tuple[int, str]]) -> list[Message]:
        caps = {MessageKind.THINKING: THINKING_CAP, MessageKind.REPLY: PROMPT_CAP}
        out = []
        for part in assistant_parts(body):
            if part.kind == MessageKind.TOOL_OUTPUT:
                out.append(self._output(part.text, part.line))
                continue
            cap_at = caps.get(part.kind, TOOL_INPUT_CAP)
            message = self._message(part.kind, cap(part.text, cap_at), part.line)
            if part.tool is not None:
                message = replace(message, tool_name=clean_text(part.tool))
            out.append(message)
        return out

    def _message(self, kind: MessageKind, text: str, line: int) -> Message:
        return Message(kind, text, line, timestamp=self.timestamp, cwd=self.cwd)

    def _output(self, text: str, line: int) -> Message:
        return self._message(MessageKind.TOOL_OUTPUT, cap(clean_text(text), TOOL_OUTPUT_CAP), line)

    def _own(self, record: Record) -> Message:
        assert isinstance(record, Message)  # an assistant line gives messages only
        return replace(record, timestamp=self.timestamp, cwd=self.cwd)

    def _numbered(self, records: list[Message]) -> list[Record]:
        """Each message gets an id of the session, line and part: a copy of the transcript
        read from another root replays it, not doubles it."""
        parts: dict[int, int] = {}
        out: list[Record] = []
        for rec in records:
            part = parts.get(rec.line, 0)
            parts[rec.line] = part + 1
            out.append(replace(rec, uuid=f"cursor-agent:{self.session_id}:{rec.line}:{part}"))
        return out


def workspace_in(text: str) -> str | None:
    """The `Workspace Path:` the agent injects in `<user_info>`, if the text holds one."""
    found = _WORKSPACE.search(text)
    return clean_text(found.group(1)) if found else None


def _is_text(block: dict[str, Any]) -> bool:
    text = block.get("text")
    return isinstance(text, str) and text.strip() != _REDACTED


def _is_result(block: dict[str, Any]) -> bool:
    return block.get("type") in ("tool_result", "command_output")


def _result_text(block: dict[str, Any]) -> str:
    """A tool result's text: its content (a string or text blocks), or a shell output."""
    return text_of(block.get("content", block.get("output")))
