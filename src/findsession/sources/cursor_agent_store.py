"""A cursor-agent chat kept only in its own store, as builds of 2025 kept every chat.

Before transcripts, cursor-agent kept a chat in `~/.cursor/chats/<md5 of the
folder>/<chat id>/store.db` alone. Its `blobs` table holds content-addressed blobs (`id`
the SHA-256 of `data`); the `meta` row names the chat's latest root blob
(`latestRootBlobId`, `cursor_agent_db`), a protocol-buffers message whose field 1,
repeated, lists the ids of the chat's messages in order. Each message is JSON in the AI
SDK's form: `{role: system|user|assistant|tool, content}`, `content` a string or parts
(`text`, `reasoning`, `tool-call` with `toolName` and `args`, `tool-result` with
`result`). They are read as the transcript lines of the same chat would be
(`cursor_agent_records`): a part becomes the block a transcript writes for it.

The store names no folder, but the folder it lies in is named by the MD5 of the chat's
workspace path: a path the chat's tool calls name, or one of its parents, whose MD5 is
that name is the chat's folder (where no injected `Workspace Path:` names it).

Only reads: the connection comes from `foreign_db.reading`.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from findsession.domain import MetaEvent, MetaKind, Problem
from findsession.sources import foreign_db
from findsession.sources.base import SourceFile
from findsession.sources.cursor import Cursor, Reading, Record
from findsession.sources.cursor_agent_db import blob, has_blobs, meta_value
from findsession.sources.cursor_agent_meta import decoded_json, folder_meta, started_at
from findsession.sources.cursor_agent_records import TranscriptParser, workspace_in
from findsession.sources.places.clis import CURSOR_AGENT_CHATS as CHATS
from findsession.sources.protobuf_wire import Wire, WireError

STORE = "store.db"
#: The root blob's field that lists the messages.
_MESSAGES_FIELD = 1
#: A message blob larger than this is not one the agent wrote as JSON.
_MESSAGE_MAX = 64 * 1024 * 1024
#: An absolute path in a tool call's arguments (POSIX, or Windows with its drive).
_PATH = re.compile(r"(?:[A-Za-z]:\\|/)[^\s\"'`<>|*?:]+")
#: Paths tried against the folder's name, at most.
_CANDIDATES = 2000


@dataclass
class StoreChat:
    """A store's chat: its root blob's id (it changes with every message), its messages
    as transcript lines, and the folder its system prompt names, if any."""

    root: str | None
    lines: list[dict[str, Any]]
    cwd: str | None
    bytes_read: int = 0


def read_chat(path: Path, problems: list[Problem]) -> StoreChat:
    """The chat in a store. Raises `OSError` when the database cannot be read now."""
    with foreign_db.reading(path) as conn:
        meta = decoded_json(meta_value(conn)) or {}
        root = meta.get("latestRootBlobId")
        if not isinstance(root, str) or not root:
            return StoreChat(None, [], None)
        if not has_blobs(conn):
            problems.append(Problem(0, "not a cursor-agent chat store", "no blobs table"))
            return StoreChat(root, [], None)
        data = blob(conn, root, _MESSAGE_MAX)
        if data is None:
            problems.append(Problem(0, "chat root missing", root[:16]))
            return StoreChat(root, [], None)
        try:
            ids = [v.hex() for v in Wire.parse(data).raw(_MESSAGES_FIELD) if len(v) == 32]
        except WireError as exc:
            problems.append(Problem(0, "chat root unreadable", str(exc)[:80]))
            return StoreChat(root, [], None)
        chat = StoreChat(root, [], None, len(data))
        for number, blob_id in enumerate(ids, 1):
            raw = blob(conn, blob_id, _MESSAGE_MAX)
            chat.bytes_read += len(raw or b"")
            message = _json(raw)
            if message is None:
                problems.append(Problem(number, "message blob unreadable", blob_id[:16]))
                continue
            if message.get("role") == "system":
                chat.cwd = chat.cwd or workspace_in(_text(message.get("content")))
            chat.lines.append(as_transcript_line(message))
    chat.cwd = chat.cwd or folder_hashed(path.parent.parent.name, chat.lines)
    return chat


def folder_hashed(name: str, lines: list[dict[str, Any]]) -> str | None:
    """The path, among those the chat's tool calls name and their parents, whose MD5 is
    `name` (the chats folder's name for the chat's workspace); None when none is."""
    if not re.fullmatch(r"[0-9a-f]{32}", name):
        return None
    seen: set[str] = set()
    for line in lines:
        for block in line["message"]["content"]:
            if block.get("type") != "tool_use":
                continue
            for found in _PATH.findall(json.dumps(block.get("input"), ensure_ascii=False)):
                path = found.replace("\\\\", "\\").rstrip("/\\")
                while path and path not in seen and len(seen) < _CANDIDATES:
                    seen.add(path)
                    if hashlib.md5(path.encode("utf-8"), usedforsecurity=False).hexdigest() == name:
                        return path
                    path = path[: max(path.rfind("/"), path.rfind("\\"), 0)]
    return None


def chat_records(chat: StoreChat, session_id: str, when: str | None) -> list[Record]:
    """The chat's records, numbered by message (from 1), as its transcript's would be."""
    parser = TranscriptParser(session_id, when, chat.cwd)
    return [r for number, line in enumerate(chat.lines, 1) for r in parser.parse_line(number, line)]


def as_transcript_line(message: dict[str, Any]) -> dict[str, Any]:
    """An AI SDK message as the transcript line cursor-agent writes for it; a tool's
    message becomes a user line of `tool_result` blocks, as in Anthropic's form."""
    role, content = message.get("role"), message.get("content")
    parts = [{"type": "text", "text": content}] if isinstance(content, str) else content
    blocks = [_block(p) for p in parts if isinstance(p, dict)] if isinstance(parts, list) else []
    return {
        "role": "user" if role == "tool" else role,
        "message": {"content": [b for b in blocks if b is not None]},
    }


