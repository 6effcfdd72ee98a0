"""A tool call's arguments as a person reads and searches them, and the files they name.

Every agent's tool call has arguments; some store them as a JSON string (Crush), most as
an object. Either becomes `key: value` lines (the values, not JSON punctuation), capped,
and the paths among them become the message's `files`, so `--file` finds the call
(`call_message`: the tool call message a reader makes of them, and `result_message`
the message of what the call gave back).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from findsession.domain import Message, MessageKind
from findsession.sources.jsonl import cap, clean_text, cut_point

#: Argument names the agents use for the file a tool reads or writes.
FILE_KEYS = ("file_path", "filePath", "path", "file", "filename")
_MAX_PATH = 1024


def parsed(args: Any) -> Any:
    """`args` itself, or the object a JSON string holds (a string that is not JSON stays
    a string: some tools take a bare command)."""
    if isinstance(args, str) and args.lstrip().startswith(("{", "[")):
        try:
            return json.loads(args)
        except (ValueError, RecursionError):
            return args
    return args


def args_text(args: Any, limit: int, *, join_lists: bool = False) -> str:
    """Each argument as `key: value`, a nested value as compact JSON cut to `limit`; with
    `join_lists`, a list of strings as its items joined by spaces (an argv reads as the
    command line it is: `command: bash -lc ls`)."""
    args = parsed(args)
    if not isinstance(args, dict):
        return clean_text(args) if isinstance(args, str) else _json(args, limit)
    out = []
    for key, value in args.items():
        if join_lists and isinstance(value, list) and all(isinstance(x, str) for x in value):
            out.append(f"{key}: {' '.join(value)}")
        elif isinstance(value, str | int | float | bool):
            out.append(f"{key}: {value}")
        elif value is not None:
            out.append(f"{key}: {_json(value, limit)}")
    return clean_text("\n".join(out))


def files(args: Any, keys: tuple[str, ...] = FILE_KEYS) -> tuple[str, ...]:
    """The paths a call's arguments name under `keys` (each agent names them its way)."""
    args = parsed(args)
    if not isinstance(args, dict):
        return ()
    return tuple(
        clean_text(v)
        for k in keys
        if isinstance(v := args.get(k), str) and 0 < len(v) < _MAX_PATH and "\n" not in v
    )


def call_message(
    name: str,
    call_id: str | None,
    args: Any,
    base: Mapping[str, Any],
    keys: tuple[str, ...],
    limit: int,
) -> Message:
    """A tool call as the index keeps it, whichever agent made it: its arguments as
    `key: value` lines cut to `limit`, the paths they name under `keys` its files. `base`
    holds what every record of the same place shares (its line, time, folder)."""
    return Message(
        MessageKind.TOOL_CALL,
        cap(args_text(args, limit), limit),
        tool_name=name,
        tool_id=call_id,
        files=files(args, keys),
        **base,
    )


def result_message(
    name: str | None,
    call_id: str | None,
    text: str,
    failed: bool,
    base: Mapping[str, Any],
    limit: int,
) -> Message:
    """What a tool call gave back, as the index keeps it beside the call: `text` cut to
    `limit`, under the call's name and id, failed or not. `base` as for `call_message`."""
    return Message(
        MessageKind.TOOL_OUTPUT,
        cap(text, limit),
        tool_name=name,
        tool_id=call_id,
        is_error=failed,
        **base,
    )


def _json(value: Any, limit: int) -> str:
    if value is None:
        return ""
    rendered = json.dumps(value, ensure_ascii=False)
    return clean_text(rendered[: cut_point(rendered, limit)])
