"""What GitHub Copilot CLI's session events mean: each `{type, data, id, timestamp}` line
of `events.jsonl` mapped to format-free records.

- `user.message`: `content` is what the person typed (`transformedContent` is what was
  sent, with the CLI's context wrapped around it, and is not read); a message a skill
  injected (`source: skill-…`) is harness text, and so is an inter-agent prompt
  (`source: agent-…`: 1.0.102 writes a subagent's task there again, in the parent's
  log with no `parentToolCallId`; the subagent's prompt comes from `subagent.started`).
  Attached files become the prompt's files.
- `assistant.message`: `content` is the reply, `reasoningText` thinking, each of
  `toolRequests` a tool call; `tool.execution_complete` gives a call's output, failed
  when `success` is false or a shell command exited other than 0 (`success` stays true
  then: 1.0.102 gives the code as `shellExecution.exitCode`, every version ends the
  output with `<… with exit code N>`).
- `session.start` / `session.resume` name the working directory, branch and version.
  The older flat logs (`producer: copilot-agent`) name none: there the folder is the
  `Current working directory` of the environment a `system.message` gives the model,
  else the one a `session.info` of type `folder_trust` says was trusted. Their prompts
  end with a `<current_datetime>` tag the CLI adds for the model; it is not the
  person's, and is dropped.
- `session.compaction_complete`: `summaryContent`, what compacting the context left of
  the conversation, is a compaction summary.
- A subagent's events are written inline, each carrying the `parentToolCallId` of the
  tool call that started it: they go to a child session keyed by that id, whose prompt
  is the task the parent gave (`subagent.started`).

Every other event (`hook.*`, `abort`, `session.truncation`, `session.shutdown`, …) gives
nothing: it is bookkeeping, not conversation.
"""

from __future__ import annotations

import re
from typing import Any

from findsession.domain import Message, MessageKind
from findsession.sources.claude_code_records import (
    PROMPT_CAP,
    THINKING_CAP,
    TOOL_INPUT_CAP,
    TOOL_OUTPUT_CAP,
)
from findsession.sources.cursor import Record
from findsession.sources.jsonl import cap, clean_text
from findsession.sources.tool_args import args_text, parsed
from findsession.sources.tool_args import files as arg_files

#: Where a message the person did not type says it came from: a skill's injection, another
#: agent (a subagent's task).
_INJECTED_SOURCES = ("skill-", "agent-")
#: The argument names Copilot CLI's tools give a file under, in the order they are kept.
FILE_KEYS = ("path", "file_path", "filePath")
#: Arguments of the tool call that starts a subagent which hold the task it was given.
_TASK_KEYS = ("prompt", "task", "description")
#: The time the CLI appends to a prompt for the model (older flat logs).
_DATETIME = "<current_datetime>"
_DATETIME_TAG = re.compile(r"<current_datetime>[^<]*</current_datetime>\s*")
#: The line the CLI ends a shell command's output with: `<exited with exit code N>`,
#: 1.0.102's `<shellId: 0 completed with exit code N>`.
_EXIT_TRAILER = re.compile(r"<[^<>\n]*\bwith exit code (-?\d+)>\s*\Z")
#: Where the environment in a system message names the folder the CLI runs in.
_SYSTEM_CWD = re.compile(r"^[ \t*-]*Current working directory:([^\n]*)", re.M)
#: A `session.info` of type `folder_trust` ("Folder <path> has been added to trusted
#: folders.").
_TRUSTED = re.compile(
    r"^Folder (.+?) (?:has been|was) (?:added to (?:the )?trusted folders|trusted\b)"
)


def system_cwd(content: str) -> str | None:
    """The `Current working directory` a system prompt gives the model, if any."""
    found = _SYSTEM_CWD.search(content)
    return (found.group(1).strip() or None) if found else None


def trusted_folder(message: str) -> str | None:
    """The folder a folder-trust notice says was trusted, if it is one."""
    trusted = _TRUSTED.match(message)
    return (trusted.group(1).strip() or None) if trusted else None


