"""A Zed agent thread as format-free records, from the document its row holds.

The document (`DbThread`, version `0.3.0`) is `{title, messages, updated_at, model,
detailed_summary, ...}`. Each message is one of Rust's externally tagged variants:
`{"User": {id, content}}`, whose content items are `{"Text": s}` (typed),
`{"Mention": {uri, content}}` (a file, symbol, selection, thread or URL the person
attached, with its text) and `{"Image": {...}}`; `{"Agent": {content, tool_results}}`,
whose content items are `{"Text": s}`, `{"Thinking": {text, signature}}`,
`{"RedactedThinking": s}` and `{"ToolUse": {id, name, raw_input, input}}`, and whose
`tool_results` map each call's id to `{tool_use_id, tool_name, is_error, content,
output}` (`content` a string, `{"Text": s}`, an image, or a list of those); and the bare
string `"Resume"`, the "continue" Zed sends on its own. A thread saved by the first agent
panel (versions `0.1.0`, `0.2.0`, or none) holds `{role, segments: [{type: text|thinking,
text}], tool_uses: [{id, name, input}], tool_results: [{tool_use_id, is_error, content}]}`
messages instead (Zed reads those too, and upgrades them when it saves the thread again).

Zed keeps no time per message: the first message gets the thread's creation time, each
later one the time the thread was last saved.
"""

from __future__ import annotations

import json
from typing import Any

from findsession.domain import Message, MessageKind, MetaEvent, MetaKind, Problem
from findsession.sources import foreign_db
from findsession.sources.codex_zst import inflate
from findsession.sources.cursor import Record
from findsession.sources.epoch import iso_utc
from findsession.sources.jsonl import cap, clean_text, cut_point
from findsession.sources.tool_args import args_text, files
from findsession.sources.zed_db import Thread

PROMPT_CAP = 100_000
CONTEXT_CAP = 8_000
THINKING_CAP = 8_000
TOOL_INPUT_CAP = 2_000
TOOL_OUTPUT_CAP = 4_000
#: The argument names Zed's tools give a file (`copy_path` and `move_path` name two).
_FILE_KEYS = ("path", "abs_path", "source_path", "destination_path")


def thread_records(
    thread: Thread, kind: object, data: object, problems: list[Problem]
) -> list[Record]:
    """Every message of one thread, then its title and parent; a row whose data cannot
    be read is one problem and gives nothing."""
    head = foreign_db.line_of(thread.rank, 0)
    doc = _document(kind, data, head, thread.key, problems)
    if doc is None:
        return []
    messages = doc.get("messages")
    messages = messages if isinstance(messages, list) else []
    made = iso_utc(thread.created_at) or iso_utc(thread.updated_at)
    saved = iso_utc(thread.updated_at) or iso_utc(doc.get("updated_at")) or made
    folders = (thread.folder_paths or "").split("\n") if thread.folder_paths else []
    cwd = first_folder(thread.folder_paths, thread.folder_order)
    worktrees = _worktrees(doc.get("initial_project_snapshot"))
    if not folders and worktrees:  # a row saved before Zed kept the folder columns
        folders = list(worktrees)
        cwd = folders[0]
    common = {"cwd": cwd, "git_branch": worktrees.get(cwd or ""), "session_key": thread.key}
    records: list[Record] = []
    for position, message in enumerate(messages, 1):
        base = {**common, "line": foreign_db.line_of(thread.rank, position),
                "timestamp": made if position == 1 else saved}  # fmt: skip
        if isinstance(message, dict) and "role" in message:
            records += _legacy(message, base, folders)
        elif isinstance(message, dict):
            records += _user(message.get("User"), base)
            records += _agent(message.get("Agent"), base, folders)
    title = thread.summary or _text(doc.get("title")) or _text(doc.get("summary"))
    if title and title.strip():
        records.append(MetaEvent(MetaKind.AI_TITLE, title.strip(), head, session_key=thread.key))
    if thread.parent and thread.parent != thread.key:
        at = foreign_db.parent_line(thread.rank)
        records.append(MetaEvent(MetaKind.PARENT, thread.parent, at, session_key=thread.key))
    return records


