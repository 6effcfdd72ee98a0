"""Amp threads: where they are, what their messages mean, and the `Source` that reads them.

Amp keeps each thread as one JSON document, `~/.local/share/amp/threads/T-<uuid>.json`:
`{v, id, created (ms), title, env: {initial: {trees: [{displayName, uri}]}}, messages}`,
rewritten whole as the thread goes on, so it is read whole when its content changed
(`json_doc`; a document caught half written gives nothing until the write is finished).
A message is `{role, content: [parts], usage: {model, timestamp, ...}}` (a user message
`meta: {sentAt}`, when it was sent, in ms: the time of the turn it opens); its parts are
`text`, `thinking`, `tool_use {id, name, input}` and, in a user message, `tool_result
{toolUseID, run: {status, result}}`. Amp's subagents (the oracle, the librarian) leave no
thread of their own, so there is none to link.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any
from urllib.parse import unquote, urlparse

from findsession.domain import Message, MessageKind, MetaEvent, MetaKind, Problem, Resume, Session
from findsession.sources.base import Skip, Source, SourceFile
from findsession.sources.cursor import Cursor, Reading
from findsession.sources.epoch import millis_iso
from findsession.sources.json_doc import load_or_none, read_document
from findsession.sources.jsonl import cap, clean_text
from findsession.sources.opening import open_regular
from findsession.sources.registry import SourceKind
from findsession.sources.resuming import positional, resume_in_cwd
from findsession.sources.tool_args import call_message, result_message
from findsession.sources.walking import walk

KIND = SourceKind.AMP
PROMPT_CAP = 100_000
THINKING_CAP = 8_000
TOOL_INPUT_CAP = 2_000
TOOL_OUTPUT_CAP = 4_000
_FILE_KEYS = ("path", "file_path", "filePath")

Record = Message | MetaEvent


class AmpSource(Source):
    """Amp's `~/.local/share/amp/threads/`."""

    kind = KIND

    def discover(self, root: Path, skip: Skip) -> Iterator[Path]:
        """Every `T-*.json` under `root` (the threads folder, a copy of it, or one file)."""
        if root.is_file():
            if _is_thread(root.name):
                yield root
            return

        for folder, _dirs, files in walk(root, skip):
            for name in files:
                if _is_thread(name):
                    yield folder / name

    def describe(self, path: Path) -> SourceFile:
        return SourceFile(path=path, source=KIND, session_id=path.name[: -len(".json")])

    def read(self, sf: SourceFile, fh: IO[bytes], cursor: Cursor | None) -> Reading:
        return read_document(fh, cursor, thread_records)

    def read_back(self, path: Path, lines: set[int]) -> dict[tuple[int, int], str]:
        """Each wanted message as the thread holds it now, numbered as `read` did."""
        with open_regular(str(path)) as fh:
            doc = load_or_none(fh.read())
        texts: dict[tuple[int, int], str] = {}
        parts: dict[int, int] = {}
        for rec in thread_records(doc, []) if doc is not None else []:
            if not isinstance(rec, Message):
                continue
            part = parts.get(rec.line, 0)
            parts[rec.line] = part + 1
            if rec.line in lines:
                texts[(rec.line, part)] = rec.text
        return texts

    def resume(self, session: Session) -> Resume:
        """`amp threads continue <id>`, Amp's own command for going on with a thread, in
        the folder the thread worked in (its first tree)."""
        return resume_in_cwd(session, "amp", "threads", "continue", *positional(session.id))

    def title_line(self, sf: SourceFile, title: str) -> bytes | None:
        """None: Amp rewrites the thread whole; a line appended would be lost."""
        return None


def _is_thread(name: str) -> bool:
    return name.startswith("T-") and name.endswith(".json")


