"""What a Cursor IDE chat means: a composer (or an older chat tab) and its messages
("bubbles"), mapped to format-free records.

A bubble is `{type, text, rawText, createdAt, isThought, thinking, toolFormerData,
workspaceProjectDir}`: `type` 1 (or `"user"`) is the person, whose `text` (else
`rawText`) is what they typed; `type` 2 (`"ai"`, `"assistant"`) is the agent: its text
a reply, or thinking when `isThought` is set (or in its `thinking` field), and a tool
call when it carries `toolFormerData{name, toolCallId, status, rawArgs | params,
result}`. A tool bubble's `result` is the tool's output; where the result was pruned,
its text is. Older builds and Windsurf's chat panel write the same bubbles with string
types and no tools.

Within the database file, a chat's records are numbered `foreign_db.line_of(rank,
position)`: the rank is a hash of the chat's id (Cursor's key-value tables replace a
row on every write, so a row id would move), position 0 holds the title, 1 the parent
of a subagent, and the bubbles follow from 2 in the conversation's order.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

from findsession.domain import Message, MessageKind, MetaEvent, MetaKind, Problem
from findsession.sources.claude_code_records import (
    PROMPT_CAP,
    THINKING_CAP,
    TOOL_INPUT_CAP,
    TOOL_OUTPUT_CAP,
)
from findsession.sources.cursor import Record
from findsession.sources.foreign_db import line_of
from findsession.sources.jsonl import cap, clean_text
from findsession.sources.names import entry_name
from findsession.sources.tool_args import args_text
from findsession.sources.tool_args import files as arg_files
from findsession.sources.vscode_copilot_records import uri_path

#: Names a chat has before anyone names it.
PLACEHOLDER_TITLES = frozenset({"new chat", "new agent", "new composer", "untitled"})
TITLE, PARENT, FIRST_BUBBLE = 0, 1, 2
_USER = (1, "1", "user", "human")
_AGENT = (2, "2", "ai", "assistant", "bot")
_TEXT_KEYS = ("text", "rawText", "initText", "content")
_FILE_KEYS = ("target_file", "relative_workspace_path", "file_path", "path", "filePath")
_FAILED = ("error", "rejected", "cancelled", "aborted")
#: Characters of a bad value kept to show where it was.
_PREVIEW = 120
#: `Date.toUTCString()`: `Mon, 07 Dec 2026 05:41:14 GMT`.
_RFC1123 = re.compile(r"\A[A-Z][a-z]{2}, \d{1,2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT\Z")


@dataclass
class Chat:
    """One chat as the database holds it: its id, its own object (a composer, a chat
    tab), its bubbles in conversation order (`(bubble id, value)`, a value still raw
    JSON or already an object), and the folder its workspace opened, where the
    database's place tells it."""

    key: str
    data: dict[str, Any]
    bubbles: list[tuple[str | None, Any]] = field(default_factory=list)
    cwd: str | None = None
    #: The agent's name for itself in uuids and ids (`cursor`, `windsurf`).
    agent: str = "cursor"


def rank_of(key: str) -> int:
    """A chat's rank in the file's line numbers: 38 bits of a hash of its id, stable
    however often the database rewrites the chat's row."""
    digest = hashlib.blake2b(key.encode("utf-8", "replace"), digest_size=5).digest()
    return int.from_bytes(digest, "big") >> 2


def loads(value: Any) -> Any:
    """A stored JSON value (text or bytes); `ValueError` when it does not parse."""
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    if not isinstance(value, str):
        raise ValueError("not a JSON text")
    try:
        return json.loads(value)
    except RecursionError as exc:
        raise ValueError("nested too deeply") from exc


