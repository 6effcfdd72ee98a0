"""Kimi Code CLI's agent log (`wire.jsonl`) as format-free records, one line at a time.

The log opens with `{type: metadata, protocol_version, created_at}` (protocol 1.0 to
1.5), then one record a line, `{type, ...payload, time (ms)}`, as Kimi Code's wire
service appends it. What an agent said is read as Kimi Code itself rebuilds its
transcript (`contextTranscript.ts` in its agent core):

- `context.append_message {message: {role, content, toolCalls, toolCallId, origin}}`: a
  message put into the agent's context. A user message is a prompt when its `origin` is
  the person's (`{kind: user}`, or none): its text parts after the skills a prompt
  bundled, a steer when it was sent into a running turn (`inTurn`, Ctrl-S); a slash
  command the person gave (`skill_activation` or `plugin_command` triggered by
  `user-slash`) is the command as Kimi Code names such a prompt (`/<skill> <args>`,
  `/<plugin>:<command> <args>`); a subagent's task, sent by its parent (`system_trigger`
  `subagent`), is the subagent's prompt, less the `<git-context>` block Kimi put before
  it. Every other origin (reminders Kimi injects, a `!` shell command and its output, a
  background task's notice, a goal's continuation, a hook's result, a retry, ...) is
  Kimi's text. An assistant or tool message (the history a fork was given, or an older
  writer) is read as its parts, calls and result;
- `context.append_loop_event {event}`: the agent loop's own record: `content.part
  {part}` a reply (`text`) or thinking (`think`), `tool.call {toolCallId, name, args}`,
  `tool.result {toolCallId, result: {output, isError, note}}` (the `note` is Kimi's);
- `context.apply_compaction {summary}`: what a compaction kept of the turns before.

`turn.prompt`, `turn.steer` and `prompt.steered` repeat what the context message says,
and the records of kind `event` (`agent.message.appended`, ...) are a second journal of
the same messages: neither is read, so nothing is read twice. A record of a type not
known here is reported once per type. Everything else is state
(the profile and its system prompt, models, permissions, goals, plans, usage, the
request traces): nothing a person said.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from findsession.domain import MessageKind
from findsession.sources.cursor import Record
from findsession.sources.epoch import epoch_iso
from findsession.sources.jsonl import clean_text
from findsession.sources.kimi_records import (
    content_part,
    input_text,
    said,
    tool_call,
    tool_result,
)

#: Record types with nothing to search, or what a read record says again.
QUIET = frozenset({
    "metadata", "config.update", "profile.bind", "runtime.set_binding", "permission.set_mode",
    "permission.record_approval_result", "turn.prompt", "turn.steer", "turn.cancel",
    "turn.ended", "turn.step.interrupted", "turn.step.retrying", "prompt.accepted",
    "prompt.completed", "prompt.aborted", "prompt.steered", "context.clear", "context.undo",
    "context.update_token_count", "full_compaction.begin", "full_compaction.cancel",
    "full_compaction.complete", "micro_compaction.apply", "llm.request",
    "llm.tools_snapshot", "mcp.tools_discovered", "usage.record", "token_counting.measured",
    "token_counting.rebased", "token_counting.truncated", "token_counting.turn_recorded",
    "tools.register_user_tool", "tools.unregister_user_tool", "tools.set_active_tools",
    "tools.reset_active_tools", "tools.update_store", "plugin.session_start",
    "interaction.request", "interaction.resolved", "interruptionReminder.recorded",
    "goal.create", "goal.update", "goal.clear", "goal.account_usage", "goal.continuation",
    "plan_mode.enter", "plan_mode.exit", "plan_mode.cancel", "plan.revision",
    "swarm_mode.enter", "swarm_mode.exit", "tower_mode.enter", "tower_mode.exit",
    "task.started", "task.terminated", "task.waitDelivered", "cron.add", "cron.cursor",
    "cron.delete", "forked", "staleGuard.recorded", "staleGuard.cleared",
    "file_history.tracked", "file_history.checkpoint", "subagent.spawned",
    "subagent.started", "subagent.completed", "subagent.failed", "subagent.cancelled",
})  # fmt: skip
#: The message journal's record types (`kind: event`, `human.` before): the same messages
#: again, as the person's screen shows them.
_JOURNAL = ("agent.", "human.")
#: The block of the repository's state Kimi puts before an explore subagent's task.
_GIT_CONTEXT = re.compile(r"\A<git-context(?:[^>]*/>|>.*?</git-context>)\n\n", re.DOTALL)
#: How the text Kimi renders for a skill a prompt bundled opens (the prompt's first parts).
_BUNDLED_SKILL = 'User activated the skill "'


@dataclass
class Context:
    """What reading one agent's log keeps between its lines."""

    cwd: str | None
    #: The first line the agent wrote itself: a fork's log begins with its source's
    #: history, copied (see `kimi_code.own_from`).
    own_from: int = 0
    calls: dict[str, str] = field(default_factory=dict)
    unknown: dict[str, list[int]] = field(default_factory=dict)