def first_folder(paths: str | None, order: str | None) -> str | None:
    """The folder the thread's project was opened with first: `folder_paths` holds them
    sorted, one a line, and `folder_paths_order` each one's place when opened."""
    if not paths:
        return None
    folders = paths.split("\n")
    places = [int(n) for n in (order or "").split(",") if n.strip().isdigit()]
    if len(places) == len(folders) and 0 in places:
        return clean_text(folders[places.index(0)]) or None
    return clean_text(folders[0]) or None


def _worktrees(snapshot: Any) -> dict[str, str | None]:
    """The folders of the project as Zed found it when the thread started
    (`ProjectSnapshot.worktree_snapshots`, in the project's order), each with the branch
    its git state names."""
    listed = snapshot.get("worktree_snapshots") if isinstance(snapshot, dict) else None
    found: dict[str, str | None] = {}
    for worktree in listed[:100] if isinstance(listed, list) else []:
        path = _text(worktree.get("worktree_path")) if isinstance(worktree, dict) else None
        if path and len(path) < 1024 and "\n" not in path:
            git = worktree.get("git_state")
            found[path] = _text(git.get("current_branch")) if isinstance(git, dict) else None
    return found


def _document(
    kind: object, data: object, head: int, key: str, problems: list[Problem]
) -> dict[str, Any] | None:
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    if not isinstance(raw, bytes):
        problems.append(Problem(head, "no thread data", f"thread {key}"))
        return None
    if kind == "zstd":
        raw, stopped = inflate(raw)
        if stopped.problem or stopped.cut:
            problems.append(Problem(head, "unreadable thread data", f"thread {key}: "
                                    + (stopped.problem or stopped.cut or "")))  # fmt: skip
            return None
    elif kind not in ("json", None, ""):
        problems.append(Problem(head, "unknown data type", f"thread {key}: {_shown(kind)}"))
        return None
    try:
        doc = json.loads(raw.decode("utf-8", "replace"))
    except (ValueError, RecursionError):
        problems.append(Problem(head, "malformed JSON", f"thread {key}"))
        return None
    if not isinstance(doc, dict):
        problems.append(Problem(head, "malformed JSON", f"thread {key}: not an object"))
        return None
    return doc


def _user(body: Any, base: dict[str, Any]) -> list[Record]:
    if not isinstance(body, dict):
        return []
    typed: list[str] = []
    attached: list[str] = []
    paths: list[str] = []
    for item in body.get("content") if isinstance(body.get("content"), list) else []:
        if not isinstance(item, dict):
            continue
        if isinstance(item.get("Text"), str):
            typed.append(item["Text"])
        mention = item.get("Mention")
        if isinstance(mention, dict):
            path = _mention_path(mention.get("uri"))
            if path:
                paths.append(path)
            if isinstance(mention.get("content"), str) and mention["content"].strip():
                attached.append(mention["content"])
    out: list[Record] = []
    text = "\n".join(typed).strip()
    if text:
        out.append(Message(MessageKind.PROMPT, cap(text, PROMPT_CAP), files=tuple(paths), **base))
    for context in attached:  # what the person attached: context, not what they typed
        out.append(Message(MessageKind.HARNESS, cap(context.strip(), CONTEXT_CAP), **base))
    return out


def _mention_path(uri: Any) -> str | None:
    """The file a mention names: its variant's `abs_path` (a file, symbol, selection or
    folder)."""
    if not isinstance(uri, dict):
        return None
    for body in uri.values():
        if isinstance(body, dict):
            path = body.get("abs_path")
            if isinstance(path, str) and 0 < len(path) < 1024 and "\n" not in path:
                return clean_text(path)
    return None


def _agent(body: Any, base: dict[str, Any], folders: list[str]) -> list[Record]:
    if not isinstance(body, dict):
        return []
    results = body.get("tool_results")
    results = results if isinstance(results, dict) else {}
    out: list[Record] = []
    for item in body.get("content") if isinstance(body.get("content"), list) else []:
        if not isinstance(item, dict):
            continue
        if isinstance(item.get("Text"), str) and item["Text"].strip():
            out.append(Message(MessageKind.REPLY, cap(item["Text"].strip(), PROMPT_CAP), **base))
        thinking = item.get("Thinking")
        thought = thinking.get("text") if isinstance(thinking, dict) else None
        if isinstance(thought, str) and thought.strip():
            out.append(Message(MessageKind.THINKING, cap(thought.strip(), THINKING_CAP), **base))
        use = item.get("ToolUse")
        if isinstance(use, dict):
            call_id = _text(use.get("id"))
            args = use.get("input") if use.get("input") is not None else use.get("raw_input")
            out += _call(_text(use.get("name")) or "tool", call_id, args, base, folders,
                         results.get(call_id) if call_id else None)  # fmt: skip
    return out


