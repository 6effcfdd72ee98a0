"""A Warp agent conversation as format-free records, from its tasks' protocol buffers.

Each task (`Task` in `task.proto` of warpdotdev/warp-proto-apis) is `{id: 1, description:
2, dependencies: 3 {parent_task_id: 1}, messages: 5, summary: 6}`; its messages, in
order, are `{id: 1, task_id: 11, timestamp: 14, <one kind>}`, the kind a field of its own
number. Read here:

- 2 `user_query` `{query: 1, context: 2}`: a prompt. Its context (an `InputContext`)
  names the folder the person was in (`directory.pwd`), and carries the text they
  selected and the files they attached: harness text, the files' paths as the prompt's.
  23 `invoke_skill` carries one too (`user_query: 2`).
- 3 `agent_output` `{text: 1}` a reply; 15 `agent_reasoning` `{reasoning: 1}` thinking;
  16 `summarization` `{conversation_summary: 1 {summary: 1}}` a compaction's summary.
- 4 `tool_call` and 5 `tool_call_result`: `warp_tools`.
- 9 `system_query`: what Warp sent by itself (a fix it suggests for an error, a
  summary asked for): harness text; 19 `web_search` and 20 `web_fetch`: what was
  searched or fetched, as a call of that name.

The root task (no parent) is the conversation; a task with a parent is a subagent the
`subagent` tool started, a session of its own under the one whose task started it, its
first prompt what that call asked of it (`payload`) when it holds no query of its own.
A task's description is its session's title (Warp shows the root's in its history). A
conversation's `parent_conversation_id` makes it a child agent of that conversation.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from findsession.domain import Message, MessageKind, MetaEvent, MetaKind, Problem
from findsession.sources import foreign_db
from findsession.sources.cursor import Record
from findsession.sources.epoch import epoch_iso
from findsession.sources.jsonl import cap, clean_text
from findsession.sources.protobuf_wire import Wire, WireError, texts
from findsession.sources.warp_tools import TOOL_INPUT_CAP, call, result

PROMPT_CAP = 100_000
CONTEXT_CAP = 8_000
THINKING_CAP = 8_000
TOOL_OUTPUT_CAP = 4_000
#: Message kinds with nothing to search: server bookkeeping, to-do lists, review
#: comments, artifacts, the model used, what other agents sent, debug output.
QUIET = frozenset({6, 10, 17, 18, 21, 22, 24, 25, 26})
_OWN = frozenset({1, 7, 8, 11, 13, 14})  # a message's own fields, not its kind
#: Every kind of message `task.proto` names (the `message` oneof's fields).
KINDS = frozenset({2, 3, 4, 5, 6, 9, 10, *range(15, 27)})


@dataclass
class Found:
    """What reading a store finds besides records: message kinds not known here."""

    unknown: dict[int, int] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Task:
    key: str
    parent: str | None
    description: str
    messages: list[Wire]


def conversation_records(
    key: str, rank: int, data: object, rows: Iterable[tuple[object, object]], found: Found
) -> list[Record]:
    """Every message of one conversation and its subagents, then titles and parents; a
    task that does not decode is one problem, the others are read."""
    head = foreign_db.line_of(rank, 0)
    tasks = _tasks(key, rows, head, found)
    owner = {t.key: key if t.parent is None else f"{key}/{t.key}" for t in tasks}
    cwd = next((d for t in tasks for m in t.messages if (d := _pwd(m))), None)
    records: list[Record] = []
    position = 0
    calls: dict[str, str] = {}
    asked: dict[str, str] = {}  # a subagent's task: what its parent asked of it
    for task in tasks:
        session = owner[task.key]
        common = {"cwd": cwd, "session_key": session}
        if task.parent is not None and not any(_is_query(m) for m in task.messages):
            position += 1
            base = {**common, "line": foreign_db.line_of(rank, position)}
            records += _said(MessageKind.PROMPT, asked.get(task.key) or task.description, base)
        for message in task.messages:
            position += 1
            base = {**common, "line": foreign_db.line_of(rank, position)}
            try:
                records += _message(message, base, calls, found, asked)
            except WireError as exc:
                found.problems.append(Problem(base["line"], "unreadable message", str(exc)))
        # A session's facts each on a line of their own (the index keeps one per line).
        title = clean_text(task.description.strip())
        if title:
            position += 1
            line = foreign_db.line_of(rank, position)
            records.append(MetaEvent(MetaKind.AI_TITLE, title, line, session_key=session))
        if task.parent is not None:
            position += 1
            line = foreign_db.line_of(rank, position)
            parent = owner.get(task.parent, key)
            records.append(MetaEvent(MetaKind.PARENT, parent, line, session_key=session))
    parent = _parent_conversation(data)
    if parent and parent != key:
        records.append(MetaEvent(MetaKind.PARENT, parent, head, session_key=key))
    return records


def _tasks(key: str, rows: Iterable[tuple[object, object]], head: int, found: Found) -> list[Task]:
    tasks: list[Task] = []
    for task_id, blob in rows:
        if not isinstance(blob, bytes):
            found.problems.append(Problem(head, "unreadable task", f"conversation {key}"))
            continue
        try:
            wire = Wire.parse(blob)
            deps = wire.message(3)
            parent = deps.string(1) if deps is not None else ""
            messages = wire.messages(5)
        except WireError as exc:
            found.problems.append(Problem(head, "unreadable task", f"conversation {key}: {exc}"))
            continue
        own = wire.string(1) or (task_id if isinstance(task_id, str) else "")
        tasks.append(Task(clean_text(own), clean_text(parent) or None, wire.string(2), messages))
    known = {t.key for t in tasks}
    # A task whose parent is not in the store is taken for the conversation's own.
    tasks = [t if t.parent in known else Task(t.key, None, t.description, t.messages)
             for t in tasks]  # fmt: skip
    return sorted(tasks, key=lambda t: t.parent is not None)


def _message(
    message: Wire,
    base: dict[str, Any],
    calls: dict[str, str],
    found: Found,
    asked: dict[str, str],
) -> list[Record]:
    present = message.numbers()
    kind = next((n for n in present if n in KINDS), None)
    if kind is None:  # a kind newer than this reader (a message's other fields are skipped)
        kind = next((n for n in present if n not in _OWN), None)
    body = message.message(kind) if kind is not None else None
    if kind is None or body is None or kind in QUIET:
        return []
    base = {**base, "timestamp": _time(message.message(14))}
    if kind == 2:
        return _query(body, base)
    if kind == 23:
        query = body.message(2)
        return _query(query, base) if query is not None else []
    if kind == 3:
        return _said(MessageKind.REPLY, body.string(1), base)
    if kind == 15:
        return _said(MessageKind.THINKING, body.string(1), base, THINKING_CAP)
    if kind == 16:
        summary = body.message(1)
        return _said(MessageKind.COMPACT_SUMMARY, summary.string(1) if summary else "", base)
    if kind == 4:
        return _call(body, base, calls, asked)
    if kind == 5:
        return _result(body, base, calls)
    if kind == 9:
        return _said(MessageKind.HARNESS, "\n".join(texts(body)), base, CONTEXT_CAP)
    if kind in (19, 20):
        name = "web_search" if kind == 19 else "web_fetch"
        text = "\n".join(texts(body))
        return [Message(MessageKind.TOOL_CALL, cap(text, TOOL_INPUT_CAP), tool_name=name, **base)]
    found.unknown[kind] = found.unknown.get(kind, 0) + 1
    return []


def _query(query: Wire, base: dict[str, Any]) -> list[Record]:
    context = query.message(2)
    attached: list[str] = []
    paths: list[str] = []
    if context is not None:
        attached += [s.string(1) for s in context.messages(6)]  # selected text
        for entry in context.messages(9):  # attached files
            content = entry.message(1)
            if content is not None:
                path = content.string(1)
                if path and len(path) < 1024 and "\n" not in path:
                    paths.append(clean_text(path))
                attached.append(content.string(2))
    out = [
        Message(MessageKind.PROMPT, cap(text, PROMPT_CAP), files=tuple(paths), **base)
        for text in [clean_text(query.string(1)).strip()]
        if text
    ]
    for text in attached:
        out += _said(MessageKind.HARNESS, text, base, CONTEXT_CAP)
    return out


def _call(
    body: Wire, base: dict[str, Any], calls: dict[str, str], asked: dict[str, str]
) -> list[Record]:
    made = call(body)
    if made is None:
        return []
    if made.call_id:
        calls[made.call_id] = made.name
    if made.subtask and made.subtask[1].strip():
        asked[made.subtask[0]] = made.subtask[1]
    return [
        Message(
            MessageKind.TOOL_CALL,
            cap(made.text, TOOL_INPUT_CAP),
            tool_name=made.name,
            tool_id=made.call_id or None,
            files=made.files,
            **base,
        )
    ]


def _result(body: Wire, base: dict[str, Any], calls: dict[str, str]) -> list[Record]:
    made = result(body)
    if made is None or not (made.text.strip() or made.failed):
        return []
    text = made.text.strip() or "failed"
    return [
        Message(
            MessageKind.TOOL_OUTPUT,
            cap(text, TOOL_OUTPUT_CAP),
            tool_name=calls.get(made.call_id, made.name),
            tool_id=made.call_id or None,
            is_error=made.failed,
            **base,
        )
    ]


def _is_query(message: Wire) -> bool:
    try:
        return message.has(2) or message.has(23)
    except WireError:
        return False


def _pwd(message: Wire) -> str | None:
    """The folder the person was in when a message was sent, from its input context
    (a query's, a system query's or a result's), as Warp takes a conversation's."""
    try:
        for kind, at in ((2, 2), (9, 2), (5, 11)):
            body = message.message(kind)
            context = body.message(at) if body is not None else None
            directory = context.message(1) if context is not None else None
            if directory is not None and directory.string(1).strip():
                return clean_text(directory.string(1).strip())
    except WireError:
        return None  # said once, when the message itself is read
    return None


def _time(stamp: Wire | None) -> str | None:
    """A `google.protobuf.Timestamp` (`seconds: 1`, `nanos: 2`) as UTC ISO text."""
    if stamp is None:
        return None
    seconds = stamp.signed(1) or 0
    nanos = stamp.varint(2) or 0
    return epoch_iso(seconds + nanos / 1e9) if seconds > 0 else None


def _parent_conversation(data: object) -> str | None:
    if not isinstance(data, str):
        return None
    try:
        doc = json.loads(data)
    except (ValueError, RecursionError):
        return None
    parent = doc.get("parent_conversation_id") if isinstance(doc, dict) else None
    return clean_text(parent) if isinstance(parent, str) and parent else None


def _said(
    kind: MessageKind, text: str, base: dict[str, Any], limit: int = PROMPT_CAP
) -> list[Record]:
    text = clean_text(text).strip()
    return [Message(kind, cap(text, limit), **base)] if text else []
