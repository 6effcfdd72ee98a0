"""What a Cline or Roo Code task's `ui_messages.json` means, as format-free records.

Both extensions (Roo Code began as a fork of Cline, and Kilo Code's first versions as one
of Roo) keep the conversation the person saw as a JSON array of
`{ts, type: "say"|"ask", say|ask, text, partial}`. The first item is the task the person
typed; later typed messages are `say: user_feedback`. The agent's words are `say: text`
and `completion_result`, its questions `ask: followup` (JSON `{question, ...}`) and its
answers in Cline's plan mode `ask: plan_mode_respond` (JSON `{response, ...}`), its
thinking `say: reasoning`. A tool it uses is `ask: tool` (JSON `{tool, path, ...}`) or
`ask: command` when the person is asked first, and `say: tool` / `say: command` when
Cline ran it without asking (one or the other, never both); what came back is
`command_output` (Cline sends a running command's output as `ask` chunks) or an MCP or
browser result. The rest is the harness's (API request records, retries, errors,
checkpoints) or a choice the person is asked to make. Every kind the extensions declare
(Cline's `ClineSay`/`ClineAsk`, Roo Code's and Kilo Code's `clineSays`/`clineAsks`) is
known here, so only a kind from a later version is reported.

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
#: The agent's words an `ask` carries, and the key of its JSON that holds them.
_ASKED_REPLIES = {"followup": "question", "plan_mode_respond": "response",
                  "act_mode_respond": "response"}  # fmt: skip
#: A tool the agent used, whether the person was asked (`ask`) or not (`say`).
_TOOL_CALLS = {"tool", "command", "use_mcp_server", "browser_action_launch", "browser_action",
               "use_subagents"}  # fmt: skip
_OUTPUTS = {"command_output", "subtask_result", "mcp_server_response", "browser_action_result",
            "inspect_site_result", "subagent"}  # fmt: skip
_HARNESS = {"error", "diff_error", "rooignore_error", "clineignore_error",
            "command_permission_denied", "condense_context"}  # fmt: skip
#: Known kinds with nothing to search: usage records, retries, UI state, notices.
_QUIET_SAYS = {
    "api_req_started", "api_req_finished", "api_req_retried", "api_req_retry_delayed",
    "api_req_rate_limited", "api_req_rate_limit_wait", "api_req_deleted", "deleted_api_reqs",
    "error_retry", "checkpoint_saved", "checkpoint_created", "shell_integration_warning",
    "shell_integration_warning_with_suggestion", "user_feedback_diff", "condense_context_error",
    "sliding_window_truncation", "mcp_server_request_started", "mcp_notification",
    "load_mcp_documentation", "generate_explanation", "info", "task_progress", "hook_status",
    "hook_output_stream", "subagent_usage", "conditional_rules_applied", "image",
    "codebase_search_result", "too_many_tools_warning", "user_edit_todos",
    "browser_session_status",
}  # fmt: skip
#: Known asks with nothing to search: the choices the person is offered.
_QUIET_ASKS = {
    "completion_result", "api_req_failed", "resume_task", "resume_completed_task",
    "mistake_limit_reached", "auto_approval_max_req_reached", "request_limit_reached",
    "new_task", "condense", "summarize_task", "report_bug", "payment_required_prompt",
    "invalid_model", "checkpoint_restore",
}  # fmt: skip
#: What Cline appends to a command it was asked to run with approval, and to a
#: completion that changed files: UI flags, not the agent's words.
_COMMAND_FLAG = "REQ_APP"
_CHANGES_FLAG = "HAS_CHANGES"
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
    if not isinstance(kind, str):
        return []
    text = _str(item.get("text")).strip()
    base = {"line": number, "timestamp": _time(item.get("ts"))}
    said = _classify(side, kind, first)
    if said is None:
        if unknown is not None and kind not in (_QUIET_SAYS if side == "say" else _QUIET_ASKS):
            unknown.setdefault(f"{side}: {kind}", []).append(number)
        return []
    if said is MessageKind.TOOL_CALL:
        return [_tool_call(kind, text, base)] if text else []
    if said is MessageKind.HARNESS and kind == "condense_context":
        summary = item.get("contextCondense")  # Roo Code: what condensing left of the task
        text = _str(summary.get("summary")).strip() if isinstance(summary, dict) else text
        said = MessageKind.COMPACT_SUMMARY if text else said
    elif side == "ask" and kind in _ASKED_REPLIES:
        text = _asked_words(text, _ASKED_REPLIES[kind])
    elif said is MessageKind.TOOL_OUTPUT:
        text = _output_text(kind, text)
    elif kind == "completion_result":
        text = text.removesuffix(_CHANGES_FLAG).rstrip()
    if not text:
        return []
    limit = {MessageKind.THINKING: THINKING_CAP, MessageKind.TOOL_OUTPUT: TOOL_OUTPUT_CAP,
             MessageKind.HARNESS: TOOL_OUTPUT_CAP}.get(said, PROMPT_CAP)  # fmt: skip
    tool = "subtask" if kind == "subtask_result" else None
    return [Message(said, cap(text, limit), tool_name=tool, **base)]


def _classify(side: str, kind: str, first: bool) -> MessageKind | None:
    """What a UI message of this side and kind is; None for one with nothing to search
    (or not known)."""
    if kind in _TOOL_CALLS:
        return MessageKind.TOOL_CALL
    if side == "ask":
        return MessageKind.REPLY if kind in _ASKED_REPLIES else (
            MessageKind.TOOL_OUTPUT if kind == "command_output" else None)  # fmt: skip
    if kind in _PROMPTS or (first and kind == "text"):
        return MessageKind.PROMPT
    if kind in _REPLIES:
        return MessageKind.REPLY
    if kind == "reasoning":
        return MessageKind.THINKING
    if kind in _OUTPUTS:
        return MessageKind.TOOL_OUTPUT
    return MessageKind.HARNESS if kind in _HARNESS else None


def _tool_call(kind: str, text: str, base: dict[str, Any]) -> Message:
    """A tool the agent used: its JSON's values, or the command line. Cline's context
    summary (`summarizeTask`) is what a compaction left, not a call."""
    if kind == "command":
        command = text.removesuffix(_COMMAND_FLAG).rstrip() or text
        return Message(
            MessageKind.TOOL_CALL, cap(command, TOOL_INPUT_CAP), tool_name="execute_command", **base
        )
    args = _json(text)
    if args.get("tool") == "summarizeTask" and isinstance(args.get("content"), str):
        return Message(MessageKind.COMPACT_SUMMARY, cap(_str(args["content"]), PROMPT_CAP), **base)
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


def _asked_words(text: str, key: str) -> str:
    """The agent's words in an ask's JSON (`{question: ...}`, `{response: ...}`), or the
    text itself where an older version wrote them plain."""
    if not text.startswith("{"):
        return text
    return _str(_json(text).get(key)).strip()


def _output_text(kind: str, text: str) -> str:
    """What a tool gave back, as text: a browser's logs and page (not its screenshot, an
    image in base64), a subagent run's results."""
    if kind in ("browser_action_result", "inspect_site_result") and text.startswith("{"):
        result = _json(text)
        return "\n".join(_str(result.get(k)) for k in ("currentUrl", "logs") if result.get(k))
    if kind == "subagent" and text.startswith("{"):
        items = _json(text).get("items")
        found = [i for i in items if isinstance(i, dict)] if isinstance(items, list) else []
        return "\n\n".join(_str(i.get("result")) for i in found if i.get("result"))
    return text


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