def _legacy(message: dict[str, Any], base: dict[str, Any], folders: list[str]) -> list[Record]:
    """A message as the first agent panel saved it."""
    role = message.get("role")
    segments = message.get("segments")
    if not isinstance(segments, list):  # the oldest threads: one `text`
        segments = [{"type": "text", "text": message.get("text")}]
    out: list[Record] = []
    for segment in segments:
        if not isinstance(segment, dict) or not isinstance(segment.get("text"), str):
            continue
        text = segment["text"].strip()
        if not text:
            continue
        if segment.get("type") == "thinking":
            out.append(Message(MessageKind.THINKING, cap(text, THINKING_CAP), **base))
        elif role == "user":
            out.append(Message(MessageKind.PROMPT, cap(text, PROMPT_CAP), **base))
        elif role == "assistant":
            out.append(Message(MessageKind.REPLY, cap(text, PROMPT_CAP), **base))
    results: dict[str, Any] = {}
    listed = message.get("tool_results")
    for result in listed if isinstance(listed, list) else []:
        if isinstance(result, dict) and isinstance(result.get("tool_use_id"), str):
            results[result["tool_use_id"]] = result
    for use in message.get("tool_uses") if isinstance(message.get("tool_uses"), list) else []:
        if isinstance(use, dict):
            call_id = _text(use.get("id"))
            out += _call(_text(use.get("name")) or "tool", call_id, use.get("input"), base,
                         folders, results.get(call_id) if call_id else None)  # fmt: skip
    return out


def _call(
    name: str,
    call_id: str | None,
    args: Any,
    base: dict[str, Any],
    folders: list[str],
    result: Any,
) -> list[Record]:
    base = {**base, "cwd": _call_folder(args, folders) or base["cwd"]}
    out: list[Record] = [
        Message(
            MessageKind.TOOL_CALL,
            cap(args_text(args, TOOL_INPUT_CAP), TOOL_INPUT_CAP),
            tool_name=name,
            tool_id=call_id,
            files=files(args, _FILE_KEYS),
            **base,
        )
    ]
    if isinstance(result, dict):
        output = _result_text(result.get("content")).strip()
        if output:
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


def _call_folder(args: Any, folders: list[str]) -> str | None:
    """Where a call's relative path starts: Zed's tools name a file from the project's
    folder itself (`backend/src/main.rs` for the folder `/a/b/backend`), so the path is
    relative to that folder's parent."""
    path = args.get("path") if isinstance(args, dict) else None
    if not isinstance(path, str) or not path or path.startswith(("/", "~")):
        return None
    first = path.replace("\\", "/").split("/", 1)[0]
    for folder in folders:
        parent, _, name = folder.rstrip("/\\").replace("\\", "/").rpartition("/")
        if name == first and parent:
            return clean_text(folder[: len(parent)])
    return None


def _result_text(content: Any) -> str:
    """A tool result's text in each of the shapes Zed reads: a string, `{"Text": s}`,
    `{"type": "text", "text": s}`, `{"text": s}`, or a list of them (an image gives none)."""
    if isinstance(content, str):
        return clean_text(content)
    if isinstance(content, list):
        return "\n".join(t for t in (_result_text(item) for item in content[:100]) if t)
    if isinstance(content, dict):
        for key in ("Text", "text"):
            if isinstance(content.get(key), str):
                return clean_text(content[key])
    return ""


def _shown(value: object) -> str:
    text = value if isinstance(value, str) else type(value).__name__
    return clean_text(text[: cut_point(text, 40)])


def _text(value: Any) -> str | None:
    return clean_text(value) if isinstance(value, str) and value else None
