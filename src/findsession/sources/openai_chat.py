"""An assistant's tool calls in OpenAI's chat form, read alike for every agent that keeps
its conversation that way, and the `tool` messages that answer them.

Mistral Vibe, GitHub Copilot CLI's first layout, Hermes Agent and Nanocoder keep a
conversation as they sent it to the model: an assistant message's `tool_calls`,
`[{id, function: {name, arguments}}]`, the arguments JSON text (or, in Nanocoder, the
object itself), each answered by a `tool` message naming its id (`tool_call_id`) and its
tool (`name`). A message's text is
`jsonl.text_of`; what differs (which text the agent added to a prompt, how a failed call
shows, where thinking is kept) stays with each agent's reader.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any, NamedTuple

from findsession.domain import Message, MessageKind
from findsession.sources.jsonl import cap, clean_text
from findsession.sources.tool_args import args_text, parsed
from findsession.sources.tool_args import files as arg_files


class Call(NamedTuple):
    """One of an assistant's tool calls."""

    name: str
    args: Any
    id: str | None


def calls_of(value: Any) -> list[Call]:
    """Each of `tool_calls` (the list, or its JSON text), as `{id, function: {name,
    arguments}}` or `{id, name, arguments}` (`call_id` for its id, in some): its tool
    ("tool" when unnamed), its arguments (JSON text parsed), its id. [] for anything else."""
    loaded = parsed(value) if isinstance(value, str) else value
    found = []
    for call in loaded if isinstance(loaded, list) else []:
        if not isinstance(call, dict):
            continue
        function = call.get("function") if isinstance(call.get("function"), dict) else {}
        name = function.get("name") or call.get("name")
        call_id = call.get("id") or call.get("call_id")
        found.append(
            Call(
                clean_text(name) if isinstance(name, str) and name else "tool",
                parsed(function.get("arguments", call.get("arguments"))),
                clean_text(call_id) if isinstance(call_id, str) and call_id else None,
            )
        )
    return found


def call_records(
    calls: Any, line: int, base: Mapping[str, Any], file_keys: tuple[str, ...], limit: int
) -> list[Message]:
    """A tool call message for each of `calls_of(calls)`: its arguments as `key: value`
    lines cut to `limit`, the paths they name under `file_keys` as its files. `base` holds
    the fields every record of the message shares (its time, its folder)."""
    records: list[Message] = []
    for call in calls_of(calls):
        text = cap(clean_text(args_text(call.args, limit)).strip(), limit)
        message = Message(MessageKind.TOOL_CALL, text, line, **base)
        found = arg_files(call.args, file_keys)
        records.append(replace(message, tool_name=call.name, tool_id=call.id, files=found))
    return records


def result_record(
    msg: Mapping[str, Any],
    output: str,
    line: int,
    base: Mapping[str, Any],
    limit: int,
    is_error: bool = False,
) -> Message:
    """The result a `tool` message holds: `output` (its text, as the agent's reader took
    it) cut to `limit`, answering the call its `tool_call_id` names."""
    message = Message(MessageKind.TOOL_OUTPUT, cap(clean_text(output).strip(), limit), line, **base)
    return replace(
        message, tool_id=_text(msg.get("tool_call_id")), tool_name=_text(msg.get("name")),
        is_error=is_error,
    )  # fmt: skip


def _text(value: Any) -> str | None:
    return clean_text(value) if isinstance(value, str) and value else None
