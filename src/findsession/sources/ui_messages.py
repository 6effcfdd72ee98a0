"""What a Cline or Roo Code task's `ui_messages.json` means, as format-free records.

Both extensions (Roo Code began as a fork of Cline, and Kilo Code's first versions as one
of Roo) keep the conversation the person saw as a JSON array of
`{ts, type: "say"|"ask", say|ask, text, partial}`. The first item is the task the person
typed; later typed messages are `say: user_feedback`. The agent's words are `say: text`
and `completion_result`, its questions `ask: followup` (JSON `{question, ...}`), its
thinking `say: reasoning`; a tool it wants to use is `ask: tool` (JSON `{tool, path, ...}`)
or `ask: command`, and what came back `say: command_output`. The rest is the harness's
(API request records, errors, checkpoints) or a choice the person is asked to make.

The API's own copy (`api_conversation_history.json`) is not read: it wraps the task in
`<task>`, injects `<environment_details>` into every message and has no times.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from typing import Any

from findsession.domain import Message, MessageKind, Problem
from findsession.sources.jsonl import cap, clean_text

PROMPT_CAP = 100_000
THINKING_CAP = 8_000
TOOL_INPUT_CAP = 2_000
TOOL_OUTPUT_CAP = 4_000

_PROMPTS = {"task", "user_feedback"}
_REPLIES = {"text", "completion_result"}
_THINKING = {"reasoning"}
_OUTPUTS = {"command_output", "subtask_result", "mcp_server_response", "browser_action_result"}
_HARNESS = {"error", "condense_context", "diff_error", "rooignore_error", "clineignore_error"}
#: Known kinds with nothing to search: usage records, UI state, choices offered.
_QUIET = {
    "api_req_started", "api_req_finished", "api_req_retried", "api_req_retry_delayed",
    "api_req_deleted", "checkpoint_saved", "shell_integration_warning", "user_feedback_diff",
    "completion_result", "resume_task", "resume_completed_task", "mistake_limit_reached",
    "auto_approval_max_req_reached", "api_req_failed", "condense_context_error",
    "deleted_api_reqs", "task_progress", "hook_status", "load_mcp_documentation",
    "codebase_search_result", "info", "image", "too_many_tools_warning", "generate_explanation",
}  # fmt: skip
_TOOL_ASKS = {"tool", "command", "use_mcp_server", "browser_action_launch"}
_QUIET_ASKS = {"new_task", "condense", "report_bug", "api_req_failed"}
_FILE_KEYS = ("path", "file_path", "filePath")
#: Where a request's environment details name the folder the task works in (Cline
#: "Working", Roo Code "Workspace").
_CWD = re.compile(r"# Current (?:Working|Workspace) Directory \(([^)\n]+)\)")


def ui_records(items: Any, problems: list[Problem]) -> list[Message]:
    """Every message of a task's UI list, numbered by its place in the list (from 1);
    kinds not known are skipped and reported, one problem per kind with its count."""
    if not isinstance(items, list):
        problems.append(Problem(1, "not a JSON array", type(items).__name__))
        return []
    records: list[Message] = []
    unknown: dict[str, list[int]] = {}
    for number, item in enumerate(items, 1):
        if not isinstance(item, dict) or item.get("partial") is True:
            continue
        records.extend(item_records(item, number, first=number == 1, unknown=unknown))
    for kind, numbers in unknown.items():
        count = f"{len(numbers)} message" + ("" if len(numbers) == 1 else "s")
        problems.append(Problem(numbers[0], "unknown message kind", f"{kind} ({count})"))
    return records


def item_records(
    item: dict[str, Any], number: int, first: bool, unknown: dict[str, list[int]] | None = None
) -> list[Message]:
    """The records of one UI message (none for a kind with nothing to search)."""
    side = item.get("type")
    kind = item.get(side) if side in ("say", "ask") else None
    text = _str(item.get("text")).strip()
    base = {"line": number, "timestamp": _time(item.get("ts"))}
    if not isinstance(kind, str):
        return []
    said: tuple[MessageKind, int, str | None] | None = None  # kind, cap, tool
    if side == "say":
        if kind in _PROMPTS or (first and kind == "text"):
            said = (MessageKind.PROMPT, PROMPT_CAP, None)
        elif kind in _REPLIES:
            said = (MessageKind.REPLY, PROMPT_CAP, None)
        elif kind in _THINKING:
            said = (MessageKind.THINKING, THINKING_CAP, None)
        elif kind in _OUTPUTS:
            tool = "subtask" if kind == "subtask_result" else None
            said = (MessageKind.TOOL_OUTPUT, TOOL_OUTPUT_CAP, tool)
        elif kind in _HARNESS:
            said = (MessageKind.HARNESS, TOOL_OUTPUT_CAP, None)
        elif kind in _QUIET or kind in _TOOL_ASKS:  # `say: tool` repeats an approved `ask`
            return []
    elif kind == "followup":
        question = _json(text).get("question") if text.startswith("{") else text
        text = _str(question).strip()
        said = (MessageKind.REPLY, PROMPT_CAP, None)
    elif kind in _TOOL_ASKS:
        return [_tool_call(kind, text, base)] if text else []
    elif kind in _QUIET or kind in _QUIET_ASKS:
        return []
    if said is not None:
        speaker, limit, tool = said
        return [Message(speaker, cap(text, limit), tool_name=tool, **base)] if text else []
    if unknown is not None:
        unknown.setdefault(f"{side}: {kind}", []).append(number)
    return []


def _tool_call(kind: str, text: str, base: dict[str, Any]) -> Message:
    """A tool the agent asked to use: its JSON's values, or the command line."""
    if kind == "command":
        return Message(
            MessageKind.TOOL_CALL, cap(text, TOOL_INPUT_CAP), tool_name="execute_command", **base
        )
    args = _json(text)
    name = _str(args.get("tool") or args.get("serverName")) or kind
    shown = "\n".join(
        f"{k}: {v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)}"
        for k, v in args.items()
        if k != "tool" and v not in (None, "")
    )
    files = tuple(
        clean_text(v) for k in _FILE_KEYS if isinstance(v := args.get(k), str) and 0 < len(v) < 1024
    )
    return Message(
        MessageKind.TOOL_CALL,
        cap(shown or text, TOOL_INPUT_CAP),
        tool_name=clean_text(name),
        files=files,
        **base,
    )


def cwd_from_requests(items: Any) -> str | None:
    """The working folder the first API request's environment details name (the only
    record of it in Kilo Code's legacy tasks, and Cline's when no history names it)."""
    if not isinstance(items, list):
        return None
    for item in items:
        if isinstance(item, dict) and item.get("say") == "api_req_started":
            request = _json(_str(item.get("text"))).get("request")
            found = _CWD.search(request) if isinstance(request, str) else None
            if found:
                return clean_text(found.group(1).strip())
    return None


def _json(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return {}
    return value if isinstance(value, dict) else {}


def _time(ts: Any) -> str | None:
    """A millisecond epoch as ISO 8601 UTC."""
    if not isinstance(ts, int | float) or isinstance(ts, bool) or not 0 < ts < 1e14:
        return None
    moment = datetime.fromtimestamp(ts / 1000, UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _str(value: Any) -> str:
    return clean_text(value) if isinstance(value, str) else ""
