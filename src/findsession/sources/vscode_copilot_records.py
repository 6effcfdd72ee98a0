"""What a VS Code Copilot Chat session state means: each request mapped to format-free
records.

A request `{requestId, timestamp (ms), message{text}, variableData, response[], result}`
is one turn: `message.text` is what the person typed (`variableData`, the files and
selections attached to it, is context, not a prompt). Its `response` items are the
answer: an item with no `kind` (or `markdownContent`) is reply text, `thinking` is
thinking, `toolInvocationSerialized` a tool call, `textEditGroup` an edit of the file it
names, an inline reference the name it shows in the reply; the rest (code block links,
progress, confirmations) only dresses the reply up. `result.metadata.toolCallRounds`
repeats the rounds already in the response and is not read, nor is `inputState`, an
unsent draft.

Records are numbered by request (request N is line N), since a request is assembled
from many lines of the log; the title is line 0.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any
from urllib.parse import unquote, urlparse

from findsession.domain import Message, MessageKind, MetaEvent, MetaKind
from findsession.sources.claude_code_records import (
    PROMPT_CAP,
    THINKING_CAP,
    TOOL_INPUT_CAP,
)
from findsession.sources.jsonl import cap, clean_text

_REPLY_KINDS = (None, "markdownContent", "markdownVuln")
_DRIVE = re.compile(r"^/[A-Za-z]:/")


def session_records(state: dict[str, Any], cwd: str | None) -> list[Message | MetaEvent]:
    """Every record of the session, request by request; the title last. With no `cwd`
    (an exported chat, which has no workspace beside it), the folder its replies name."""
    sid = _str(state.get("sessionId"))
    records: list[Message | MetaEvent] = []
    requests = state.get("requests")
    cwd = cwd or reply_folder(requests)
    for number, request in enumerate(requests if isinstance(requests, list) else [], 1):
        if isinstance(request, dict):
            records.extend(request_records(request, number, sid, cwd))
    title = _str(state.get("customTitle"))
    if title and title.strip():
        records.append(MetaEvent(MetaKind.AI_TITLE, title.strip(), 0))
    return records


def request_records(
    request: dict[str, Any], number: int, sid: str | None, cwd: str | None
) -> list[Message]:
    """One request's prompt and the response to it, in order."""
    rid = _str(request.get("requestId"))
    common: dict[str, Any] = {
        "line": number,
        "timestamp": _when(request.get("timestamp")),
        "cwd": cwd,
        "message_id": rid,
        "record_session_id": sid,
    }
    out: list[Message] = []
    message = request.get("message")
    typed = _str(message.get("text")) if isinstance(message, dict) else None
    if typed and typed.strip():
        out.append(Message(MessageKind.PROMPT, cap(typed.strip(), PROMPT_CAP), **common))
    said: list[str] = []
    response = request.get("response")
    for position, item in enumerate(response if isinstance(response, list) else []):
        if not isinstance(item, dict):
            continue
        kind = item.get("kind")
        if kind in _REPLY_KINDS or kind == "inlineReference":
            text = (
                _inline_name(item)
                if kind == "inlineReference"
                else _markdown(item.get("value", item.get("content")))
            )
            if text:
                said.append(text)
            continue
        message_out = _item(kind, item, position, common)
        if message_out is not None:
            out.extend(_reply(said, common))
            said = []
            out.append(message_out)
    out.extend(_reply(said, common))
    return [_numbered(m, sid, rid, n) for n, m in enumerate(out)]


