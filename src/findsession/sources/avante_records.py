"""An avante.nvim chat history document as format-free records.

avante.nvim keeps a chat as one JSON object, `{title, timestamp, messages, entries, todos,
filename, memory?}`, written again whole at every save. Since April 2025 (every
release from v0.0.24) the conversation is `messages`: each `{uuid, timestamp,
state, visible, is_user_submission, message: {role, content}, ...}`, its `content` a text
or a list of one item:

- `user` with a text: what was typed when `is_user_submission` is true, and a message
  typed while the model was still answering (queued without the flag) too; avante's own
  `<system-reminder>` nudges, which it writes hidden (`visible: false`), are not;
- `assistant` with a text: a reply (avante writes an empty one when a model's first
  chunk is empty); `just_for_display` marks an error avante showed, not the model's;
- `{type: "tool_use", id, name, input}`: a call, its arguments an object;
- `{type: "tool_result", tool_use_id, content, is_error, is_user_declined}`: its result,
  failed when `is_error` or the person declined it;
- `{type: "thinking", thinking}` and `redacted_thinking` (not read).

Before that, a chat was `entries`, one a request and its answer: `{timestamp, provider,
model, request, response, original_response, selected_filepaths, visible,
tool_histories?: [{tool_use: {name, id, input_json}, tool_result: {tool_name,
tool_use_id, content, is_error}}]}`; the first releases kept that list itself as the
whole document. Avante reads an `entries` chat as messages when it loads it, and writes
`messages` from then on; a document with messages is read by them alone.

Times are `YYYY-MM-DD HH:MM:SS` in the machine's local time (`os.date`), with no zone.
The top-level `timestamp` is not the chat's start: avante sets it anew each time it
loads the file, so each message's own is used. The title is avante's own, the first
line of the chat's first message ("untitled" until then).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from findsession.domain import Message, MessageKind, MetaEvent, MetaKind, Problem
from findsession.sources.cursor import Record
from findsession.sources.epoch import iso_utc
from findsession.sources.jsonl import cap, clean_text, text_of
from findsession.sources.tool_args import args_text, parsed
from findsession.sources.tool_args import files as arg_files

PROMPT_CAP = 100_000
THINKING_CAP = 8_000
TOOL_INPUT_CAP = 2_000
TOOL_OUTPUT_CAP = 4_000
#: Where avante's tools name a file (`write_to_file`, `str_replace`, `view`, `insert`,
#: `create`, `replace_in_file`, `edit_file` take `path`; `move_path` and `copy_path`
#: a `new_path` too).
FILE_KEYS = ("path", "new_path", "rel_path", "filepath")
#: What avante writes as a user message itself, to nudge a model that stopped early.
_REMINDER = "<system-reminder>"
_UNTITLED = "untitled"


def document_records(doc: Any, problems: list[Problem], cwd: str | None = None) -> list[Record]:
    """A chat's records, numbered by message (or entry) from 1, then its title."""
    if isinstance(doc, list):  # the first releases: the entries alone
        return _entries_records(doc, cwd)
    if not isinstance(doc, dict):
        problems.append(Problem(1, "not a JSON object", type(doc).__name__))
        return []
    messages = doc.get("messages")
    entries = doc.get("entries")
    if isinstance(messages, list) and messages:
        records = _messages_records(messages, cwd)
    elif isinstance(entries, list):
        records = _entries_records(entries, cwd)
    elif isinstance(messages, list):
        records = []
    else:
        problems.append(Problem(1, "no messages", type(messages).__name__))
        return []
    title = doc.get("title")
    title = clean_text(title).strip() if isinstance(title, str) else ""
    if title and title != _UNTITLED and records:
        records.append(MetaEvent(MetaKind.AI_TITLE, title[:200], 0))
    return records


def _messages_records(messages: list[Any], cwd: str | None) -> list[Record]:
    records: list[Record] = []
    for number, item in enumerate(messages, 1):
        if not isinstance(item, dict):
            continue
        msg = item.get("message")
        if not isinstance(msg, dict):
            continue
        # (Not its `uuid`: LuaJIT's unseeded random numbers give each Neovim the same
        # sequence, so two chats can hold the same uuids.)
        base = {"timestamp": _when(item.get("timestamp")), "cwd": cwd}
        content = msg.get("content")
        role = msg.get("role")
        if isinstance(content, str):
            records += _text_records(role, content, item, number, base)
            continue
        for part in content if isinstance(content, list) else []:
            records += _part_records(role, part, item, number, base)
    return _results_named(records)


def _results_named(records: list[Record]) -> list[Record]:
    """Each result named after its call (a `tool_result` names only the call's id)."""
    names = {
        r.tool_id: r.tool_name
        for r in records
        if isinstance(r, Message) and r.kind is MessageKind.TOOL_CALL and r.tool_id
    }
    named: list[Record] = []
    for r in records:
        if isinstance(r, Message) and r.kind is MessageKind.TOOL_OUTPUT and not r.tool_name:
            r = replace(r, tool_name=names.get(r.tool_id or ""))
        named.append(r)
    return named