def thread_records(doc: Any, problems: list[Problem]) -> list[Record]:
    """Every message of a thread, numbered by its place (from 1), each with the thread's
    folder; the title last."""
    if not isinstance(doc, dict):
        problems.append(Problem(1, "not a JSON object", type(doc).__name__))
        return []
    messages = doc.get("messages")
    if not isinstance(messages, list):
        messages = []
    common = {"cwd": _cwd(doc), "record_session_id": _str(doc.get("id"))}
    when = _time(doc.get("created"))
    results = _tool_results(messages)
    records: list[Record] = []
    unknown: dict[str, list[int]] = {}
    for number, msg in enumerate(messages, 1):
        if not isinstance(msg, dict):
            continue
        usage = msg.get("usage") if isinstance(msg.get("usage"), dict) else {}
        meta = msg.get("meta") if isinstance(msg.get("meta"), dict) else {}
        when = _time(meta.get("sentAt")) or _time(usage.get("timestamp")) or when
        base = {"line": number, "timestamp": when, **common}
        records.extend(_message(msg, base, results, unknown))
    for kind, numbers in unknown.items():
        count = f"{len(numbers)} part" + ("" if len(numbers) == 1 else "s")
        problems.append(Problem(numbers[0], "unknown part kind", f"{kind} ({count})"))
    title = _str(doc.get("title"))
    if title and title.strip():
        records.append(MetaEvent(MetaKind.AI_TITLE, title.strip(), 0))
    return records


def _message(
    msg: dict[str, Any],
    base: dict[str, Any],
    results: dict[str, dict[str, Any]],
    unknown: dict[str, list[int]],
) -> Iterator[Message]:
    role = msg.get("role")
    content = msg.get("content")
    parts = [{"type": "text", "text": content}] if isinstance(content, str) else content
    for part in parts if isinstance(parts, list) else []:
        if not isinstance(part, dict):
            continue
        kind = part.get("type")
        text = _str(part.get("text")) or ""
        if kind == "text" and text.strip():
            speaker = MessageKind.PROMPT if role == "user" else MessageKind.REPLY
            yield Message(speaker, cap(text.strip(), PROMPT_CAP), **base)
        elif kind == "thinking":
            thought = (_str(part.get("thinking")) or "").strip()
            if thought:
                yield Message(MessageKind.THINKING, cap(thought, THINKING_CAP), **base)
        elif kind == "tool_use":
            yield from _tool_use(part, base, results)
        elif kind in ("tool_result", "redacted_thinking", "image", "text"):
            continue  # a result goes with its call; nothing readable in the others
        else:
            unknown.setdefault(str(kind), []).append(base["line"])


def _tool_use(
    part: dict[str, Any], base: dict[str, Any], results: dict[str, dict[str, Any]]
) -> Iterator[Message]:
    call_id, name = _str(part.get("id")), _str(part.get("name")) or "tool"
    args = part.get("input")
    yield call_message(name, call_id, args, base, _FILE_KEYS, TOOL_INPUT_CAP)
    result = results.get(call_id or "")
    if result is None:
        return
    run = result.get("run") if isinstance(result.get("run"), dict) else {}
    output = _result_text(run.get("result"))
    if output.strip():
        failed = run.get("status") in ("error", "rejected-by-user", "cancelled")
        yield result_message(name, call_id, output, failed, base, TOOL_OUTPUT_CAP)


def _tool_results(messages: list[Any]) -> dict[str, dict[str, Any]]:
    """Each tool result by the id of the call it answers."""
    found: dict[str, dict[str, Any]] = {}
    for msg in messages:
        content = msg.get("content") if isinstance(msg, dict) else None
        for part in content if isinstance(content, list) else []:
            if isinstance(part, dict) and part.get("type") == "tool_result":
                use = part.get("toolUseID")
                if isinstance(use, str):
                    found[use] = part
    return found


def _result_text(result: Any) -> str:
    if isinstance(result, str):
        return clean_text(result)
    if isinstance(result, dict):
        for key in ("output", "content", "error"):
            if isinstance(result.get(key), str):
                return clean_text(result[key])
    if result is None:
        return ""
    return clean_text(json.dumps(result, ensure_ascii=False))


def _cwd(doc: dict[str, Any]) -> str | None:
    """The thread's first workspace tree, from its `file://` URI."""
    env = doc.get("env") if isinstance(doc.get("env"), dict) else {}
    initial = env.get("initial") if isinstance(env.get("initial"), dict) else {}
    trees = initial.get("trees") if isinstance(initial.get("trees"), list) else []
    for tree in trees:
        uri = tree.get("uri") if isinstance(tree, dict) else None
        if isinstance(uri, str) and uri.startswith("file://"):
            path = unquote(urlparse(uri).path)
            if path:
                return clean_text(path)
    return None


def _time(value: Any) -> str | None:
    """A millisecond epoch (or an ISO string) as ISO 8601 UTC."""
    if isinstance(value, str) and value:
        return clean_text(value)
    return millis_iso(value)


def _str(value: Any) -> str | None:
    return clean_text(value) if isinstance(value, str) and value else None