class EventParser:
    """Turns one file's events into records, in order; one parser per read.

    `cwd` is the session's directory as `workspace.yaml` records it: a read that goes on
    from a cursor does not see the `session.start` line again.
    """

    def __init__(self, cwd: str | None = None) -> None:
        self.cwd = cwd
        self.branch: str | None = None
        self.version: str | None = None
        #: Task arguments of the tool calls seen in this read, for a subagent's prompt.
        self.tasks: dict[str, str] = {}

    def parse(self, line: int, obj: dict[str, Any]) -> list[Record]:
        """Records of one event; an unknown or malformed one gives none."""
        kind, data = obj.get("type"), obj.get("data")
        if not isinstance(data, dict):
            return []
        if kind in ("session.start", "session.resume"):
            self._context(data)
            return []
        if kind == "system.message" and self.cwd is None:
            self.cwd = system_cwd(_str(data.get("content")) or "")
            return []
        if kind == "session.info" and data.get("infoType") == "folder_trust" and not self.cwd:
            self.cwd = trusted_folder(_str(data.get("message")) or "")
            return []
        common: dict[str, Any] = {
            "line": line,
            "uuid": _str(obj.get("id")),
            "timestamp": _str(obj.get("timestamp")),
            "cwd": self.cwd,
            "git_branch": self.branch,
            "version": self.version,
            "session_key": _str(data.get("parentToolCallId")),
        }
        if kind == "user.message":
            return _user(data, common)
        if kind == "assistant.message":
            return self._assistant(data, common)
        if kind == "tool.execution_complete":
            return _tool_output(data, common)
        if kind == "subagent.started":
            return self._subagent(data, common)
        if kind == "session.compaction_complete":
            summary = _str(data.get("summaryContent"))
            if summary and summary.strip() and data.get("success") is not False:
                return [Message(MessageKind.COMPACT_SUMMARY, cap(summary.strip(), PROMPT_CAP),
                                **common)]  # fmt: skip
        return []

    def _context(self, data: dict[str, Any]) -> None:
        context = data.get("context")
        context = context if isinstance(context, dict) else {}
        self.cwd = _str(context.get("cwd")) or _str(data.get("cwd")) or self.cwd
        self.branch = _str(context.get("branch")) or self.branch
        self.version = _str(data.get("copilotVersion")) or self.version

    def _assistant(self, data: dict[str, Any], common: dict[str, Any]) -> list[Record]:
        out: list[Record] = []
        thought = _str(data.get("reasoningText"))
        if thought and thought.strip():
            out.append(Message(MessageKind.THINKING, cap(thought.strip(), THINKING_CAP), **common))
        said = _str(data.get("content"))
        if said and said.strip():
            out.append(Message(MessageKind.REPLY, cap(said.strip(), PROMPT_CAP), **common))
        requests = data.get("toolRequests")
        for req in requests if isinstance(requests, list) else []:
            if not isinstance(req, dict):
                continue
            args = parsed(req.get("arguments"))
            call_id = _str(req.get("toolCallId"))
            task = _task(args)
            if call_id and task:
                self.tasks[call_id] = task
            out.append(
                Message(
                    MessageKind.TOOL_CALL,
                    cap(args_text(args, TOOL_INPUT_CAP), TOOL_INPUT_CAP),
                    tool_name=_str(req.get("name")) or "tool",
                    tool_id=call_id,
                    files=arg_files(args, FILE_KEYS),
                    **common,
                )
            )
        return out

    def _subagent(self, data: dict[str, Any], common: dict[str, Any]) -> list[Record]:
        """The child session's first prompt: the task its parent gave it, else what the
        event says the agent is for."""
        call_id = _str(data.get("toolCallId"))
        if not call_id:
            return []
        text = (
            self.tasks.get(call_id)
            or _str(data.get("agentDescription"))
            or _str(data.get("agentDisplayName") or data.get("agentName"))
        )
        if not text or not text.strip():
            return []
        child = {**common, "session_key": call_id}
        return [Message(MessageKind.PROMPT, cap(text.strip(), PROMPT_CAP), **child)]


def _user(data: dict[str, Any], common: dict[str, Any]) -> list[Record]:
    text = without_time(_str(data.get("content")) or "")
    if not text.strip():
        return []
    source = data.get("source")
    injected = isinstance(source, str) and source.startswith(_INJECTED_SOURCES)
    kind = MessageKind.HARNESS if injected else MessageKind.PROMPT
    attached = data.get("attachments")
    files = tuple(
        clean_text(a["path"])
        for a in (attached if isinstance(attached, list) else [])
        if isinstance(a, dict) and isinstance(a.get("path"), str) and 0 < len(a["path"]) < 1024
    )
    return [Message(kind, cap(text.strip(), PROMPT_CAP), files=files[:50], **common)]


def without_time(text: str) -> str:
    """A prompt without the `<current_datetime>` tag the CLI put at its end."""
    at = text.rfind(_DATETIME)
    return text[:at] if at >= 0 and _DATETIME_TAG.fullmatch(text, at) else text


def _tool_output(data: dict[str, Any], common: dict[str, Any]) -> list[Record]:
    result, error = data.get("result"), data.get("error")
    text = ""
    if isinstance(result, dict):
        text = text_of(result.get("content")) or text_of(result.get("detailedContent"))
    elif isinstance(result, str):
        text = result
    if not text and error is not None:
        text = text_of(error.get("message") if isinstance(error, dict) else error)
    if not text.strip():
        return []
    return [
        Message(
            MessageKind.TOOL_OUTPUT,
            cap(clean_text(text), TOOL_OUTPUT_CAP),
            tool_id=_str(data.get("toolCallId")),
            tool_name=_str(data.get("toolName")),
            is_error=data.get("success") is False or exit_code(data, text) not in (None, 0),
            **common,
        )
    ]


def exit_code(data: dict[str, Any], text: str) -> int | None:
    """The exit code of the shell command a call ran, if it was one and says so."""
    shell = data.get("shellExecution")
    code = shell.get("exitCode") if isinstance(shell, dict) else None
    if isinstance(code, int) and not isinstance(code, bool):
        return code
    trailer = _EXIT_TRAILER.search(text[-200:])
    return int(trailer.group(1)) if trailer else None


def _task(args: Any) -> str | None:
    """The task a call gives, if it is one that can start a subagent."""
    if not isinstance(args, dict):
        return None
    return next((t for k in _TASK_KEYS if (t := _str(args.get(k))) and t.strip()), None)


def text_of(value: Any) -> str:
    """Text of a string or of a list of content items (`{type: text, text}`)."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        parts = [b.get("text") for b in value if isinstance(b, dict)]
        return "\n".join(p for p in parts if isinstance(p, str) and p.strip())
    return ""


def _str(value: Any) -> str | None:
    return clean_text(value) if isinstance(value, str) and value else None
