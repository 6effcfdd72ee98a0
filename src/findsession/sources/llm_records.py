"""An `llm` conversation's rows as format-free records.

What the person typed is the prompt; what `llm` sent beside it is not: the system prompt
(`-s`, a template's) and the fragments (`-f`, `--sf`: a file's, a URL's or an alias's
text, which `llm` keeps apart from the prompt in the older tables, and stores by
reference inside the prompt's text in the newer) are harness text, as a file an agent
attaches to a prompt is. A tool's call is a call, its result (a raised exception marks
it failed) a tool output, the reasoning text thinking.

Each record is a line of its own, `foreign_db.line_of(conversation's rank, position)`;
the name `llm` gave the conversation sits on line 0.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from findsession.domain import Message, MessageKind, MetaEvent, MetaKind
from findsession.sources import foreign_db, llm_db
from findsession.sources.cursor import Record
from findsession.sources.epoch import iso_utc
from findsession.sources.foreign_db import Lines
from findsession.sources.jsonl import clean_text
from findsession.sources.tool_args import args_text, files, parsed

PROMPT_CAP = 100_000
THINKING_CAP = 8_000
TOOL_INPUT_CAP = 2_000
TOOL_OUTPUT_CAP = 4_000
#: What `llm` adds when it cuts a conversation's name from its first prompt.
_ELLIPSIS = "…"


def conversation_records(
    conn: llm_db.Conn, store: llm_db.Store, conversation: llm_db.Conversation
) -> list[Record]:
    """Every record of one conversation: the older rows, then the newer turns, then its
    name on line 0."""
    lines = Lines(conversation.rank, conversation.key)
    records: list[Record] = []
    first: list[str] = []  # the first prompt's text as `llm` named the conversation by it
    if conversation.legacy:
        system = None
        for row in llm_db.responses(conn, store, conversation.key):
            if not first and (row.prompt or row.system):
                first.append(" ".join([*row.fragments, row.prompt or row.system or ""]))
            records.extend(_response(row, lines, system))
            system = row.system or system
    if conversation.turns:
        for turn in llm_db.turns(conn, store, conversation.key):
            records.extend(_turn(conn, store, turn, lines, first))
    records.extend(_title(conversation, records, first))
    return [r for r in records if r is not None]


def _response(row: llm_db.Response, lines: Lines, system: str | None) -> Iterator[Any]:
    base = {"timestamp": iso_utc(row.when), "message_id": row.id}
    if row.system and row.system != system:
        yield lines.message(MessageKind.HARNESS, row.system, PROMPT_CAP, **base)
    for text in row.fragments:
        yield lines.message(MessageKind.HARNESS, text, PROMPT_CAP, **base)
    if row.prompt:
        yield lines.message(MessageKind.PROMPT, row.prompt, PROMPT_CAP, **base)
    for name, output, call_id, exception in row.results:
        yield lines.message(
            MessageKind.TOOL_OUTPUT, output or exception or "", TOOL_OUTPUT_CAP,
            tool_name=name or "tool", tool_id=call_id, is_error=bool(exception), **base,
        )  # fmt: skip
    if row.reasoning:
        yield lines.message(MessageKind.THINKING, row.reasoning, THINKING_CAP, **base)
    if row.response:
        yield lines.message(MessageKind.REPLY, row.response, PROMPT_CAP, **base)
    for name, arguments, call_id in row.calls:
        yield _call(lines, name, parsed(arguments), call_id, base)


def _turn(
    conn: llm_db.Conn,
    store: llm_db.Store,
    turn: llm_db.Turn,
    lines: Lines,
    first: list[str],
) -> Iterator[Any]:
    base = {"timestamp": iso_utc(turn.when), "message_id": turn.id}
    for msg in turn.inputs:
        for part in msg.parts:
            payload = part.payload or {}
            if part.type == "text" and msg.role in ("user", "system"):
                typed, borrowed = _text(conn, store, part)
                if msg.role == "user" and not first:
                    first.append(" ".join([*borrowed, typed]))
                for text in borrowed:
                    yield lines.message(MessageKind.HARNESS, text, PROMPT_CAP, **base)
                kind = MessageKind.PROMPT if msg.role == "user" else MessageKind.HARNESS
                yield lines.message(kind, typed, PROMPT_CAP, **base)
            elif part.type == "tool_result":
                yield _result(lines, payload, base)
    for msg in turn.outputs:
        for part in msg.parts:
            payload = part.payload or {}
            if part.type == "text" and msg.role == "assistant":
                yield lines.message(
                    MessageKind.REPLY, _text(conn, store, part)[0], PROMPT_CAP, **base
                )
            elif part.type == "reasoning":
                yield lines.message(
                    MessageKind.THINKING, _text(conn, store, part)[0], THINKING_CAP, **base
                )
            elif part.type == "tool_call":
                yield _call(
                    lines, _name(payload), payload.get("arguments"),
                    _s(payload.get("tool_call_id")), base,
                )  # fmt: skip
            elif part.type == "tool_result":  # a call the provider ran itself
                yield _result(lines, payload, base)


def _text(conn: llm_db.Conn, store: llm_db.Store, part: llm_db.Part) -> tuple[str, list[str]]:
    """A text part's own words, and the fragments it borrows: `llm` writes a prompt
    given fragments as the fragments and the typed words joined by newlines."""
    if part.text is not None:
        return part.text, []
    pieces = (part.payload or {}).get("text_ref")
    if not isinstance(pieces, list):
        return _s((part.payload or {}).get("text")) or "", []
    own, borrowed = [], []
    for piece in pieces:
        if not isinstance(piece, dict):
            continue
        if isinstance(piece.get("literal"), str):
            own.append(piece["literal"])
        elif "fragment" in piece:
            text = llm_db.fragment(conn, store, piece["fragment"])
            if text:
                borrowed.append(text)
    return "".join(own), borrowed


def _call(lines: Lines, name: str | None, args: Any, call_id: str | None, base: dict) -> Any:
    return lines.message(
        MessageKind.TOOL_CALL, args_text(args, TOOL_INPUT_CAP), TOOL_INPUT_CAP,
        tool_name=name or "tool", tool_id=call_id, files=files(args), **base,
    )  # fmt: skip


def _result(lines: Lines, payload: dict[str, Any], base: dict) -> Any:
    exception = _s(payload.get("exception"))
    return lines.message(
        MessageKind.TOOL_OUTPUT, _s(payload.get("output")) or exception or "",
        TOOL_OUTPUT_CAP, tool_name=_name(payload) or "tool",
        tool_id=_s(payload.get("tool_call_id")), is_error=bool(exception), **base,
    )  # fmt: skip


def _title(
    conversation: llm_db.Conversation, records: list[Any], first: list[str]
) -> Iterator[MetaEvent]:
    """The conversation's name: `llm` cuts it from the first prompt, so a name that is
    the start of the typed prompt is `llm`'s own (an AI title), one cut from text it
    was given beside it (a fragment, the system prompt) is no title at all, and any
    other was given by the person."""
    name = clean_text(re.sub(r"\s+", " ", conversation.name or "")).strip()
    if not name:
        return
    head = foreign_db.line_of(conversation.rank, 0)
    stem = name.removesuffix(_ELLIPSIS).rstrip()
    prompts = [r.text for r in records if isinstance(r, Message) and r.kind is MessageKind.PROMPT]
    harness = [r.text for r in records if isinstance(r, Message) and r.kind is MessageKind.HARNESS]
    if prompts and _flat(prompts[0]).startswith(stem):
        yield MetaEvent(MetaKind.AI_TITLE, name, head, session_key=conversation.key)
    elif any(_flat(t).startswith(stem) for t in [*first, *harness]):
        return
    else:
        yield MetaEvent(MetaKind.CUSTOM_TITLE, name, head, session_key=conversation.key)


def _flat(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def _name(payload: dict[str, Any]) -> str | None:
    return _s(payload.get("name"))


def _s(value: Any) -> str | None:
    return value if isinstance(value, str) else None