def _text_records(
    role: Any, text: str, item: dict[str, Any], number: int, base: dict[str, Any]
) -> list[Record]:
    if not text.strip():
        return []
    if role == "user":
        own = item.get("visible") is False or text.lstrip().startswith(_REMINDER)
        if own and item.get("is_user_submission") is not True:
            return [_message(MessageKind.HARNESS, text, number, PROMPT_CAP, base)]
        return [_message(MessageKind.PROMPT, text, number, PROMPT_CAP, base)]
    if role == "assistant":
        kind = MessageKind.HARNESS if item.get("just_for_display") is True else MessageKind.REPLY
        return [_message(kind, text, number, PROMPT_CAP, base)]
    return []


def _part_records(
    role: Any, part: Any, item: dict[str, Any], number: int, base: dict[str, Any]
) -> list[Record]:
    if isinstance(part, str):
        return _text_records(role, part, item, number, base)
    if not isinstance(part, dict):
        return []
    kind = part.get("type")
    if kind == "text":
        return _text_records(role, text_of(part.get("text")), item, number, base)
    if kind == "thinking":
        thought = text_of(part.get("thinking"))
        return [_message(MessageKind.THINKING, thought, number, THINKING_CAP, base)] if (
            thought.strip()) else []  # fmt: skip
    if kind == "tool_use":
        return [_call(part.get("name"), part.get("input"), part.get("id"), number, base)]
    if kind == "tool_result":
        failed = part.get("is_error") is True or part.get("is_user_declined") is True
        return [_result(part, number, base, failed)]
    return []


def _entries_records(entries: list[Any], cwd: str | None) -> list[Record]:
    """An `entries` chat: each entry its request, its tools' calls and results, then the
    answer, all on the entry's line."""
    records: list[Record] = []
    for number, entry in enumerate(entries, 1):
        if not isinstance(entry, dict):
            continue
        base = {"timestamp": _when(entry.get("timestamp")), "cwd": cwd}
        request = entry.get("request")
        if isinstance(request, str) and request.strip():
            records.append(_message(MessageKind.PROMPT, request, number, PROMPT_CAP, base))
        histories = entry.get("tool_histories")
        for history in histories if isinstance(histories, list) else []:
            if not isinstance(history, dict):
                continue
            use = history.get("tool_use")
            if isinstance(use, dict):
                args = use.get("input_json", use.get("input"))
                records.append(_call(use.get("name"), args, use.get("id"), number, base))
            result = history.get("tool_result")
            if isinstance(result, dict):
                records.append(_result(result, number, base, result.get("is_error") is True))
        response = entry.get("response")
        if isinstance(response, str) and response.strip():
            records.append(_message(MessageKind.REPLY, response, number, PROMPT_CAP, base))
    return records


def _call(name: Any, args: Any, call_id: Any, number: int, base: dict[str, Any]) -> Message:
    loaded = _paths_first(parsed(args) if isinstance(args, str) else args)
    text = cap(clean_text(args_text(loaded, TOOL_INPUT_CAP)).strip(), TOOL_INPUT_CAP)
    return Message(
        MessageKind.TOOL_CALL, text, number, **base,
        tool_name=_text(name) or "tool", tool_id=_text(call_id),
        files=arg_files(loaded, FILE_KEYS),
    )  # fmt: skip


def _paths_first(args: Any) -> Any:
    """The arguments with the file they name first: Neovim's JSON writer gives an
    object's keys in no set order (`the_content` before `path` as often as after), and a
    path after the written text would read as part of it."""
    if not isinstance(args, dict):
        return args
    first = {k: args[k] for k in FILE_KEYS if k in args}
    return {**first, **{k: v for k, v in args.items() if k not in first}}


def _result(part: dict[str, Any], number: int, base: dict[str, Any], failed: bool) -> Message:
    output = text_of(part.get("content"))
    return Message(
        MessageKind.TOOL_OUTPUT, cap(clean_text(output).strip(), TOOL_OUTPUT_CAP), number,
        **base, tool_id=_text(part.get("tool_use_id")), tool_name=_text(part.get("tool_name")),
        is_error=failed,
    )  # fmt: skip


def _when(value: Any) -> str | None:
    return iso_utc(value, naive_local=True) if isinstance(value, str) else None


def _text(value: Any) -> str | None:
    return clean_text(value) if isinstance(value, str) and value else None


def _message(kind: MessageKind, text: str, line: int, limit: int, base: dict[str, Any]) -> Message:
    return Message(kind, cap(clean_text(text).strip(), limit), line, **base)
