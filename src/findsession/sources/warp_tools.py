"""Warp's tool calls and their results, read from the protocol buffers of its agent's
messages (`Message.ToolCall` and `Message.ToolCallResult` in `task.proto` of
warpdotdev/warp-proto-apis), by field number.

A call is `{tool_call_id: 1, <one tool>}`, the tool a field of its own number (2
`run_shell_command`, 5 `read_files`, 6 `apply_file_diffs`, ...); a result is
`{tool_call_id: 1, context: 11, <one result>}`, again by number. Each becomes the text a
person reads: the tool's arguments by name, and for `apply_file_diffs` every file it
changes in an `apply_patch` envelope (`*** Update File`, its search as `-` lines and its
replacement as `+` lines; `*** Add File`; `*** Delete File`), which is what `blame`
reads. A tool this reader does not know gives its name's number and the strings it holds.
"""

from __future__ import annotations

from dataclasses import dataclass

from findsession.sources.jsonl import clean_text
from findsession.sources.protobuf_wire import Wire, struct_value, texts
from findsession.sources.tool_args import args_text

TOOL_INPUT_CAP = 2_000
#: Each tool a call may hold: its field number, name and arguments by field number. The
#: server's own calls (4, `server`) are bookkeeping the client only carries along.
CALLS: dict[int, tuple[str, dict[int, str]]] = {
    2: ("run_shell_command", {1: "command"}),
    3: ("search_codebase", {1: "query", 2: "path_filters", 3: "codebase_path"}),
    5: ("read_files", {}),
    6: ("apply_file_diffs", {}),
    7: ("suggest_plan", {1: "summary"}),
    8: ("suggest_create_plan", {}),
    9: ("grep", {1: "queries", 2: "path"}),
    10: ("file_glob", {1: "patterns", 2: "path"}),
    11: ("read_mcp_resource", {1: "uri", 2: "server_id"}),
    12: ("call_mcp_tool", {}),
    13: ("write_to_long_running_shell_command", {1: "input", 3: "command_id"}),
    14: ("suggest_new_conversation", {}),
    15: ("file_glob_v2", {1: "patterns", 2: "search_dir"}),
    16: ("suggest_prompt", {}),
    17: ("open_code_review", {}),
    18: ("init_project", {}),
    19: ("subagent", {1: "task_id", 2: "payload"}),
    20: ("read_documents", {}),
    21: ("edit_documents", {}),
    22: ("create_documents", {}),
    23: ("read_shell_command_output", {1: "command_id"}),
    24: ("use_computer", {3: "action_summary"}),
    25: ("insert_review_comments", {}),
    26: ("read_skill", {1: "skill_path", 2: "bundled_skill_id", 3: "name"}),
    27: ("request_computer_use", {1: "task_summary"}),
    28: ("fetch_conversation", {1: "conversation_id"}),
    29: ("start_agent", {1: "name", 2: "prompt"}),
    30: ("send_message_to_agent", {1: "addresses", 2: "subject", 3: "message"}),
    31: ("transfer_shell_command_control_to_user", {1: "reason"}),
}
SERVER = 4
#: A result's tool by its field number, where it differs from the call's.
_RESULT_NAMES = {15: "read_mcp_resource", 16: "call_mcp_tool",
                 17: "write_to_long_running_shell_command", 18: "suggest_new_conversation",
                 19: "file_glob_v2", 20: "suggest_prompt",
                 21: "open_code_review", 22: "init_project", 23: "subagent", 24: "read_documents",
                 25: "edit_documents", 26: "create_documents", 27: "read_shell_command_output",
                 28: "use_computer", 29: "insert_review_comments", 30: "read_skill",
                 31: "request_computer_use", 32: "fetch_conversation", 33: "start_agent",
                 34: "send_message_to_agent", 35: "transfer_shell_command_control_to_user",
                 14: "cancel"}  # fmt: skip
#: The results whose oneof says it failed, by the result's field number: the field of
#: its `error` (or `rejected`) case.
_FAILED_BY: dict[int, int] = {
    3: 2, 5: 2, 6: 2, 9: 2, 10: 2, 15: 2, 16: 2, 19: 2, 24: 2, 25: 2, 26: 2, 28: 2, 30: 2,
    32: 2, 33: 2, 34: 2, 17: 3, 35: 3, 29: 3, 27: 4, 31: 2,
}  # fmt: skip
_CANCEL = 14
_SHELL = 2
_READ_FILES = 5
_SERVER_RESULT = 4


@dataclass(frozen=True, slots=True)
class Call:
    """One tool call as a person reads it."""

    call_id: str
    name: str
    text: str
    files: tuple[str, ...]
    #: A `subagent` call's task and what it was asked: the subagent's first prompt.
    subtask: tuple[str, str] | None = None


@dataclass(frozen=True, slots=True)
class Result:
    """One tool call's result."""

    call_id: str
    name: str
    text: str
    failed: bool


