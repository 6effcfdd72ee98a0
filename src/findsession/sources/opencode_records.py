"""What an OpenCode session's messages and parts mean, wherever they were kept.

The store (`opencode_db`) and the older JSON tree (`opencode_tree`) hold the same JSON:
a message `{role, time: {created}, summary, path: {cwd}, ...}` and its parts, each
`{type, ...}`: `text` (`synthetic: true` when OpenCode wrote it, not the person),
`reasoning`, `tool {callID, tool, state: {status, input, output, error}}`, and parts with
nothing to read (`file`, `step-start`, `step-finish`, `snapshot`, `patch`, `agent`,
`compaction`, `subtask`, `retry`). Both hand this module the raw JSON text and ids, so
one parser numbers the records and reports bad JSON the same way for both.

Line numbers: `foreign_db.line_of(rank, position)`, the session's title at position 0
and its messages from 1, in order; its parent at position 1 too, a line no other
metadata takes (the index keeps one metadata record a line: at 0 with the title, the
parent replaced a subagent's title). A store's sessions take their row id as
rank; a tree file holds one session, rank 0.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from findsession.domain import Message, MessageKind, MetaEvent, MetaKind, Problem
from findsession.sources.cursor import Record
from findsession.sources.epoch import millis_iso
from findsession.sources.foreign_db import line_of, parent_line
from findsession.sources.jsonl import cap, clean_text
from findsession.sources.tool_args import call_message, result_message

PROMPT_CAP = 100_000
THINKING_CAP = 8_000
TOOL_INPUT_CAP = 2_000
TOOL_OUTPUT_CAP = 4_000
_FILE_KEYS = ("filePath", "path", "file_path")
#: Parts that hold nothing a person would search for.
_QUIET = frozenset(
    {"file", "step-start", "step-finish", "snapshot", "patch", "agent", "compaction",
     "subtask", "retry"}
)  # fmt: skip
#: The names OpenCode gives a session before it has a title of its own.
PLACEHOLDER = re.compile(r"^(New session|Child session) - \d{4}-\d{2}-\d{2}T")


@dataclass(frozen=True, slots=True)
class SessionInfo:
    """What a session's own row (or file) says about it."""

    id: str
    rank: int
    title: str | None = None
    parent_id: str | None = None
    cwd: str | None = None
    created_ms: int | None = None


#: A message as kept: its id, its creation time (ms, when kept beside the JSON), its JSON.
RawMessage = tuple[str, int | None, str | bytes]
#: A part as kept: its id, its message's id, its JSON.
RawPart = tuple[str, str, str | bytes]


def session_records(
    info: SessionInfo,
    messages: Sequence[RawMessage],
    parts: Sequence[RawPart],
    problems: list[Problem],
    session_key: str | None,
) -> list[Record]:
    """Every record of one session: its title and parent, then each message's parts.

    `session_key` is set for a store of sibling sessions (the session's own id) and
    None for a file that is the session. A row whose JSON does not parse is reported
    with its line and skipped.
    """
    head = line_of(info.rank, 0)
    records: list[Record] = []
    title = (info.title or "").strip()
    if title and not PLACEHOLDER.match(title):
        records.append(
            MetaEvent(MetaKind.CUSTOM_TITLE, clean_text(title), head, session_key=session_key)
        )
    if info.parent_id:
        at = parent_line(info.rank)
        records.append(MetaEvent(MetaKind.PARENT, info.parent_id, at, session_key=session_key))
    by_message: dict[str, list[tuple[str, str | bytes]]] = {}
    for part_id, message_id, raw in parts:
        by_message.setdefault(message_id, []).append((part_id, raw))
    unknown: dict[str, list[int]] = {}
    when = millis_iso(info.created_ms)
    for position, (message_id, created, raw) in enumerate(messages, 1):
        line = line_of(info.rank, position)
        msg = _decode(raw, line, "message", problems)
        if msg is None:
            continue
        times = msg.get("time") if isinstance(msg.get("time"), dict) else {}
        when = millis_iso(times.get("created")) or millis_iso(created) or when
        path = msg.get("path") if isinstance(msg.get("path"), dict) else {}
        base = {
            "line": line,
            "timestamp": when,
            "cwd": info.cwd or _str(path.get("cwd")),
            "message_id": message_id,
            "record_session_id": info.id,
            "session_key": session_key,
        }
        for part_id, part_raw in by_message.get(message_id, []):
            part = _decode(part_raw, line, "part", problems)
            if part is not None:
                records += _part(part, msg, part_id, base, unknown)
    for kind, lines in unknown.items():
        count = f"{len(lines)} part" + ("" if len(lines) == 1 else "s")
        problems.append(Problem(lines[0], "unknown part kind", f"{kind} ({count})"))
    return records


