"""TRAE CLI 2.0: where its sessions are, and the `Source` that reads them.

TRAE CLI 2.0 (`traecli`) is a closed-source fork of Codex's CLI and writes Codex's
rollout files, field for field, in a home of its own: `~/.trae/cli/sessions/YYYY/MM/DD/
rollout-<time>-<id>.jsonl`, and `~/.trae/cli/archived_sessions/` for those archived. The
place and the format are other tools' reading of real rollouts (their `session_meta`
names `codex-tui` as originator and a `traecli` 0.200 version), not Trae's own
documentation, which names no place for them; they are read by Codex's reader, whole
(`codex`): prompts, replies, tool calls, subagents, titles. No variable is known to move
the home. Trae's documentation names `/resume` in the CLI's own screen; like Codex's, the
CLI takes `resume <id>`, per the same readers.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from findsession.domain import Resume, Session
from findsession.sources import codex
from findsession.sources.base import SourceFile
from findsession.sources.registry import SourceKind
from findsession.sources.resuming import positional, resume_in_cwd

KIND = SourceKind.TRAE_CLI
_NOTE = (
    "TRAE CLI is a fork of Codex's CLI: `resume <id>` is the form its Codex base takes "
    "(some installs name the command `traex`); inside the CLI, `/resume` picks it too."
)


class TraeCliSource(codex.CodexSource):
    """TRAE CLI's `~/.trae/cli/sessions` and `archived_sessions` rollouts."""

    kind = KIND

    def describe(self, path: Path) -> SourceFile:
        return replace(codex.describe(path), source=KIND)

    def resume(self, session: Session) -> Resume:
        """`traecli resume <id>`, in the session's directory, as Codex's is."""
        return resume_in_cwd(session, "traecli", "resume", *positional(session.id), note=_NOTE)