def chat_records(chat: Chat, problems: list[Problem]) -> list[Record]:
    """Every record of one chat: its messages, then its title and parent. A bubble
    that does not parse, or of a kind not known here, is a problem and skipped."""
    rank = rank_of(chat.key)
    bubbles: list[tuple[int, str | None, dict[str, Any]]] = []
    for position, (bid, raw) in enumerate(chat.bubbles, FIRST_BUBBLE):
        line = line_of(rank, position)
        try:
            bubble = raw if isinstance(raw, dict) else loads(raw)
        except ValueError as exc:
            problems.append(Problem(line, f"malformed message JSON: {exc}", _preview(raw)))
            continue
        if isinstance(bubble, dict):
            bubbles.append((line, bid, bubble))
        else:
            problems.append(Problem(line, "a message that is not a JSON object", _preview(raw)))
    cwd = chat.cwd or workspace_dir(chat.data)
    cwd = cwd or next((d for _, _, b in bubbles if (d := _str(b.get("workspaceProjectDir")))), None)
    # A chat panel tab keeps no time but its `lastSendTime` (ms, when its last prompt
    # was sent): its messages get that rather than none, so --after/--before see them.
    sent = when(chat.data.get("lastSendTime"))
    stamp = when(chat.data.get("createdAt")) or sent
    out: list[Record] = []
    for number, (line, bid, bubble) in enumerate(bubbles, 1):
        own = when(bubble.get("createdAt")) or when(bubble.get("timestamp"))
        if own is None and number == len(bubbles):
            own = when(chat.data.get("lastUpdatedAt")) or sent  # the chat's last write
        stamp = own or stamp
        uuid = f"{chat.agent}:{chat.key}:{bid or line}"
        base = Message(MessageKind.HARNESS, "", line, uuid=uuid, timestamp=stamp, cwd=cwd)
        messages = bubble_messages(bubble, replace(base, session_key=chat.key))
        if messages is None:
            kind = bubble.get("type", bubble.get("role"))
            problems.append(Problem(line, "unknown message type", _preview(kind)))
            continue
        out.extend(messages)
    if not out:
        return []
    title = _str(chat.data.get("name")) or _str(chat.data.get("chatTitle"))
    if title and title.strip() and title.strip().lower() not in PLACEHOLDER_TITLES:
        line = line_of(rank, TITLE)
        out.append(MetaEvent(MetaKind.CUSTOM_TITLE, title.strip(), line, session_key=chat.key))
    parent = parent_of(chat.data)
    if parent and parent != chat.key:
        out.append(MetaEvent(MetaKind.PARENT, parent, line_of(rank, PARENT), session_key=chat.key))
    return out


def editor_text(text: str) -> str:
    """The text of an editor's saved state (`initText` in older chat panels: the Lexical
    editor's JSON, `{"root": {"children": [paragraphs of text nodes]}}`), a paragraph a
    line; any other text as it is."""
    if not text.startswith('{"root"'):
        return text
    try:
        state = json.loads(text)
    except ValueError:
        return text
    root = state.get("root") if isinstance(state, dict) else None
    if not isinstance(root, dict) or not isinstance(root.get("children"), list):
        return text
    return "\n".join(_node_text(child) for child in root["children"])


def _node_text(node: Any, depth: int = 0) -> str:
    """A Lexical node's text: its own, or its children's run together."""
    if not isinstance(node, dict) or depth > 50:
        return ""
    own = node.get("text")
    if isinstance(own, str):
        return own
    children = node.get("children")
    if not isinstance(children, list):
        return ""
    return "".join(_node_text(child, depth + 1) for child in children)


def bubble_messages(bubble: dict[str, Any], base: Message) -> list[Message] | None:
    """One bubble's messages, each a copy of `base` (its line, uuid, time and folder);
    None for a bubble of a type not known here."""
    kind = bubble.get("type", bubble.get("role"))
    text = next((t for k in _TEXT_KEYS if (t := _str(bubble.get(k))) and t.strip()), "")
    text = editor_text(text)
    if kind in _USER:
        return [_as(base, MessageKind.PROMPT, cap(text.strip(), PROMPT_CAP))] if text else []
    if kind not in _AGENT:
        return None
    out: list[Message] = []
    thinking = bubble.get("thinking")
    thought = _str(thinking.get("text")) if isinstance(thinking, dict) else _str(thinking)
    if thought and thought.strip():
        out.append(_as(base, MessageKind.THINKING, cap(thought.strip(), THINKING_CAP)))
    tool = bubble.get("toolFormerData")
    if isinstance(tool, dict) and (tool.get("name") or tool.get("toolCallId")):
        return out + _tool_messages(tool, text, base)
    if text and bubble.get("isThought"):
        out.append(_as(base, MessageKind.THINKING, cap(text.strip(), THINKING_CAP)))
    elif text:
        out.append(_as(base, MessageKind.REPLY, cap(text.strip(), PROMPT_CAP)))
    return out


