"""An Open Interpreter conversation as format-free records, one message at a time.

Open Interpreter (0.2 to 0.4) keeps a conversation as the list `interpreter.messages`,
saved whole with `json.dump` after every answer: its own "LMC" messages, each `{role,
type, format?, content}`. Its system message (and the computer API's text appended to
it, and the `--loop` message) is put before the list only when the model is asked, never
saved:

- `user` `message`: what the person typed (the `interpreter WORDS` shortcut saves the
  words after an `I `), except "I have declined to run this code.", which the terminal
  writes when the person answers no to running a block: harness text. A `user` `image`
  or `file` (a path dragged in, for a vision model) is not text and is not read.
- `assistant` `message`: a reply. `assistant` `code` (`format` the language: `python`,
  `shell`, `bash`, `javascript`, ...): a call, its text the code as run.
- `computer` `console` `output`: the output of the block before it, its result. The
  terminal may add more output to the same block. No exit status is kept: a call failed
  when its output holds a traceback or ends with an error's line (`NameError: ...`, a
  shell's "command not found" or "No such file or directory"), or is Open Interpreter's
  own refusal (a language it does not run, an empty block). `computer` `image` (a
  screenshot, base64) is not text and is not read; a `confirmation` is never saved.

No message has a time: the first takes the time the file's name was given (the first
answer), the others the file's last write.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

from findsession.domain import Message, MessageKind, Problem
from findsession.sources.cursor import Record
from findsession.sources.jsonl import cap, clean_text

PROMPT_CAP = 100_000
TOOL_INPUT_CAP = 2_000
TOOL_OUTPUT_CAP = 4_000
#: What the terminal saves as the person's message when they decline a block.
DECLINED = "I have declined to run this code."
#: Open Interpreter's own answers to a block it did not run.
_REFUSED = re.compile(r"\A(?:`[^`\n]*` disabled or not supported\.|Code block was empty\. )")
_TRACEBACK = "Traceback (most recent call last)"
#: The last line of a failed block's output: an exception's (Python, JavaScript, Ruby),
#: or a shell's.
_ERROR_LINE = re.compile(
    r"\A(?:[A-Z]\w*(?:Error|Exception)(?::.*)?"
    r"|.*: (?:command not found|No such file or directory|Permission denied))\Z"
)


@dataclass(frozen=True, slots=True)
class Times:
    """When the conversation was named (its first answer) and last saved."""

    started: str | None = None
    saved: str | None = None


def document_records(doc: Any, problems: list[Problem], times: Times) -> list[Record]:
    """The conversation's messages, numbered by place (from 1)."""
    if not isinstance(doc, list):
        problems.append(Problem(1, "not a JSON list", type(doc).__name__))
        return []
    records: list[Record] = []
    waiting: Message | None = None  # the last call, which the next output answers
    for number, msg in enumerate(doc, 1):
        if not isinstance(msg, dict):
            problems.append(Problem(number, "not a message", type(msg).__name__))
            continue
        when = times.started if number == 1 else times.saved
        record = _record(number, msg, when, waiting, problems)
        if record is None:
            continue
        if record.kind is MessageKind.TOOL_CALL:
            waiting = record
        records.append(record)
    return records


def _record(
    number: int, msg: dict[str, Any], when: str | None, waiting: Message | None,
    problems: list[Problem],
) -> Message | None:  # fmt: skip
    role, kind, content = msg.get("role"), msg.get("type"), msg.get("content")
    if role not in ("user", "assistant", "computer"):
        if role != "system":
            problems.append(Problem(number, "unknown message role", clean_text(str(role))[:40]))
        return None
    if kind not in ("message", "code", "console") or not isinstance(content, str):
        return None  # an image, a file, a confirmation: no text
    text = clean_text(content).strip()
    if role == "user" and kind == "message" and text:
        harness = text == DECLINED
        return _message(MessageKind.HARNESS if harness else MessageKind.PROMPT, text, number, when)
    if role == "assistant" and kind == "message" and text:
        return _message(MessageKind.REPLY, text, number, when)
    if role == "assistant" and kind == "code" and text:
        language = msg.get("format")
        tool = clean_text(language).strip().lower() if isinstance(language, str) else ""
        call = _message(MessageKind.TOOL_CALL, text, number, when, TOOL_INPUT_CAP)
        return replace(call, tool_name=tool or "code", tool_id=f"block-{number}")
    if role == "computer" and kind == "console" and msg.get("format") == "output" and text:
        done = _message(MessageKind.TOOL_OUTPUT, text, number, when, TOOL_OUTPUT_CAP)
        if waiting is None:
            return replace(done, is_error=failed(text))
        return replace(done, tool_name=waiting.tool_name, tool_id=waiting.tool_id,
                     is_error=failed(text))  # fmt: skip
    return None


def failed(output: str) -> bool:
    """Whether a block's output is a failed run's (Open Interpreter keeps no exit
    status: what the output says)."""
    if _TRACEBACK in output or _REFUSED.match(output):
        return True
    last = next((line.strip() for line in reversed(output.splitlines()) if line.strip()), "")
    return bool(_ERROR_LINE.match(last))


def _message(
    kind: MessageKind, text: str, line: int, when: str | None, limit: int = PROMPT_CAP
) -> Message:
    return Message(kind, cap(text, limit), line, timestamp=when)
