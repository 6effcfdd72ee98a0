"""Events of the OpenHands app's conversations (its first server, before the agent SDK)
as format-free records, one event file at a time.

The app's file store keeps each event in `sessions/<id>/events/<id>.json`: one
serialized event with `id`, `timestamp` (ISO, no offset: UTC), `source` (`user`,
`agent`, `environment`) and either `action` with its `args` or `observation` with its
`content`, `extras` and `cause` (the id of the action it answers). An action the model
called as a tool carries `tool_call_metadata {function_name, tool_call_id}`, and so does
its observation. Read here:

- `message` from the person: a prompt (`args.content`); from the agent: a reply;
- `finish`: the agent's last reply (`args.final_thought`; its `message` is the app's own
  "All done!" line); `condensation`: the summary (`args.summary`) of what was condensed
  away;
- any other action of the agent (`run`, `read`, `edit`, `browse_interactive`,
  `call_tool_mcp`, `think`, `task_tracking`, ...): a tool call, its `args` as the input
  (less the app's bookkeeping, and less `thought`, the text the model wrote with the
  call: a reply; `think`'s own thought is its input);
- an observation of the agent (`run`, `read`, `edit`, `mcp`, `error`, ...): the call's
  output, paired by its tool call id, else by its `cause`; `error` and `user_rejected`
  failed, and a command's non-zero `exit_code` too.

The system prompt (`system`), the app's `recall` of workspace context and its answer,
state changes and empty (`null`) observations carry nothing to search.
"""

from __future__ import annotations

from typing import Any

from findsession.domain import Message, MessageKind
from findsession.sources.cursor import Record
from findsession.sources.epoch import iso_utc
from findsession.sources.jsonl import cap, clean_text
from findsession.sources.openhands_records import (
    PROMPT_CAP,
    TOOL_INPUT_CAP,
    TOOL_OUTPUT_CAP,
)
from findsession.sources.tool_args import args_text, files

#: Actions and observations with nothing to search.
QUIET_ACTIONS = frozenset({"system", "recall", "change_agent_state", "null"})
QUIET_OBSERVATIONS = frozenset({"agent_state_changed", "recall", "null"})
_FAILED = frozenset({"error", "user_rejected"})
#: An action's bookkeeping, not what the model asked for.
_BOOKKEEPING = frozenset({
    "security_risk", "confirmation_state", "impl_source", "is_input", "blocking",
    "is_static", "hidden", "start", "end", "wait_for_response",
})  # fmt: skip
_FILE_KEYS = ("path", "file_path")


def app_event_records(
    event: Any, line: int, branch: str | None, unknown: dict[str, list[int]]
) -> list[Record]:
    """The records of one event of the app's conversation, on the branch its metadata
    names."""
    if not isinstance(event, dict):
        return []
    base = {"line": line, "timestamp": iso_utc(event.get("timestamp")), "git_branch": branch}
    args = event.get("args") if isinstance(event.get("args"), dict) else {}
    action = event.get("action")
    if isinstance(action, str):
        if action in QUIET_ACTIONS:
            return []
        if action == "message":
            kind = MessageKind.PROMPT if event.get("source") == "user" else MessageKind.REPLY
            return _said(kind, args.get("content"), base)
        if action == "finish":
            return _said(MessageKind.REPLY, args.get("final_thought") or args.get("thought"), base)
        if action == "condensation":
            return _said(MessageKind.COMPACT_SUMMARY, args.get("summary"), base)
        return _call(event, action, args, base)
    observation = event.get("observation")
    if isinstance(observation, str):
        if observation in QUIET_OBSERVATIONS:
            return []
        return _output(event, observation, base)
    unknown.setdefault("event without action or observation", []).append(line)
    return []


def _call(
    event: dict[str, Any], action: str, args: dict[str, Any], base: dict[str, Any]
) -> list[Record]:
    think = action == "think"  # its thought is what the call holds
    out = [] if think else _said(MessageKind.REPLY, args.get("thought"), base)
    meta = _meta(event)
    given = {
        k: v
        for k, v in args.items()
        if (think or k != "thought")
        and k not in _BOOKKEEPING
        and v not in (None, "", [], {})
        and not isinstance(v, bool)
    }
    out.append(
        Message(
            MessageKind.TOOL_CALL,
            cap(args_text(given, TOOL_INPUT_CAP), TOOL_INPUT_CAP),
            tool_name=_str(meta.get("function_name")) or action,
            tool_id=_call_id(event, meta),
            files=files(given, _FILE_KEYS),
            **base,
        )
    )
    return out


def _output(event: dict[str, Any], observation: str, base: dict[str, Any]) -> list[Record]:
    content = event.get("content")
    text = clean_text(content).strip() if isinstance(content, str) else ""
    if not text:
        return []
    extras = event.get("extras") if isinstance(event.get("extras"), dict) else {}
    metadata = extras.get("metadata") if isinstance(extras.get("metadata"), dict) else {}
    code = metadata.get("exit_code")
    failed = observation in _FAILED or (isinstance(code, int) and code not in (0, -1))
    meta = _meta(event)
    return [
        Message(
            MessageKind.TOOL_OUTPUT,
            cap(text, TOOL_OUTPUT_CAP),
            tool_name=_str(meta.get("function_name")) or None,
            tool_id=_call_id(event, meta, cause=True),
            is_error=failed,
            **base,
        )
    ]


def _meta(event: dict[str, Any]) -> dict[str, Any]:
    meta = event.get("tool_call_metadata")
    return meta if isinstance(meta, dict) else {}


def _call_id(event: dict[str, Any], meta: dict[str, Any], cause: bool = False) -> str | None:
    """The model's tool call id, else the event id an observation's `cause` names (an
    action's own `id`, so the two meet)."""
    named = _str(meta.get("tool_call_id"))
    if named:
        return named
    held = event.get("cause") if cause else event.get("id")
    return f"event-{held}" if isinstance(held, int) and not isinstance(held, bool) else None


def _said(kind: MessageKind, text: Any, base: dict[str, Any]) -> list[Record]:
    text = clean_text(text).strip() if isinstance(text, str) else ""
    return [Message(kind, cap(text, PROMPT_CAP), **base)] if text else []


def _str(value: Any) -> str:
    return clean_text(value) if isinstance(value, str) else ""