def line_records(line: int, obj: dict[str, Any], ctx: Context) -> list[Record]:
    """The records of one line of the log."""
    kind = obj.get("type")
    if line < ctx.own_from or not isinstance(kind, str):
        return []
    base = {"line": line, "cwd": ctx.cwd, "timestamp": epoch_iso(obj.get("time"))}
    if kind == "context.append_message":
        message = obj.get("message")
        return _message(message, base, ctx) if isinstance(message, dict) else []
    if kind == "context.append_loop_event":
        event = obj.get("event")
        return _loop_event(event, base, ctx) if isinstance(event, dict) else []
    if kind == "context.apply_compaction":
        summary = obj.get("summary")
        text = input_text(summary.get("content")) if isinstance(summary, dict) else _str(summary)
        return said(MessageKind.COMPACT_SUMMARY, text, base)
    if kind not in QUIET and not kind.startswith(_JOURNAL):
        ctx.unknown.setdefault(clean_text(kind), []).append(line)
    return []


def _message(message: dict[str, Any], base: dict[str, Any], ctx: Context) -> list[Record]:
    role = message.get("role")
    content = message.get("content")
    if role == "user":
        kind, text = _user(message.get("origin"), content)
        return said(kind, text, base)
    if role == "assistant":
        out = [r for part in _parts(content) for r in content_part(part, base)]
        for call in message.get("toolCalls") or []:
            if isinstance(call, dict):
                function = call.get("function")  # protocol 1.0 kept OpenAI's shape
                named = function if isinstance(function, dict) else call
                out += tool_call(
                    _str(call.get("id")), _str(named.get("name")), named.get("arguments"), base,
                    ctx.calls,
                )  # fmt: skip
        return out
    if role == "tool":
        call_id = _str(message.get("toolCallId"))
        return tool_result(
            call_id, input_text(content), message.get("isError") is True, base, ctx.calls
        )
    return said(MessageKind.HARNESS, input_text(content), base)  # a system message


def _user(origin: Any, content: Any) -> tuple[MessageKind, str]:
    """Who wrote a user message, and its text, as Kimi Code names a prompt
    (`promptMetadataFromTurnRecord` in its agent core)."""
    if isinstance(origin, str):
        origin = {"kind": origin}  # the manifest's sketch of an origin, its kind alone
    origin = origin if isinstance(origin, dict) else {}
    kind = origin.get("kind")
    slash = origin.get("trigger") == "user-slash"
    if kind == "skill_activation" and slash and _str(origin.get("skillName")):
        return MessageKind.PROMPT, _command(f"/{origin['skillName']}", origin.get("skillArgs"))
    named = _str(origin.get("pluginId")) and _str(origin.get("commandName"))
    if kind == "plugin_command" and slash and named:
        command = f"/{origin['pluginId']}:{origin['commandName']}"
        return MessageKind.PROMPT, _command(command, origin.get("commandArgs"))
    if kind in (None, "user"):
        parts = _parts(content)
        bundled = origin.get("skillActivations")
        if isinstance(bundled, list):
            parts = [p for p in parts if not _str(p.get("text")).startswith(_BUNDLED_SKILL)]
        typed = MessageKind.STEER if origin.get("inTurn") is True else MessageKind.PROMPT
        return typed, input_text(parts)
    if kind == "system_trigger" and origin.get("name") == "subagent":
        return MessageKind.PROMPT, _GIT_CONTEXT.sub("", input_text(content), count=1)
    return MessageKind.HARNESS, input_text(content)


def _loop_event(event: dict[str, Any], base: dict[str, Any], ctx: Context) -> list[Record]:
    kind = event.get("type")
    if kind == "content.part":
        return content_part(event.get("part"), base)
    if kind == "tool.call":
        return tool_call(
            _str(event.get("toolCallId")), _str(event.get("name")), event.get("args"), base,
            ctx.calls,
        )  # fmt: skip
    if kind == "tool.result":
        result = event.get("result")
        if not isinstance(result, dict):
            return []
        text = input_text(result.get("output"))
        return tool_result(
            _str(event.get("toolCallId")), text, result.get("isError") is True, base, ctx.calls
        )
    return []  # step.begin, step.end


def _command(command: str, args: Any) -> str:
    args = _str(args).strip()
    return f"{command} {args}" if args else command


def _parts(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [p for p in content if isinstance(p, dict)] if isinstance(content, list) else []


def _str(value: Any) -> str:
    return clean_text(value) if isinstance(value, str) else ""
