"""A handoff brief: what a person or another agent needs to carry a session on.

Built from the index (`findsession handoff`, the MCP tool `handoff`): what was asked, what
the agent concluded, the files it changed, the commands it ran with how each last ended,
what was left open, and how to go back into the session itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from findsession.domain.records import Resume, Session


@dataclass(frozen=True, slots=True)
class FileChange:
    """One file the session wrote, however many times."""

    #: As the session named it, relative to its working directory when below it.
    path: str
    #: What was done to it, in the order first done: create, edit, patch, delete, shell.
    ops: tuple[str, ...]
    writes: int
    #: The turns that wrote it (0: a subagent's, whose turns are its own).
    turns: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class CommandRun:
    """A shell command the session ran, and how its last run ended."""

    command: str
    runs: int
    #: The turn of its last run.
    turn: int
    #: `passed` / `failed` (a test run), `ok` / `error` (any other command), `unknown`
    #: (no output kept, or cut before it said).
    outcome: str
    #: What the output said: `12 passed, 1 failed`, `exit code 2`; '' when nothing.
    detail: str
    is_test: bool


@dataclass(slots=True)
class Brief:
    session: Session
    #: (turn, prompt): the first in full, the rest one line each.
    asked: list[tuple[int, str]]
    #: (turn, sentence): how the agent concluded each turn.
    decided: list[tuple[int, str]]
    files: list[FileChange]
    commands: list[CommandRun]
    #: What is not done: failing tests, the agent's last questions, what it said remains.
    left_open: list[str]
    #: How the session ended: its last prompt and the agent's last words.
    last_prompt: tuple[int, str] | None
    last_reply: str
    resume: Resume
    #: A model's summary of the session (`[titles] provider`), and which model wrote it.
    summary: str | None = None
    summary_by: str | None = None
    notes: list[str] = field(default_factory=list)
