"""An Antigravity transcript as format-free records, one step (line) at a time.

Each line of `transcript.jsonl` (and of `transcript_full.jsonl`, the same steps uncut) is
one step of the conversation: `{step_index, source, type, status, created_at, content?,
thinking?, tool_calls?}`. `source` is `USER_EXPLICIT` (the person), `MODEL` or `SYSTEM`.
Read here:

- `USER_INPUT`: a prompt. What was typed is inside `<USER_REQUEST>…</USER_REQUEST>` (or
  after `<USER_REQUEST>` to the end, where a long one was cut short); the rest
  (`<ADDITIONAL_METADATA>`, `<USER_SETTINGS_CHANGE>`, …) is what Antigravity added, kept
  apart as harness text.
- `PLANNER_RESPONSE`: `content` a reply, `thinking` thinking, `tool_calls: [{name,
  args}]` tool calls. Each argument's value is itself JSON text (`"\\"/repo/a.py\\""`,
  `"true"`), decoded here.
- Any other step of the model's or the system's with `content` (`RUN_COMMAND`,
  `VIEW_FILE`, `LIST_DIRECTORY`, `CODE_ACTION`, `TOOL_RESPONSE`, `ERROR_MESSAGE`, …): the
  output of the oldest call not yet answered (the steps carry no call id: each call's
  result follows it in order). `ERROR_MESSAGE` is a failed call's; one that answers no
  call (the model unreachable, its text in `error` alone) is harness text, as is a step
  the person's own action made (`USER_EXPLICIT`: a file they opened in the editor).
- `CHECKPOINT`: the summary a compaction left; `SYSTEM_MESSAGE`: a message the system
  injected (a message sent to the conversation from outside): harness text. But a
  command run in the background answers its call at once with "Tool is running as a
  background task with task id: <conversation>/task-<n>", and its result comes later
  in a `SYSTEM_MESSAGE` (`Task id "<…>/task-<n>" finished with result: …`): that
  result is the call's output too (failed when the command failed), so a command's
  output is found like any other's.

`CONVERSATION_HISTORY` and `KNOWLEDGE_ARTIFACTS` hold summaries of the person's *other*
conversations, given to the model as context: nothing of them is this session's, so
they are not read; nor is `EPHEMERAL_MESSAGE`.
"""

from __future__ import annotations

import contextlib
import json
import re
from dataclasses import dataclass, field
from typing import Any

from findsession.domain import Message, MessageKind
from findsession.sources.cursor import Record
from findsession.sources.epoch import iso_utc
from findsession.sources.jsonl import cap, clean_text, said
from findsession.sources.tool_args import args_text, result_message

PROMPT_CAP = 100_000
THINKING_CAP = 8_000
TOOL_INPUT_CAP = 2_000
TOOL_OUTPUT_CAP = 4_000
#: Calls waiting for their output, kept across reads: more than this were never answered.
PENDING_CAP = 64
#: Steps that tell the model about other conversations, or nothing lasting.
SKIPPED = frozenset({"CONVERSATION_HISTORY", "KNOWLEDGE_ARTIFACTS", "EPHEMERAL_MESSAGE"})
#: A command that goes on in the background, and the message its result comes in.
_RUNNING = re.compile(r"running as a background task with task id: (\S+)")
_FINISHED = re.compile(r'Task id "([^"]+)" finished with result:')
#: What was typed; a long one cut short (`<truncated N bytes>`) lost its closing tag.
_REQUEST = re.compile(r"<USER_REQUEST>\s*(.*?)\s*(?:</USER_REQUEST>|\Z)", re.DOTALL)
#: The arguments that name the file a call reads or writes, and the folder it runs in.
PATH_ARGS = ("TargetFile", "AbsolutePath", "DirectoryPath", "SearchPath", "File", "Path")
#: Arguments holding the text a call writes: rendered last, the new text before the old.
TEXT_ARGS = ("CodeContent", "ReplacementContent", "ReplacementChunks", "TargetContent")
#: One-line labels Antigravity adds to every call, for its own display.
_LABELS = ("toolAction", "toolSummary")


@dataclass
class Steps:
    """What reading one transcript keeps between its lines (and, through the cursor,
    between reads): the folder the agent works in, and the calls not yet answered."""

    cwd: str | None = None
    pending: list[tuple[str, str]] = field(default_factory=list)
    #: Commands running in the background: task id -> the call's id and tool name.
    tasks: dict[str, tuple[str, str]] = field(default_factory=dict)


def step_records(line: int, obj: dict[str, Any], steps: Steps) -> list[Record]:
    """The records of one step."""
    kind = obj.get("type")
    if not isinstance(kind, str) or kind in SKIPPED:
        return []
    base = {"line": line, "timestamp": iso_utc(obj.get("created_at"))}
    # an error the system met outside any call (the model unreachable) has only `error`
    content = _text(obj.get("content")) or _text(obj.get("error"))
    if kind == "USER_INPUT":
        return _prompt(content, {**base, "cwd": steps.cwd})
    if kind == "PLANNER_RESPONSE":
        return _planner(obj, content, base, steps)
    if kind == "CHECKPOINT":
        return said(MessageKind.COMPACT_SUMMARY, content, {**base, "cwd": steps.cwd}, PROMPT_CAP)
    if kind == "SYSTEM_MESSAGE":
        return _system_message(content, {**base, "cwd": steps.cwd}, steps)
    if obj.get("source") == "USER_EXPLICIT" or not steps.pending:
        return said(MessageKind.HARNESS, content, {**base, "cwd": steps.cwd}, TOOL_OUTPUT_CAP)
    return _output(kind, obj, content, {**base, "cwd": steps.cwd}, steps)


