"""What a Cline CLI session (the `cline` command, 3.x) keeps, as format-free records.

The CLI keeps its data outside any editor: `$CLINE_DATA_DIR`, else `$CLINE_DIR/data`,
else `~/.cline/data` (`--config` moves `CLINE_DIR`'s place for one run), and its sessions
under `sessions/` there (`$CLINE_SESSION_DATA_DIR` moves them alone). A session is a
folder `sessions/<id>/` holding `<id>.json` (its manifest: `cwd`, `prompt`, `source`,
`metadata.title`) and `<id>.messages.json`, `{version, sessionId, messages: [...]}`,
rewritten whole after every message; `db/sessions.db` indexes the same manifests. A
message is `{role, content: [blocks], ts (ms)}` in the shape Claude's API gives it
(`text`, `thinking`, `tool_use`, `tool_result`). What the person typed is wrapped in
`<user_input mode="act|plan|yolo">`; the CLI's own nudges are user messages that begin
`[SYSTEM] `. A teammate's messages sit in its lead's folder under its own stem.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from findsession.domain import Message, MessageKind, MetaEvent, MetaKind, Problem
from findsession.sources.claude_code_blocks import input_files, input_text, result_text
from findsession.sources.epoch import epoch_iso
from findsession.sources.jsonl import cap, clean_text

MESSAGES = ".messages.json"
PROMPT_CAP = 100_000
THINKING_CAP = 8_000
TOOL_INPUT_CAP = 2_000
TOOL_OUTPUT_CAP = 4_000
_WRAPPED = re.compile(r"^\s*<user_input\b[^>]*>(.*)</user_input>\s*$", re.S)

Record = Message | MetaEvent


def sessions_folder() -> Path:
    """Where the CLI keeps its sessions on this machine (its own resolution order)."""
    if value := os.environ.get("CLINE_SESSION_DATA_DIR", "").strip():
        return Path(value)
    data = os.environ.get("CLINE_DATA_DIR", "").strip()
    if not data:
        home = os.environ.get("CLINE_DIR", "").strip() or str(Path.home() / ".cline")
        data = str(Path(home) / "data")
    return Path(data) / "sessions"


def is_messages(path: Path) -> bool:
    return path.name.endswith(MESSAGES) and len(path.name) > len(MESSAGES)


def stem(path: Path) -> str:
    return path.name[: -len(MESSAGES)]


def session_records(doc: Any, manifest: dict[str, Any], problems: list[Problem]) -> list[Record]:
    """Every message of a session, numbered by its place (from 1), each with the folder
    the session worked in; the title last."""
    if not isinstance(doc, dict):
        problems.append(Problem(1, "not a JSON object", type(doc).__name__))
        return []
    messages = doc.get("messages") if isinstance(doc.get("messages"), list) else []
    cwd = _str(manifest.get("cwd")) or _str(manifest.get("workspace_root"))
    results = _results(messages)
    records: list[Record] = []
    unknown: dict[str, list[int]] = {}
    for number, msg in enumerate(messages, 1):
        if not isinstance(msg, dict):
            continue
        base = {"line": number, "timestamp": epoch_iso(msg.get("ts")), "cwd": cwd}
        records.extend(_message(msg, base, results, unknown))
    for kind, numbers in unknown.items():
        count = f"{len(numbers)} block" + ("" if len(numbers) == 1 else "s")
        problems.append(Problem(numbers[0], "unknown block kind", f"{kind} ({count})"))
    metadata = manifest.get("metadata") if isinstance(manifest.get("metadata"), dict) else {}
    title = _str(metadata.get("title"))
    if title and title.strip():
        records.append(MetaEvent(MetaKind.AI_TITLE, title.strip(), 0))
    return records


def _message(
    msg: dict[str, Any],
    base: dict[str, Any],
    results: dict[str, dict[str, Any]],
    unknown: dict[str, list[int]],
) -> list[Message]:
    role = msg.get("role")
    content = msg.get("content")
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
    out: list[Message] = []
    for block in blocks if isinstance(blocks, list) else []:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text":
            text = (_str(block.get("text")) or "").strip()
            if role == "user":
                if text.startswith("[SYSTEM] "):
                    continue  # the CLI's nudge, not the person's words
                wrapped = _WRAPPED.match(text)
                text = wrapped.group(1).strip() if wrapped else text
            if text:
                speaker = MessageKind.PROMPT if role == "user" else MessageKind.REPLY
                out.append(Message(speaker, cap(text, PROMPT_CAP), **base))
        elif kind == "thinking":
            thought = (_str(block.get("thinking")) or "").strip()
            if thought:
                out.append(Message(MessageKind.THINKING, cap(thought, THINKING_CAP), **base))
        elif kind == "tool_use":
            out.extend(_tool_use(block, base, results))
        elif kind not in ("tool_result", "redacted_thinking", "image", "file"):
            unknown.setdefault(str(kind), []).append(base["line"])
    return out


def _tool_use(
    block: dict[str, Any], base: dict[str, Any], results: dict[str, dict[str, Any]]
) -> list[Message]:
    call_id, name = _str(block.get("id")), _str(block.get("name")) or "tool"
    args = block.get("input")
    out = [
        Message(
            MessageKind.TOOL_CALL,
            cap(clean_text(input_text(args)), TOOL_INPUT_CAP),
            tool_name=name,
            tool_id=call_id,
            files=input_files(args),
            **base,
        )
    ]
    result = results.get(call_id or "")
    output = clean_text(result_text(result.get("content"))) if result else ""
    if result and output.strip():
        out.append(
            Message(
                MessageKind.TOOL_OUTPUT,
                cap(output, TOOL_OUTPUT_CAP),
                tool_name=name,
                tool_id=call_id,
                is_error=result.get("is_error") is True,
                **base,
            )
        )
    return out


def _results(messages: list[Any]) -> dict[str, dict[str, Any]]:
    """Each tool result by the id of the call it answers."""
    found: dict[str, dict[str, Any]] = {}
    for msg in messages:
        content = msg.get("content") if isinstance(msg, dict) else None
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                use = block.get("tool_use_id")
                if isinstance(use, str):
                    found[use] = block
    return found


def _str(value: Any) -> str | None:
    return clean_text(value) if isinstance(value, str) and value else None