def _block(part: dict[str, Any]) -> dict[str, Any] | None:
    kind = part.get("type")
    if kind == "text":
        return {"type": "text", "text": part.get("text")}
    if kind == "reasoning":
        return {"type": "thinking", "thinking": part.get("text")}
    if kind == "tool-call":
        args = part.get("args", part.get("input"))
        return {"type": "tool_use", "id": part.get("toolCallId"), "name": part.get("toolName"),
                "input": args if isinstance(args, dict) else {"input": args}}  # fmt: skip
    if kind == "tool-result":
        result = part.get("result", part.get("output"))
        text = result if isinstance(result, str) else json.dumps(result, ensure_ascii=False)
        return {"type": "tool_result", "tool_use_id": part.get("toolCallId"), "content": text}
    return None


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(p["text"] for p in content if isinstance(p, dict)
                         and isinstance(p.get("text"), str))  # fmt: skip
    return ""


def _json(raw: bytes | None) -> dict[str, Any] | None:
    if raw is None:
        return None
    try:
        value = json.loads(raw.decode("utf-8", "replace"))
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def read_store(sf: SourceFile, cursor: Cursor | None, mtime: str) -> Reading:
    """A chat kept only in its store, whole, unless its root blob is the one read last;
    its messages carry the store's time, the first one the chat's start."""
    problems: list[Problem] = []
    chat = read_chat(sf.path, problems)
    now = Cursor(os.stat(sf.path).st_size, 0, None, {"root": chat.root or ""})
    if chat.root and cursor is not None and (cursor.state or {}).get("root") == chat.root:
        return Reading([], now, fresh=False, unchanged=True)
    meta = folder_meta(sf.path.parent)
    records = chat_records(chat, sf.session_id, mtime)
    if meta.created:
        records = started_at(records, meta.created)
    if meta.title:
        records.append(MetaEvent(MetaKind.CUSTOM_TITLE, meta.title, 0))
    return Reading(records, now, fresh=True, bytes_read=chat.bytes_read,
                   lines_read=len(chat.lines), problems=problems)  # fmt: skip


def stores_of(transcript: Path, session_id: str) -> tuple[Path, ...]:
    """The chat's `store.db`, read as the session while it had no transcript: the
    transcript replaces it."""
    home = next((p.parent for p in transcript.parents if p.name == "projects"), None)
    if home is None:
        return ()
    try:
        hashes = sorted(os.listdir(home / CHATS))
    except OSError:
        return ()
    return tuple(s for h in hashes if (s := home / CHATS / h / session_id / STORE).is_file())