def _prompt(content: str, base: dict[str, Any]) -> list[Record]:
    typed = [m.group(1) for m in _REQUEST.finditer(content)]
    rest = _REQUEST.sub("", content).strip() if typed else ""
    out = said(MessageKind.PROMPT, "\n\n".join(typed) if typed else content, base, PROMPT_CAP)
    return out + said(MessageKind.HARNESS, rest, base, TOOL_OUTPUT_CAP)


def _planner(obj: dict[str, Any], content: str, base: dict[str, Any], steps: Steps) -> list[Record]:
    calls = obj.get("tool_calls")
    calls = [c for c in calls if isinstance(c, dict)] if isinstance(calls, list) else []
    for call in calls:  # the folder a command runs in, known before the records are made
        args = decoded(call.get("args"))
        if steps.cwd is None and isinstance(args.get("Cwd"), str) and args["Cwd"].strip():
            steps.cwd = clean_text(args["Cwd"].strip())
    base = {**base, "cwd": steps.cwd}
    out = said(MessageKind.THINKING, _text(obj.get("thinking")), base, THINKING_CAP)
    out += said(MessageKind.REPLY, content, base, PROMPT_CAP)
    step = obj.get("step_index")
    step = step if isinstance(step, int) and not isinstance(step, bool) else base["line"]
    for n, call in enumerate(calls):
        name = _str(call.get("name")) or "tool"
        call_id = f"{step}.{n}"
        steps.pending.append((call_id, name))
        args = decoded(call.get("args"))
        out.append(
            Message(
                MessageKind.TOOL_CALL,
                cap(call_text(args), TOOL_INPUT_CAP),
                tool_name=name,
                tool_id=call_id,
                files=_files(args),
                **base,
            )
        )
    del steps.pending[:-PENDING_CAP]
    return out


def _output(
    kind: str, obj: dict[str, Any], content: str, base: dict[str, Any], steps: Steps
) -> list[Record]:
    call_id, name = steps.pending.pop(0) if steps.pending else (None, None)
    running = _RUNNING.search(content)
    if running and call_id is not None and name is not None:
        steps.tasks[running.group(1)] = (call_id, name)
        for old in list(steps.tasks)[:-PENDING_CAP]:
            del steps.tasks[old]
    status = obj.get("status")
    failed = kind == "ERROR_MESSAGE" or (isinstance(status, str) and "ERROR" in status.upper())
    text = content.strip() or (f"{kind.lower()} failed" if failed else "")
    if not text:
        return []
    return [result_message(name, call_id, text, failed, base, TOOL_OUTPUT_CAP)]


def _system_message(content: str, base: dict[str, Any], steps: Steps) -> list[Record]:
    """What the system told the conversation: each background command's result is its
    call's output; anything else in it (or a result whose call is not known) stays
    harness text."""
    out: list[Record] = []
    told = False
    for message in content.split("[Message]")[1:]:
        done = _FINISHED.search(message)
        task = steps.tasks.pop(done.group(1), None) if done else None
        if done is None or task is None:
            told = True
            continue
        text = message[done.end() :].replace("</SYSTEM_MESSAGE>", "").strip()
        failed = "failed with exit code" in text[:300]
        out.append(result_message(task[1], task[0], text, failed, base, TOOL_OUTPUT_CAP))
    if told or not out:
        out = said(MessageKind.HARNESS, content, base, TOOL_OUTPUT_CAP) + out
    return out


def decoded(args: Any) -> dict[str, Any]:
    """A call's arguments with each value's JSON text decoded: a string, a list or an
    object; a number, a flag or a value that is not JSON stays as it is."""
    if not isinstance(args, dict):
        return {}
    out: dict[str, Any] = {}
    for key, value in args.items():
        if isinstance(value, str):
            with contextlib.suppress(ValueError, RecursionError):
                inner = json.loads(value)
                # a number or a flag stays as written (`true`, `5000`)
                value = inner if isinstance(inner, str | dict | list) else value
        out[str(key)] = value
    return out


def call_text(args: dict[str, Any]) -> str:
    """The arguments as `key: value` lines: the file first, the written text last (so a
    line of it is never taken for another argument), the display labels left out."""
    first = {k: args[k] for k in PATH_ARGS if k in args}
    last = {k: args[k] for k in TEXT_ARGS if k in args}
    skip = {*first, *last, *_LABELS}
    middle = {k: v for k, v in args.items() if k not in skip}
    return args_text({**first, **middle, **last}, TOOL_INPUT_CAP)


def _files(args: dict[str, Any]) -> tuple[str, ...]:
    return tuple(
        clean_text(v)
        for k in PATH_ARGS
        if isinstance(v := args.get(k), str) and 0 < len(v) < 1024 and "\n" not in v
    )



def _text(value: Any) -> str:
    """A step's text: a string, or (as some builds write it) an object's `text`."""
    if isinstance(value, dict):
        value = value.get("text")
    return clean_text(value) if isinstance(value, str) else ""


def _str(value: Any) -> str:
    return clean_text(value).strip() if isinstance(value, str) else ""
