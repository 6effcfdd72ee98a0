"""What a Cline CLI session (the `cline` command, 3.x) keeps, as format-free records.

The CLI keeps its data outside any editor: `$CLINE_DATA_DIR`, else `$CLINE_DIR/data`,
else `~/.cline/data` (`--config` moves `CLINE_DIR`'s place for one run), and its sessions
under `sessions/` there (`$CLINE_SESSION_DATA_DIR` moves them alone). A session is a
folder `sessions/<id>/` holding `<id>.json` (its manifest: `cwd`, `prompt`, `source`,
`metadata.title`) and `<id>.messages.json`, `{version, sessionId, messages: [...]}`,
rewritten whole after every message; `db/sessions.db` indexes the same manifests. A
message is `{role, content: [blocks], ts (ms)}` in the shape Claude's API gives it
(`text`, `thinking`, `tool_use`, `tool_result`), except what a tool gave back: a
`tool_result`'s content is the CLI's own operation results, `{query, result, error,
success}` (`run_commands`, `read_files` and the like a list of them, `editor` one as a
JSON string), a failure `success: false` with no `is_error`. What the person typed is
wrapped in
`<user_input mode="act|plan|yolo">`; the CLI's own nudges are user messages that begin
`[SYSTEM] `. A teammate's messages sit in its lead's folder under its own stem.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from findsession.domain import Message, MetaEvent, MetaKind, Problem
from findsession.sources.claude_code_records import parse_record
from findsession.sources.epoch import epoch_iso
from findsession.sources.jsonl import clean_text

MESSAGES = ".messages.json"
_WRAPPED = re.compile(r"^\s*<user_input\b[^>]*>(.*)</user_input>\s*$", re.S)

Record = Message | MetaEvent


def is_messages(path: Path) -> bool:
    return path.name.endswith(MESSAGES) and len(path.name) > len(MESSAGES)


def stem(path: Path) -> str:
    return path.name[: -len(MESSAGES)]


def session_records(doc: Any, manifest: dict[str, Any], problems: list[Problem]) -> list[Record]:
    """Every message of a session, numbered by its place (from 1), each with the folder
    the session worked in; the title last. The messages are Claude's API blocks, read by
    Claude Code's mapping (`claude_code_records.parse_record`) once the CLI's wrapper is
    taken off what the person typed and its own nudges are left out."""
    if not isinstance(doc, dict):
        problems.append(Problem(1, "not a JSON object", type(doc).__name__))
        return []
    messages = doc.get("messages") if isinstance(doc.get("messages"), list) else []
    cwd = _str(manifest.get("cwd")) or _str(manifest.get("workspace_root"))
    records: list[Record] = []
    for number, msg in enumerate(messages, 1):
        role = msg.get("role") if isinstance(msg, dict) else None
        if role not in ("user", "assistant"):
            continue
        content = msg.get("content")
        shaped = {
            "type": role,
            "timestamp": epoch_iso(msg.get("ts")),
            "cwd": cwd,
            "message": {"role": role, "content": _typed(content) if role == "user" else content},
        }
        records.extend(parse_record(shaped, number, in_subagent_file=False))
    metadata = manifest.get("metadata") if isinstance(manifest.get("metadata"), dict) else {}
    title = _str(metadata.get("title"))
    if title and title.strip():
        records.append(MetaEvent(MetaKind.AI_TITLE, title.strip(), 0))
    return records


def _typed(content: Any) -> Any:
    """A user message's content with what the person typed out of its `<user_input>`
    wrapper, and without the CLI's `[SYSTEM] ` nudges to the model."""
    if isinstance(content, str):
        content = [{"type": "text", "text": content}]
    if not isinstance(content, list):
        return content
    kept: list[Any] = []
    for block in content:
        if isinstance(block, dict) and block.get("type") == "text":
            text = block.get("text")
            if isinstance(text, str):
                if text.lstrip().startswith("[SYSTEM] "):
                    continue
                wrapped = _WRAPPED.match(text)
                block = {**block, "text": wrapped.group(1).strip() if wrapped else text}
        elif isinstance(block, dict) and block.get("type") == "tool_result":
            block = _result(block)
        kept.append(block)
    return kept


def _result(block: dict[str, Any]) -> dict[str, Any]:
    """A `tool_result` whose content is the CLI's operation results as the text of each
    (its `result`, and its `error` when the result does not say it), failed when one did
    not succeed; any other content as it is."""
    operations = _operations(block.get("content"))
    if operations is None:
        return block
    texts = []
    for op in operations:
        result = _op_text(op.get("result"))
        error = _str(op.get("error"))
        texts += [result] if result else []
        texts += [error] if error and error not in result else []
    failed = block.get("is_error") is True or any(op.get("success") is False for op in operations)
    text = "\n\n".join(texts)
    return {**block, "content": [{"type": "text", "text": text}], "is_error": failed}


def _operations(content: Any) -> list[dict[str, Any]] | None:
    """The operation results a tool result holds, or None when it holds something else."""
    if isinstance(content, str) and content.startswith("{") and '"success"' in content:
        try:
            content = [json.loads(content)]
        except (ValueError, RecursionError):
            return None
    if not isinstance(content, list) or not content:
        return None
    if all(isinstance(op, dict) and "type" not in op and "success" in op for op in content):
        return content
    return None


def _op_text(result: Any) -> str:
    """An operation's result: a string, a file's text blocks, else its JSON."""
    if isinstance(result, str):
        return clean_text(result)
    if result is None:
        return ""
    if isinstance(result, list) and all(isinstance(b, dict) for b in result):
        texts = [b.get("text") for b in result if b.get("type") == "text"]
        if texts:
            return clean_text("\n".join(t for t in texts if isinstance(t, str)))
    return clean_text(json.dumps(result, ensure_ascii=False))


def _str(value: Any) -> str | None:
    return clean_text(value) if isinstance(value, str) and value else None