def call(wire: Wire) -> Call | None:
    """The call a `ToolCall` holds; None for the server's own (or an empty one)."""
    call_id = wire.string(1)
    tool = next((n for n in wire.numbers() if n != 1), None)
    if tool is None or tool == SERVER:
        return None
    body = wire.message(tool) or Wire([])
    name, keys = CALLS.get(tool, (f"tool_{tool}", {}))
    if tool == 6:
        text, files = _file_diffs(body)
    elif tool == 5:
        paths = [f.string(1) for f in body.messages(1) if f.string(1)]
        text, files = args_text({"files": ", ".join(paths)}, TOOL_INPUT_CAP), tuple(paths)
    elif tool == 12:
        args = struct_value(args_wire) if (args_wire := body.message(2)) is not None else {}
        shown = {"name": body.string(1), "server_id": body.string(3), "args": args}
        text, files = args_text({k: v for k, v in shown.items() if v}, TOOL_INPUT_CAP), ()
    elif keys:
        text, files = _named(body, keys), _paths(body, keys)
    else:
        text, files = "\n".join(texts(body)), ()
    subtask = (clean_text(body.string(1)), clean_text(body.string(2))) if tool == 19 else None
    shown = tuple(clean_text(f) for f in files)
    return Call(clean_text(call_id), name, clean_text(text), shown, subtask)


def result(wire: Wire) -> Result | None:
    """The result a `ToolCallResult` holds; None for the server's own."""
    call_id = clean_text(wire.string(1))
    kind = next((n for n in wire.numbers() if n not in (1, 11)), None)
    if kind is None or kind == _SERVER_RESULT:
        return None
    body = wire.message(kind) or Wire([])
    name = _RESULT_NAMES.get(kind) or (CALLS[kind][0] if kind <= 10 and kind in CALLS else "")
    name = name or f"tool_{kind}"
    if kind == _CANCEL:
        return Result(call_id, name, "cancelled", True)
    if kind == _SHELL:
        return _shell(call_id, body)
    if kind == _READ_FILES and not body.has(2):
        files = [f for part in (1, 3) if (m := body.message(part)) for f in m.messages(1)]
        shown = [_file(f.message(6) if f.has(6) else f) for f in files]
        return Result(call_id, name, clean_text("\n\n".join(s for s in shown if s)), False)
    failed = kind in _FAILED_BY and body.has(_FAILED_BY[kind])
    return Result(call_id, name, clean_text("\n".join(texts(body))), failed)


def _shell(call_id: str, body: Wire) -> Result:
    """A command's output and exit code; denied, or exited other than 0, it failed."""
    finished = body.message(5)
    output = finished.string(1) if finished else body.string(1)
    code = (finished.signed(2) if finished else body.signed(2)) or 0
    if body.has(6):
        return Result(call_id, "run_shell_command", "permission denied", True)
    if body.has(4) and not finished:
        output = "\n".join(texts(body.message(4) or Wire([])))
    text = output + (f"\nexit code {code}" if code else "")
    return Result(call_id, "run_shell_command", clean_text(text.strip()), code != 0)


def _file(content: Wire | None) -> str:
    """A file read: its path, then its text."""
    if content is None:
        return ""
    return "\n".join(t for t in (content.string(1), content.string(2)) if t)


def _named(body: Wire, keys: dict[int, str]) -> str:
    args: dict[str, str] = {}
    for number, key in keys.items():
        values = [v.decode("utf-8", "replace") for v in body.raw(number)]
        if values:
            args[key] = ", ".join(values) if len(values) > 1 else values[0]
    return args_text(args, TOOL_INPUT_CAP)


def _paths(body: Wire, keys: dict[int, str]) -> tuple[str, ...]:
    names = {"path", "codebase_path", "search_dir", "skill_path"}
    found = [body.string(n) for n, key in keys.items() if key in names and body.string(n)]
    return tuple(p for p in found if len(p) < 1024 and "\n" not in p)


def _file_diffs(body: Wire) -> tuple[str, tuple[str, ...]]:
    """An `ApplyFileDiffs` call as its summary and an `apply_patch` envelope: `diffs`
    (2: path, search, replace), `new_files` (3: path, content), `deleted_files` (4: path)
    and `v4a_updates` (5: path, move_to, hunks of old and new lines)."""
    lines = ["*** Begin Patch"]
    paths: list[str] = []

    def head(kind: str, path: str) -> None:
        lines.append(f"*** {kind} File: {path}")
        if path not in paths:
            paths.append(path)

    for diff in body.messages(2):
        head("Update", diff.string(1))
        lines += ["-" + line for line in diff.string(2).split("\n")]
        lines += ["+" + line for line in diff.string(3).split("\n")]
    for new in body.messages(3):
        head("Add", new.string(1))
        lines += ["+" + line for line in new.string(2).split("\n")]
    for gone in body.messages(4):
        head("Delete", gone.string(1))
    for update in body.messages(5):
        head("Update", update.string(1))
        if update.string(2):
            lines.append(f"*** Move to: {update.string(2)}")
        for hunk in update.messages(3):
            lines += ["-" + line for line in hunk.string(3).split("\n") if hunk.string(3)]
            lines += ["+" + line for line in hunk.string(4).split("\n") if hunk.string(4)]
    lines.append("*** End Patch")
    summary = body.string(1)
    text = (f"summary: {summary}\n" if summary else "") + "patch: " + "\n".join(lines)
    return text, tuple(p for p in paths if p and len(p) < 1024 and "\n" not in p)
