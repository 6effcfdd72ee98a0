"""An RA.Aid run's rows as format-free records.

RA.Aid keeps no conversation: the prompts it sends its model (its research, planning
and implementation prompts, wrapped around the person's words with the project's file
list, the environment and the notes of earlier runs) and the model's replies are never
written down. What a run leaves is what the person typed and the steps the agent took:

- a `human_input` row is the person's: the task given with `-m` or `--msg-file`, the
  first request of `--chat`, an answer to the agent's `ask_human`. `--chat` records its
  first request twice (`ask_human` with no run, then again with one): read once. A
  `user_query` step repeats the task for the trajectory; it is read only when its input
  row has gone (RA.Aid keeps the last hundred inputs).
- a step with a `tool_name` is a tool call, its `tool_parameters` the arguments, each
  with its own id (`trajectory-<row id>`). A failed one (`is_error`) is answered by its
  error; a recorded `tool_result` (`ripgrep_search`'s `{output, return_code, success}`)
  is its result; `ask_expert`'s second row, the expert's answer (`response_content`),
  answers the question its first row asked. RA.Aid keeps no other result: not a
  command's output or exit code, nor the text `put_complete_file_contents` wrote. When
  the CIAYN agent (for models without native tool calls) catches a tool's failure it
  records the call again as `{code}`: when the tool recorded the same failure itself
  just before, that row is not read; else (a call the agent could not parse or run) it
  is the call, and its failure. An `error` step naming a tool without arguments is the
  fallback handler's report of a failure just read (or, alone, harness text). A
  `task_display` step is the planner's `request_task_implementation` (its spec).
- RA.Aid's own bookkeeping (`stage_transition`, `project_status`, `model_usage`, the
  garbage-collecting agents' `gc_operation`) is not read; an error it reports with no
  tool (the agent stopped, a limit reached) is harness.

Each record is a line of its own, `foreign_db.line_of(run id, position)`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from findsession.domain import Message, MessageKind
from findsession.sources.cursor import Record
from findsession.sources.epoch import iso_utc
from findsession.sources.foreign_db import Lines
from findsession.sources.ra_aid_db import Input, Step
from findsession.sources.tool_args import FILE_KEYS, args_text, files, parsed

PROMPT_CAP = 100_000
TOOL_INPUT_CAP = 2_000
TOOL_OUTPUT_CAP = 4_000
FILE_ARGS = ("filepath", *FILE_KEYS)
#: Steps that are RA.Aid's own bookkeeping, not the agent's.
_BOOKKEEPING = frozenset(("stage_transition", "project_status", "model_usage", "gc_operation"))
#: How far apart (in seconds) `--chat` writes its first request's two rows.
_TWICE = 2.0


def run_records(
    rank: int, key: str, version: str | None, inputs: list[Input], steps: list[Step],
    cwd: str | None,
) -> list[Record]:  # fmt: skip
    """Every record of one run, in the order it happened."""
    lines = Lines(rank, key)
    kept = _once(inputs)
    held = {i.id for i in inputs}
    events: list[tuple[str, int, int, Any]] = [(i.when, 0, i.id, i) for i in kept]
    events += [(s.when, 1, s.id, s) for s in steps]
    records: list[Record] = []
    last: Step | None = None
    for _, _, _, event in sorted(events, key=lambda e: e[:3]):
        base = {"timestamp": iso_utc(event.when, naive_local=True), "cwd": cwd, "version": version}
        if isinstance(event, Input):
            records.append(lines.message(MessageKind.PROMPT, event.content, PROMPT_CAP, **base))
            continue
        records += _step(event, last, held, lines, base)
        if event.tool:
            last = event
    return [r for r in records if r is not None]


def _once(inputs: list[Input]) -> list[Input]:
    """The inputs, `--chat`'s first request read once (its row without a run, written
    just before the one with it)."""
    kept = []
    for at, row in enumerate(inputs):
        after = inputs[at + 1] if at + 1 < len(inputs) else None
        if (
            after is not None
            and row.session is None
            and after.session is not None
            and after.content == row.content
            and _apart(row.when, after.when) <= _TWICE
        ):
            continue
        kept.append(row)
    return kept


def _step(
    step: Step, last: Step | None, held: set[int], lines: Lines, base: dict[str, Any]
) -> list[Message | None]:
    kind = step.record_type or ""
    data = _object(step.data)
    if kind == "user_query":
        if step.human_input in held:
            return []  # its input row is read
        query = data.get("query")
        return [lines.message(MessageKind.PROMPT, _text(query), PROMPT_CAP, **base)]
    if kind == "task_display":
        spec = _text(data.get("spec") or data.get("task"))
        return [_call(lines, "request_task_implementation", {"task_spec": spec}, step, base)]
    if kind in _BOOKKEEPING:
        return []
    if not step.tool:
        text = step.error or _text(data.get("error_message")) or _text(data.get("message"))
        if not text:
            return []
        return [
            lines.message(MessageKind.HARNESS, text, PROMPT_CAP, is_error=step.is_error, **base)
        ]
    if _expert_answer(step, data, last):
        assert last is not None
        answer = _text(data.get("response_content"))
        return [_output(lines, last, answer, False, base)] if answer.strip() else []
    args = parsed(step.params) if step.params else {}
    if _restated(step, args, last):
        return []  # the call and its failure are read from the tool's own row
    if kind == "error" and step.params is None:
        if last is not None and last.tool == step.tool and last.is_error:
            return []  # the fallback's report of the failure just read
        text = step.error or _text(data.get("error_message"))
        return [lines.message(MessageKind.HARNESS, text, PROMPT_CAP, is_error=True, **base)]
    found = [_call(lines, step.tool, args, step, base)]
    result = parsed(step.result) if step.result else None
    if step.is_error:
        text = step.error or _text(data.get("error_message")) or "failed"
        found.append(_output(lines, step, text, True, base))
    elif result is not None:
        output, failed = _result(result)
        found.append(_output(lines, step, output, failed, base))
    return found


def _expert_answer(step: Step, data: dict[str, Any], last: Step | None) -> bool:
    """True for `ask_expert`'s second row, the expert's answer to the question before."""
    return (
        step.tool == "ask_expert"
        and data.get("display_title") == "Expert Response"
        and last is not None
        and last.tool == "ask_expert"
    )


def _result(result: Any) -> tuple[str, bool]:
    """A recorded result (`ripgrep_search`'s `{output, return_code, success}`) as text,
    and whether it failed."""
    if not isinstance(result, dict):
        return (result if isinstance(result, str) else args_text(result, TOOL_OUTPUT_CAP)), False
    output = result.get("output")
    text = output if isinstance(output, str) else args_text(result, TOOL_OUTPUT_CAP)
    return text, result.get("success") is False


def _restated(step: Step, args: Any, last: Step | None) -> bool:
    """True for the CIAYN agent's record of a failure the tool recorded itself just
    before (the same tool, the same error); not for a call CIAYN could not run, which
    is recorded only so, however many times in a row."""
    return (
        step.is_error
        and step.error_type == "ToolExecutionError"
        and _code_only(args)
        and last is not None
        and last.tool == step.tool
        and last.is_error
        and last.error == step.error
        and not _code_only(parsed(last.params) if last.params else None)
    )


def _code_only(args: Any) -> bool:
    return isinstance(args, dict) and set(args) == {"code"}


def _call(lines: Lines, name: str, args: Any, step: Step, base: dict[str, Any]) -> Message | None:
    return lines.message(
        MessageKind.TOOL_CALL, args_text(args, TOOL_INPUT_CAP), TOOL_INPUT_CAP,
        tool_name=name, tool_id=f"trajectory-{step.id}", files=files(args, FILE_ARGS), **base,
    )  # fmt: skip


def _output(
    lines: Lines, call: Step, text: str, failed: bool, base: dict[str, Any]
) -> Message | None:
    return lines.message(
        MessageKind.TOOL_OUTPUT, text if text.strip() or not failed else "failed", TOOL_OUTPUT_CAP,
        tool_name=call.tool, tool_id=f"trajectory-{call.id}", is_error=failed, **base,
    )  # fmt: skip


def _object(text: str | None) -> dict[str, Any]:
    value = parsed(text) if text else None
    return value if isinstance(value, dict) else {}


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _apart(a: str, b: str) -> float:
    """Seconds between two of RA.Aid's times (`datetime.now()` as peewee writes it)."""
    try:
        return abs((datetime.fromisoformat(b) - datetime.fromisoformat(a)).total_seconds())
    except ValueError:
        return float("inf")