def _item(kind: Any, item: dict[str, Any], position: int, common: dict[str, Any]) -> Message | None:
    if kind == "thinking":
        text = _value(item.get("value"))
        return Message(MessageKind.THINKING, cap(text, THINKING_CAP), **common) if text else None
    if kind == "toolInvocationSerialized":
        name = _str(item.get("toolId")) or "tool"
        said = _value(item.get("pastTenseMessage")) or _value(item.get("invocationMessage"))
        data = item.get("toolSpecificData")
        command = _command(data) if isinstance(data, dict) else None
        text = "\n".join(t for t in (command, said) if t)
        return Message(
            MessageKind.TOOL_CALL,
            cap(text, TOOL_INPUT_CAP),
            tool_name=name,
            tool_id=_str(item.get("toolCallId")),
            **common,
        )
    if kind == "textEditGroup":
        path = uri_path(item.get("uri"))
        if path is None:
            return None
        # An edit has no call id; its place in the response tells two edits of one file
        # in one request apart (the second is no repeat of the first).
        return Message(
            MessageKind.TOOL_CALL,
            path,
            tool_name="edit",
            tool_id=f"edit-{position}",
            files=(path,),
            **common,
        )
    return None


def _reply(said: list[str], common: dict[str, Any]) -> list[Message]:
    text = "".join(said).strip()
    return [Message(MessageKind.REPLY, cap(text, PROMPT_CAP), **common)] if text else []


def _numbered(message: Message, sid: str | None, rid: str | None, part: int) -> Message:
    """An id of the session, request and part: a copy of the session file in another
    root (VS Code moves sessions between workspaces) replays it, not doubles it."""
    if rid is None:
        return message
    return replace(message, uuid=f"vscode-copilot:{sid}:{rid}:{part}")


def reply_folder(requests: Any) -> str | None:
    """The folder VS Code resolved the replies' relative links against (a reply item's
    `baseUri`: the workspace folder), spelled as `uri_path` spells a workspace's."""
    for request in requests if isinstance(requests, list) else []:
        response = request.get("response") if isinstance(request, dict) else None
        for item in response if isinstance(response, list) else []:
            base = item.get("baseUri") if isinstance(item, dict) else None
            path = base.get("path") if isinstance(base, dict) else None
            if isinstance(path, str) and path.strip("/") and base.get("scheme") == "file":
                folder = clean_text(path[1:] if _DRIVE.match(path) else path).rstrip("/")
                return folder or None
    return None


def _inline_name(item: dict[str, Any]) -> str | None:
    """What an inline reference shows in the reply: its name, else its file's name."""
    name = _str(item.get("name"))
    if name:
        return name
    ref = item.get("inlineReference")
    path = uri_path(ref.get("uri", ref) if isinstance(ref, dict) else ref)
    return path.rstrip("/").rsplit("/", 1)[-1] if path else None


def _command(data: dict[str, Any]) -> str | None:
    """A terminal tool's command line (older builds: `command`)."""
    line = data.get("commandLine")
    if isinstance(line, dict):
        return _str(line.get("original")) or _str(line.get("toolEdited"))
    return _str(data.get("command"))


def _value(value: Any) -> str:
    """Markdown text, trimmed: a string, or `{value}` (VS Code's `IMarkdownString`)."""
    return _markdown(value).strip()


def _markdown(value: Any) -> str:
    """Markdown text as written: a reply comes in pieces, spaces at their ends included."""
    if isinstance(value, dict):
        value = value.get("value")
    return clean_text(value) if isinstance(value, str) else ""


def uri_path(uri: Any) -> str | None:
    """The path of a serialized URI (`{scheme, path, fsPath}`) or a `file://` string."""
    if isinstance(uri, dict):
        path = uri.get("fsPath") or uri.get("path")
        return clean_text(path) if isinstance(path, str) and 0 < len(path) < 1024 else None
    if isinstance(uri, str) and uri.startswith("file://"):
        path = clean_text(unquote(urlparse(uri).path))
        # `file:///c%3A/work` is the Windows folder `c:/work`.
        return (path[1:] if _DRIVE.match(path) else path) or None
    return None


def _when(ms: Any) -> str | None:
    if isinstance(ms, int | float) and not isinstance(ms, bool) and ms > 0:
        try:
            return datetime.fromtimestamp(ms / 1000, UTC).isoformat()
        except (OverflowError, OSError, ValueError):
            return None
    return None


def _str(value: Any) -> str | None:
    return clean_text(value) if isinstance(value, str) and value else None
