"""A Junie session's event log as format-free records.

JetBrains publishes no format for Junie's `events.jsonl`; what is read here is what
other tools' readers found in captured logs, and no more. Each line is one event with
a `kind` and (mostly) `timestampMs`:

- `UserPromptEvent {prompt, presentablePrompt}`: a prompt, `presentablePrompt` being
  what was typed (`prompt` what was sent, context added); `UserResponseEvent {prompt}`:
  the person's answer to a question the agent asked;
- `SessionA2uxEvent {event: {state, agentEvent: {kind, stepId, ...}}}`: the agent's work
  as blocks. A block is sent again, whole, each time it changes and once more when its
  task completes, always under the same `stepId`: each block is read once, as its last
  copy says, at the place of its first. `AgentThoughtBlockUpdatedEvent {text}` is
  thinking, `MarkdownBlockUpdatedEvent {text}` and `ResultBlockUpdatedEvent {result}`
  replies, `TerminalBlockUpdatedEvent {command, output, status}` a shell call and its
  output (`status` `FAILED` an error), and every other `…BlockUpdatedEvent` a tool call
  of that name with its fields; `CurrentDirectoryUpdatedEvent {currentDirectory}` is
  the folder the agent works in. Status, cost and other bookkeeping events are skipped.
"""

from __future__ import annotations

import json
from typing import Any

from findsession.domain import Message, MessageKind, Problem
from findsession.sources.cursor import Record
from findsession.sources.epoch import epoch_iso
from findsession.sources.jsonl import cap, clean_text, said
from findsession.sources.tool_args import args_text, result_message

PROMPT_CAP = 100_000
THINKING_CAP = 8_000
TOOL_INPUT_CAP = 2_000
TOOL_OUTPUT_CAP = 4_000
#: Top-level event kinds with nothing to search.
QUIET = frozenset({
    "TaskStartedEvent", "TaskState", "UserMessagesCommittedToHistory",
    "UserMessagesDroppedFromHistory", "SendToAgentEvent", "SessionCostTrajectorySnapshotEvent",
})  # fmt: skip
_BLOCK = "BlockUpdatedEvent"
#: Fields of a block that say where and how it is, not what it holds.
_HOUSEKEEPING = frozenset({"kind", "stepId", "status", "agent"})


def log_records(lines: list[tuple[int, Any]], problems: list[Problem]) -> list[Record]:
    """The records of a whole log: `(line number, parsed object)` in file order."""
    cwd: str | None = None
    for _, obj in lines:
        agent = _agent_event(obj)
        if agent.get("kind") == "CurrentDirectoryUpdatedEvent":
            cwd = _str(agent.get("currentDirectory")) or None
            break
    blocks: dict[str, tuple[int, dict[str, Any], str | None]] = {}
    order: list[tuple[int, str | None, Any]] = []  # (line, block key, or the prompt)
    unknown: dict[str, list[int]] = {}
    for number, obj in lines:
        if not isinstance(obj, dict):
            continue
        kind = obj.get("kind")
        when = epoch_iso(obj.get("timestampMs"))
        if kind == "SessionA2uxEvent":
            agent = _agent_event(obj)
            name = agent.get("kind")
            step = agent.get("stepId")
            if not isinstance(name, str) or not name.endswith(_BLOCK):
                continue
            key = f"{name}\x1f{step}" if isinstance(step, str) and step else f"line {number}"
            first = blocks.get(key)
            blocks[key] = (first[0] if first else number, agent, when)
            if first is None:
                order.append((number, key, None))
        elif kind in ("UserPromptEvent", "UserResponseEvent"):
            order.append((number, None, obj))
        elif isinstance(kind, str) and kind not in QUIET:
            unknown.setdefault(clean_text(kind), []).append(number)
        elif not isinstance(kind, str):
            unknown.setdefault(type(kind).__name__, []).append(number)
    for kind, numbers in unknown.items():
        count = f"{len(numbers)} line" + ("" if len(numbers) == 1 else "s")
        problems.append(Problem(numbers[0], "unknown event", f"{kind} ({count})"))
    records: list[Record] = []
    for number, key, own in order:
        if key is None:
            base = {"line": number, "cwd": cwd, "timestamp": epoch_iso(own.get("timestampMs"))}
            typed = _str(own.get("presentablePrompt")) or _str(own.get("prompt"))
            records += said(MessageKind.PROMPT, typed, base, PROMPT_CAP)
        else:
            _, agent, when = blocks[key]
            records += _block(agent, {"line": number, "cwd": cwd, "timestamp": when}, key)
    return records


def _block(agent: dict[str, Any], base: dict[str, Any], key: str) -> list[Record]:
    name = str(agent.get("kind"))
    if name == "AgentThoughtBlockUpdatedEvent":
        return said(MessageKind.THINKING, _str(agent.get("text")), base, THINKING_CAP)
    if name == "MarkdownBlockUpdatedEvent":
        return said(MessageKind.REPLY, _str(agent.get("text")), base, PROMPT_CAP)
    if name == "ResultBlockUpdatedEvent":
        return said(MessageKind.REPLY, _str(agent.get("result")), base, PROMPT_CAP)
    tool = name.removesuffix(_BLOCK).lower() or "tool"
    failed = agent.get("status") == "FAILED"
    step = _str(agent.get("stepId")) or None
    if name == "TerminalBlockUpdatedEvent":
        args: Any = {"command": agent.get("command")}
        output = _str(agent.get("output"))
    else:
        args = {k: v for k, v in agent.items() if k not in _HOUSEKEEPING}
        output = ""
    out: list[Record] = [
        Message(
            MessageKind.TOOL_CALL,
            cap(args_text(args, TOOL_INPUT_CAP), TOOL_INPUT_CAP),
            tool_name=tool,
            tool_id=step or key,
            **base,
        )
    ]
    if output.strip() or failed:
        text = output.strip() or "failed"
        out.append(result_message(tool, step or key, text, failed, base, TOOL_OUTPUT_CAP))
    return out


def _agent_event(obj: Any) -> dict[str, Any]:
    event = obj.get("event") if isinstance(obj, dict) else None
    agent = event.get("agentEvent") if isinstance(event, dict) else None
    return agent if isinstance(agent, dict) else {}



def _str(value: Any) -> str:
    return clean_text(value) if isinstance(value, str) else ""


def index_entries(data: bytes) -> dict[str, dict[str, Any]]:
    """`sessions/index.jsonl`: each session's entry (`taskName`, `projectDir`, times) by
    its id, the last line of an id winning."""
    found: dict[str, dict[str, Any]] = {}
    for raw in data.decode("utf-8", "replace").splitlines():
        try:
            entry = json.loads(raw)
        except (ValueError, RecursionError):
            continue
        if isinstance(entry, dict) and isinstance(entry.get("sessionId"), str):
            found[entry["sessionId"]] = entry
    return found