def _part(
    part: dict[str, Any],
    msg: dict[str, Any],
    part_id: str,
    base: dict[str, Any],
    unknown: dict[str, list[int]],
) -> Iterator[Message]:
    kind = part.get("type")
    if kind == "text":
        text = (_str(part.get("text")) or "").strip()
        if not text or part.get("ignored") is True:
            return
        if part.get("synthetic") is True:
            speaker = MessageKind.HARNESS  # OpenCode's own words: a file read, a reminder
        elif msg.get("role") == "user":
            speaker = MessageKind.PROMPT
        elif msg.get("summary") is True:
            speaker = MessageKind.COMPACT_SUMMARY  # the summary a compaction wrote
        else:
            speaker = MessageKind.REPLY
        yield Message(speaker, cap(text, PROMPT_CAP), uuid=part_id, **base)
    elif kind == "reasoning":
        thought = (_str(part.get("text")) or "").strip()
        if thought:
            yield Message(MessageKind.THINKING, cap(thought, THINKING_CAP), uuid=part_id, **base)
    elif kind == "tool":
        yield from _tool(part, part_id, base)
    elif not isinstance(kind, str) or kind not in _QUIET:
        unknown.setdefault(str(kind), []).append(base["line"])


def _tool(part: dict[str, Any], part_id: str, base: dict[str, Any]) -> Iterator[Message]:
    """A tool part: the call, then its output (or its error) once it has finished."""
    name = _str(part.get("tool")) or "tool"
    call_id = _str(part.get("callID"))
    state = part.get("state") if isinstance(part.get("state"), dict) else {}
    args = state.get("input")
    yield call_message(name, call_id, args, {**base, "uuid": part_id}, _FILE_KEYS, TOOL_INPUT_CAP)
    status = state.get("status")
    if status == "completed":
        # A command that exited non-zero still completed: its code is in the metadata.
        metadata = state.get("metadata") if isinstance(state.get("metadata"), dict) else {}
        code = metadata.get("exit")
        failed = isinstance(code, int) and not isinstance(code, bool) and code != 0
        output = state.get("output")
    elif status == "error":
        output, failed = state.get("error"), True
    else:
        return  # pending or running: nothing came back yet
    text = _result_text(output)
    if text.strip():
        yield result_message(name, call_id, text, failed, base, TOOL_OUTPUT_CAP)


def _decode(
    raw: str | bytes, line: int, what: str, problems: list[Problem]
) -> dict[str, Any] | None:
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        problems.append(Problem(line, f"malformed {what} JSON", text[:80]))
        return None
    if not isinstance(value, dict):
        problems.append(Problem(line, f"{what} is not a JSON object", type(value).__name__))
        return None
    return value


def _result_text(result: Any) -> str:
    if isinstance(result, str):
        return clean_text(result)
    if result is None:
        return ""
    return clean_text(json.dumps(result, ensure_ascii=False))


def _str(value: Any) -> str | None:
    return clean_text(value) if isinstance(value, str) and value else None
