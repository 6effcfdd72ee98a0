"""Kiro CLI's conversations as format-free records, from either of its two layouts.

The database row's `value` is `{history: [{user, assistant, request_metadata}]}`: `user`
is `{content, timestamp, env_context: {env_state: {current_working_directory}}}` whose
content is `Prompt {prompt}` (typed), `ToolUseResults {tool_use_results: [{tool_use_id,
content: [{Text}|{Json}], status}]}` or `CancelledToolUses {prompt, tool_use_results}`;
`assistant` is `Response {message_id, content}` or `ToolUse {message_id, content,
tool_uses: [{id, name, args}]}`. Each user and each assistant message is a line of its
own (`foreign_db.line_of(row rank, position)`). Amazon Q Developer CLI before 1.13 wrote
each exchange as a `[user, assistant]` pair. `/compact` leaves `latest_summary` (its text,
with the request's metadata from 1.13 on) and drops the history it summarized, `/clear`
drops it all: those exchanges survive only in `transcript`, lines of text (`> ` and the
prompt, the reply ending `[Tool uses: …]`), read before the history as what it keeps.

The JSON-lines layout (`<id>.jsonl`, beside `<id>.json {session_id, cwd, title}`) has one
event a line, `{kind, data: {content: [{kind, data}], meta: {timestamp}}}`: `Prompt`
(`text` blocks), `AssistantMessage` (`text`, `toolUse {toolUseId, name, input}`),
`ToolResults` (`toolResult {toolUseId, content, status}`), `Clear`. A `Prompt` may
hold, beside the typed block, blocks an agent's hook or resource added, each one tagged
block whole: those are harness text, the rest the prompt.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from findsession.domain import Message, MessageKind, Problem
from findsession.sources import foreign_db
from findsession.sources.cursor import Record
from findsession.sources.epoch import epoch_iso, iso_utc
from findsession.sources.jsonl import cap, clean_text
from findsession.sources.tool_args import args_text, files

PROMPT_CAP = 100_000
TOOL_INPUT_CAP = 2_000
TOOL_OUTPUT_CAP = 4_000
#: Line kinds of the JSON-lines layout with nothing to index.
_QUIET_LINES = frozenset({"Clear"})
#: Keys of a database tool result's content blocks.
_RESULT_KEYS = ("Text", "Json", "text", "json")
#: The end of an assistant's line in the transcript: the tools it called, or `none`.
_TOOL_USES = re.compile(r"\n?\[Tool uses: [^\]\n]*\]\s*\Z")
#: What the person answers a tool's permission question with: trust, yes, no.
_ANSWERS = frozenset({"t", "y", "n"})
#: A prompt's text block that is one tagged block whole (`<context>…</context>`): what
#: an agent's hook or resource added beside the typed block, not typed.
_INJECTED = re.compile(r"<([A-Za-z][\w.:-]*)\b[^>]*>.*</\1>", re.S)


def conversation_records(
    rank: int, key: str, text: object, cwd: str | None, problems: list[Problem]
) -> list[Record]:
    """Every message of one database conversation; a value that is not a conversation
    is one problem and gives nothing."""
    head = foreign_db.line_of(rank, 0)
    try:
        doc = json.loads(text) if isinstance(text, str | bytes) else None
    except (ValueError, RecursionError):
        doc = None
    history = doc.get("history") if isinstance(doc, dict) else None
    if not isinstance(doc, dict) or not isinstance(history, list):
        problems.append(Problem(head, "malformed JSON", f"conversation {key}: no history"))
        return []
    entries = [e for e in map(_entry, history) if e is not None]
    cwd = cwd or next((c for e in entries if (c := _cwd(e[0]))), None)
    base = {"cwd": cwd, "session_key": key, "timestamp": None}
    records: list[Record] = []
    for said in _earlier(doc.get("transcript"), entries):
        records.append(replace(said, line=foreign_db.line_of(rank, len(records) + 1), **base))
    summary = _summary(doc.get("latest_summary"))
    if summary:
        line = foreign_db.line_of(rank, len(records) + 1)
        records.append(Message(MessageKind.COMPACT_SUMMARY, summary, line=line, **base))
    first = len(records) + 1
    calls: dict[str, str] = {}
    for number, (user, assistant, meta) in enumerate(entries):
        when = iso_utc(user.get("timestamp"))
        base = {"cwd": cwd, "session_key": key, "timestamp": when}
        line = foreign_db.line_of(rank, first + 2 * number)
        records += _user(user.get("content"), {**base, "line": line}, calls)
        ended = meta.get("stream_end_timestamp_ms")
        base["timestamp"] = epoch_iso(ended) or when
        line = foreign_db.line_of(rank, first + 2 * number + 1)
        records += _assistant(assistant, {**base, "line": line}, calls)
    return records


def _entry(value: Any) -> tuple[dict[str, Any], Any, dict[str, Any]] | None:
    """One exchange of the history: `{user, assistant, request_metadata}`, or the
    `[user, assistant]` pair Amazon Q Developer CLI wrote before 1.13."""
    if isinstance(value, dict):
        user, assistant, meta = (
            value.get("user"),
            value.get("assistant"),
            value.get("request_metadata"),
        )
    elif isinstance(value, list) and len(value) == 2:
        (user, assistant), meta = value, None
    else:
        return None
    return (
        user if isinstance(user, dict) else {},
        assistant,
        meta if isinstance(meta, dict) else {},
    )


def _summary(value: Any) -> str:
    """The summary `/compact` left: its text, or `[text, request metadata]` (1.13 on)."""
    if isinstance(value, list) and value:
        value = value[0]
    return cap(_str(value).strip(), PROMPT_CAP)


def _earlier(
    transcript: Any, entries: list[tuple[dict[str, Any], Any, dict[str, Any]]]
) -> list[Message]:
    """What the transcript keeps from before the history: the exchanges `/compact`
    summarized and `/clear` dropped survive only there, as lines of text. The history's
    prompts are found in it, last first; the lines before the first of them are the
    earlier part. When a prompt of the history is not there (a transcript cut at its
    cap, or one the CLI changed), nothing is taken from it, rather than read twice."""
    lines = [t for t in _list(transcript) if isinstance(t, str)]
    prompts = [p for u, _, _ in entries if (p := _typed(u.get("content")))]
    end = len(lines)
    for prompt in reversed(prompts):
        said = "> " + prompt.replace("\n", "> \n")
        end = next((i for i in range(end - 1, -1, -1) if lines[i] == said), -1)
        if end < 0:
            return []
    return [m for line in lines[:end] if (m := _transcript_line(line)) is not None]


def _transcript_line(line: str) -> Message | None:
    """One line of the transcript: `> ` and what the person typed (a slash command and a
    one-letter answer to a tool's permission question are the CLI's, not prompts), or the
    assistant's words ending `[Tool uses: …]`. Any other line is an error the CLI printed,
    and is left out."""
    text = clean_text(line)
    if text.startswith("> "):
        typed = text[2:].replace("> \n", "\n").strip()
        command = typed.startswith("/") or typed.lower() in _ANSWERS
        kind = MessageKind.HARNESS if command else MessageKind.PROMPT
        return Message(kind, cap(typed, PROMPT_CAP), line=0) if typed else None
    said, uses = _TOOL_USES.subn("", text)
    said = said.strip()
    return Message(MessageKind.REPLY, cap(said, PROMPT_CAP), line=0) if uses and said else None


def _typed(content: Any) -> str:
    """The prompt a user message carries, as typed."""
    if not isinstance(content, dict):
        return ""
    for kind, body in content.items():
        if kind in ("Prompt", "CancelledToolUses") and isinstance(body, dict):
            return _str(body.get("prompt"))
    return ""


def _user(content: Any, base: dict[str, Any], calls: dict[str, str]) -> Iterator[Message]:
    if not isinstance(content, dict):
        return
    for kind, body in content.items():
        if not isinstance(body, dict):
            continue
        prompt = _str(body.get("prompt")).strip() if kind in ("Prompt", "CancelledToolUses") else ""
        if prompt:
            yield Message(MessageKind.PROMPT, cap(prompt, PROMPT_CAP), **base)
        for result in _list(body.get("tool_use_results")):
            if not isinstance(result, dict):
                continue
            call_id = _str(result.get("tool_use_id")) or None
            output = _output(result.get("content"))
            if output:
                yield Message(
                    MessageKind.TOOL_OUTPUT,
                    cap(output, TOOL_OUTPUT_CAP),
                    tool_name=calls.get(call_id or ""),
                    tool_id=call_id,
                    is_error=str(result.get("status", "")).lower() == "error",
                    **base,
                )


def _assistant(value: Any, base: dict[str, Any], calls: dict[str, str]) -> Iterator[Message]:
    if not isinstance(value, dict):
        return
    for body in value.values():
        if not isinstance(body, dict):
            continue
        mid = _str(body.get("message_id")) or None
        text = _str(body.get("content")).strip()
        if text:
            yield Message(
                MessageKind.REPLY, cap(text, PROMPT_CAP), uuid=mid, message_id=mid, **base
            )
        for use in _list(body.get("tool_uses")):
            if isinstance(use, dict):
                yield _call(use.get("id"), use.get("name"), use.get("args"), base, calls, mid)


def line_records(
    line: int, obj: dict[str, Any], cwd: str | None, calls: dict[str, str], unknown: list[str]
) -> list[Record]:
    """The records of one line of the JSON-lines layout; a kind not known here is named
    in `unknown` and gives none."""
    kind = obj.get("kind")
    data = obj.get("data") if isinstance(obj.get("data"), dict) else {}
    meta = data.get("meta") if isinstance(data.get("meta"), dict) else {}
    mid = _str(data.get("message_id")) or None
    base = {"line": line, "cwd": cwd, "timestamp": epoch_iso(meta.get("timestamp"))}
    blocks = [b for b in _list(data.get("content")) if isinstance(b, dict)]
    out: list[Record] = []
    if kind == "Prompt":
        texts = [t for b in blocks if b.get("kind") == "text" and (t := _block_text(b))]
        typed = [t for t in texts if not _INJECTED.fullmatch(t)] or texts
        if typed:
            out.append(Message(MessageKind.PROMPT, cap("\n\n".join(typed), PROMPT_CAP), **base))
        if injected := [t for t in texts if t not in typed]:
            text = cap("\n\n".join(injected), TOOL_OUTPUT_CAP)
            out.append(Message(MessageKind.HARNESS, text, **base))
    elif kind == "AssistantMessage":
        for block in blocks:
            if block.get("kind") == "text" and (text := _block_text(block)):
                out.append(
                    Message(MessageKind.REPLY, cap(text, PROMPT_CAP), message_id=mid, **base)
                )
            elif block.get("kind") == "toolUse" and isinstance(use := block.get("data"), dict):
                out.append(
                    _call(use.get("toolUseId"), use.get("name"), use.get("input"), base, calls, mid)
                )
    elif kind == "ToolResults":
        for block in blocks:
            result = block.get("data") if block.get("kind") == "toolResult" else None
            if not isinstance(result, dict):
                continue
            call_id = _str(result.get("toolUseId")) or None
            output = _output(result.get("content"))
            if output:
                out.append(
                    Message(
                        MessageKind.TOOL_OUTPUT,
                        cap(output, TOOL_OUTPUT_CAP),
                        tool_name=calls.get(call_id or ""),
                        tool_id=call_id,
                        is_error=str(result.get("status", "")).lower() == "error",
                        **base,
                    )
                )
    elif not isinstance(kind, str) or kind not in _QUIET_LINES:
        unknown.append(str(kind))
    return out


def _call(
    call_id: Any, name: Any, args: Any, base: dict[str, Any], calls: dict[str, str], mid: Any
) -> Message:
    tool_id, tool = _str(call_id) or None, _str(name) or "tool"
    if tool_id:
        calls[tool_id] = tool
    return Message(
        MessageKind.TOOL_CALL,
        cap(args_text(args, TOOL_INPUT_CAP), TOOL_INPUT_CAP),
        tool_name=tool,
        tool_id=tool_id,
        files=files(args),
        message_id=mid,
        **base,
    )


def _output(content: Any) -> str:
    """A tool result's text: its text blocks as they are, JSON blocks as JSON (the
    database writes `{Text}`/`{Json}`, the JSON-lines layout `{kind, data}`)."""
    if isinstance(content, str):
        return clean_text(content).strip()
    pieces = []
    for block in _list(content):
        if isinstance(block, dict):
            key = "data" if "kind" in block else next((k for k in _RESULT_KEYS if k in block), "")
            block = block.get(key)
        if block is not None:
            pieces.append(block if isinstance(block, str) else json.dumps(block))
    return clean_text("\n".join(p for p in pieces if p)).strip()


def _block_text(block: dict[str, Any]) -> str:
    return _str(block.get("data")).strip()


def _cwd(user: dict[str, Any]) -> str | None:
    env = user.get("env_context") if isinstance(user.get("env_context"), dict) else {}
    state = env.get("env_state") if isinstance(env.get("env_state"), dict) else {}
    return _str(state.get("current_working_directory")) or None


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _str(value: Any) -> str:
    return clean_text(value) if isinstance(value, str) else ""
