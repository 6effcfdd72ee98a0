"""A session's handoff brief, extracted from what the index holds of it (redacted text):
no model, no network. `summary.py` may add a model's paragraph on top.

Turns are numbered as `read` numbers them. A subagent's file writes and commands count as
the session's own (its work was done for it); its turns are its own, so they show as
turn 0. The files written are the rows the index of files written holds
(`indexing/writes.py`): a failed edit is not among them.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from dataclasses import dataclass, field

from findsession.domain import Brief, CommandRun, FileChange, Message, MessageKind, Resume, Session
from findsession.handoff.outcomes import is_test, outcome
from findsession.handoff.sentences import conclusion, open_items, questions
from findsession.indexing.writes import write_rows
from findsession.sources.shell_commands import shell_command
from findsession.storage.base import SessionReader, WriteRow
from findsession.turns import OPENERS, numbered

FIRST_PROMPT_CHARS = 2000
PROMPT_CHARS = 300
MAX_ASKED = 25
MAX_COMMANDS = 15
MAX_DECIDED = 20
LAST_REPLY_CHARS = 800
#: Prompts that only say "go on": not what was asked.
_NUDGES = frozenset(("y", "yes", "ok", "okay", "go", "go on", "go ahead", "continue",
                     "proceed", "do it", "thanks", "thank you", "sure", "yep", "please do",
                     "lgtm"))  # fmt: skip


@dataclass
class _Turn:
    number: int
    prompt: str
    replies: list[str] = field(default_factory=list)
    ended_in_tool: bool = False


def build_brief(store: SessionReader, session: Session, resume: Resume) -> Brief:
    """The brief of `session` (and its subagents' writes and commands)."""
    messages = store.session_messages(session.id)
    turns = _turns(messages)
    asked = _asked(turns)
    decided = [
        (t.number, s) for t in turns if t.replies for s in conclusion(t.replies, limit=2)
    ][-MAX_DECIDED:]
    writes = [(r.turn, r) for r in write_rows(messages, session.source, session.cwd)]
    runs = list(_runs(messages, own=True))
    for child in store.subagents_of(session.id):
        child_messages = store.session_messages(child.id)
        child_cwd = child.cwd or session.cwd
        writes += [(0, r) for r in write_rows(child_messages, child.source, child_cwd)]
        runs += _runs(child_messages, own=False)
    commands = _commands(runs)
    last = turns[-1] if turns else None
    left = _left_open(turns, commands)
    if last is not None and last.ended_in_tool:
        left.append("The session ended while the agent was still working (after a tool call,"
                    " before any reply).")  # fmt: skip
    return Brief(
        session=session,
        asked=asked,
        decided=decided,
        files=_files(writes, session.cwd),
        commands=commands,
        left_open=left,
        last_prompt=(last.number, _cut(last.prompt, FIRST_PROMPT_CHARS)) if last else None,
        last_reply=_tail(last.replies[-1]) if last and last.replies else "",
        resume=resume,
    )


def _turns(messages: list[Message]) -> list[_Turn]:
    turns: list[_Turn] = []
    for number, m in numbered(messages):
        if not turns or turns[-1].number != number:
            opener = m.kind in OPENERS or m.kind is MessageKind.STEER
            turns.append(_Turn(number, m.text if opener else ""))
            if opener:
                continue
        if m.kind is MessageKind.STEER:
            turns[-1].prompt = f"{turns[-1].prompt}\n\n{m.text}".strip()
        elif m.kind is MessageKind.REPLY:
            turns[-1].replies.append(m.text)
            turns[-1].ended_in_tool = False
        elif m.kind in (MessageKind.TOOL_CALL, MessageKind.TOOL_OUTPUT):
            turns[-1].ended_in_tool = True
    return turns


def _asked(turns: list[_Turn]) -> list[tuple[int, str]]:
    asked: list[tuple[int, str]] = []
    for t in turns:
        words = " ".join(t.prompt.split())
        if not words:
            continue  # a turn nothing was typed for (a slash command, a task's notice)
        if t.number > 1 and words.lower().strip(" .!") in _NUDGES:
            continue
        asked.append((t.number, _cut(t.prompt.strip(), FIRST_PROMPT_CHARS) if not asked
                      else _cut(words, PROMPT_CHARS)))  # fmt: skip
    if len(asked) > MAX_ASKED:  # the first (what it set out to do) and the latest
        asked = [asked[0], *asked[-(MAX_ASKED - 1) :]]
    return asked


def _outputs(messages: list[Message]) -> dict[str, Message]:
    return {m.tool_id: m for m in messages if m.kind is MessageKind.TOOL_OUTPUT and m.tool_id}


def _paired(messages: list[Message]) -> Iterable[tuple[int, Message, Message | None]]:
    """Each tool call with its turn and its output: by the call's id, else the next output
    before another call."""
    by_id = _outputs(messages)
    numbers = {id(m): n for n, m in numbered(messages)}
    turn = 0
    for i, m in enumerate(messages):
        turn = numbers.get(id(m), turn)
        if m.kind is not MessageKind.TOOL_CALL:
            continue
        out = by_id.get(m.tool_id) if m.tool_id else None
        if out is None and not m.tool_id:
            for later in messages[i + 1 : i + 20]:
                if later.kind is MessageKind.TOOL_CALL:
                    break
                if later.kind is MessageKind.TOOL_OUTPUT:
                    out = later
                    break
        yield turn, m, out


def _files(writes: list[tuple[int, WriteRow]], cwd: str | None) -> list[FileChange]:
    merged: dict[str, tuple[list[str], int, list[int]]] = {}
    for turn, w in writes:
        path = _shown_path(w.abs_path or w.path, cwd)
        ops, count, turns = merged.setdefault(path, ([], 0, []))
        if w.op not in ops:
            ops.append(w.op)
        if turn not in turns:
            turns.append(turn)
        merged[path] = (ops, count + 1, turns)
    return [FileChange(p, tuple(o), n, tuple(t)) for p, (o, n, t) in merged.items()]


def _shown_path(path: str, cwd: str | None) -> str:
    """A path relative to the session's directory when it lies below it."""
    if cwd and posixpath.isabs(path):
        rel = posixpath.relpath(posixpath.normpath(path), posixpath.normpath(cwd))
        if not rel.startswith(".."):
            return rel
    return path


def _runs(messages: list[Message], own: bool) -> Iterable[tuple[int, str, str, str]]:
    for turn, call, out in _paired(messages):
        command = shell_command(call)
        if command is None:
            continue
        result, detail = outcome(command, out.text if out else None, bool(out and out.is_error))
        yield (turn if own else 0), command, result, detail


def _commands(runs: list[tuple[int, str, str, str]]) -> list[CommandRun]:
    last: dict[str, CommandRun] = {}
    for turn, command, result, detail in runs:
        before = last.pop(command, None)
        last[command] = CommandRun(
            command, (before.runs if before else 0) + 1, turn, result, detail, is_test(command)
        )
    ordered = list(last.values())  # by last run, oldest first
    tests = [c for c in ordered if c.is_test]
    others = [c for c in ordered if not c.is_test]
    return (tests + others[-(MAX_COMMANDS - len(tests)) :])[-MAX_COMMANDS:] if ordered else []


def _left_open(turns: list[_Turn], commands: list[CommandRun]) -> list[str]:
    left = [
        f"Tests failing on their last run: `{c.command}`"
        + (f" ({c.detail})" if c.detail else "")
        for c in commands
        if c.is_test and c.outcome == "failed"
    ]
    tail = [r for t in turns[-3:] for r in t.replies]
    if turns and turns[-1].replies:
        left += [f"The agent asked: {q}" for q in questions(turns[-1].replies[-1])[-3:]]
    left += [s for s in open_items(tail) if not s.endswith("?")]
    return left


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _tail(text: str) -> str:
    text = text.strip()
    return text if len(text) <= LAST_REPLY_CHARS else "…" + text[-(LAST_REPLY_CHARS - 1) :]