def _tool_messages(tool: dict[str, Any], text: str, base: Message) -> list[Message]:
    """A tool call and its output. The bubble's text is the output where the result
    was pruned, else something the agent said before calling."""
    name = _str(tool.get("name")) or "tool"
    call_id = _str(tool.get("toolCallId"))
    args = _json_or_text(tool.get("rawArgs", tool.get("params")))
    result = _result_text(tool.get("result"))
    out: list[Message] = []
    if text and result and text.strip() != result.strip():
        out.append(_as(base, MessageKind.REPLY, cap(text.strip(), PROMPT_CAP)))
    tool_base = replace(base, tool_name=name, tool_id=call_id)
    call = _as(
        tool_base, MessageKind.TOOL_CALL, cap(args_text(args, TOOL_INPUT_CAP), TOOL_INPUT_CAP)
    )
    out.append(replace(call, files=arg_files(args, _FILE_KEYS)))
    output = result or text
    if output.strip():
        failed = str(tool.get("status") or "").lower() in _FAILED
        done = _as(tool_base, MessageKind.TOOL_OUTPUT, cap(output, TOOL_OUTPUT_CAP))
        out.append(replace(done, is_error=failed))
    return out


def workspace_dir(data: dict[str, Any]) -> str | None:
    """The folder a composer's `workspaceIdentifier.uri` names, if it names one."""
    ident = data.get("workspaceIdentifier")
    return uri_path(ident.get("uri")) if isinstance(ident, dict) else None


def workspace_id(data: dict[str, Any]) -> str | None:
    """The workspace storage id a composer names (its folder under `workspaceStorage`)."""
    ident = data.get("workspaceIdentifier")
    wid = ident.get("id") if isinstance(ident, dict) else None
    return entry_name(wid)


def parent_of(data: dict[str, Any]) -> str | None:
    """The composer that started this one (a subagent, a best-of-N sibling), as the
    composer itself names it."""
    info = data.get("subagentInfo")
    parent = info.get("parentComposerId") if isinstance(info, dict) else None
    return _str(parent) or _str(data.get("parentComposerId"))


def when(value: Any) -> str | None:
    """A millisecond epoch, an ISO text, or a JavaScript `Date.toUTCString()` text
    (`Mon, 07 Dec 2026 05:41:14 GMT`, Sourcegraph Cody's chat ids), as ISO 8601 UTC
    ending in `Z`."""
    moment: datetime | None = None
    if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
        try:
            moment = datetime.fromtimestamp(value / 1000, UTC)
        except (OverflowError, OSError, ValueError):
            return None
    elif isinstance(value, str) and value.strip():
        try:
            moment = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            moment = _utc_string(value.strip())
        if moment is None:
            return None
        moment = moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
    if moment is None:
        return None
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _utc_string(text: str) -> datetime | None:
    """An RFC 1123 date (`Date.toUTCString()`), or None for any other text."""
    if not _RFC1123.match(text):
        return None
    try:
        return parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None


def _as(base: Message, kind: MessageKind, text: str) -> Message:
    return replace(base, kind=kind, text=text)


def _json_or_text(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return json.loads(value)
        except (ValueError, RecursionError):
            return value
    return value


def _result_text(result: Any) -> str:
    result = _json_or_text(result)
    if isinstance(result, str):
        return clean_text(result)
    if isinstance(result, dict):
        for key in ("output", "contents", "content", "result", "error"):
            if isinstance(result.get(key), str):
                return clean_text(result[key])
    if result is None:
        return ""
    return clean_text(json.dumps(result, ensure_ascii=False))


def _str(value: Any) -> str | None:
    return clean_text(value) if isinstance(value, str) and value else None


def _preview(value: Any) -> str:
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    return clean_text(str(value))[:_PREVIEW]
