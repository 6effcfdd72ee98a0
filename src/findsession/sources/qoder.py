"""Qoder CLI: where its sessions are, and the `Source` that reads them.

Qoder's documentation ("Managing Sessions" in docs.qoder.com/cli) puts each session at
`~/.qoder/projects/<project>/<session id>.jsonl`, the project's folder with its
separators made `-`, beside `<session id>/state.json`, and the user folder at
`$QODER_CONFIG_DIR`, else `~/.qoder`; `qodercli -r <id>` resumes one. Its lines take
Claude Code's shape (`user`, `assistant`, `custom-title`, `ai-title`, `last-prompt`,
`system`, ... with `uuid`, `parentUuid`, `sessionId`, `cwd`, `gitBranch`), with lines of
its own (`runtime-config`, `workspace-directories`, `worktree-state`, `active-leaf`) that
carry nothing to search: so other tools' readers found in real files, and they are read
by Claude Code's mapping (`claude_code_records`). A subagent's lines are in
`<session id>/subagents/agent-<id>.jsonl`. Qoder deletes a session only when the person
does (`--delete-session`).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

from findsession.domain import Resume, Session, SourceKind
from findsession.sources import claude_code
from findsession.sources.base import Skip, SourceFile
from findsession.sources.resuming import option, resume_in_cwd
from findsession.sources.walking import walk

KIND = SourceKind.QODER


def config_dir() -> Path:
    """Qoder CLI's user folder, as its documentation names it."""
    base = os.environ.get("QODER_CONFIG_DIR")
    return Path(base).expanduser() if base else Path.home() / ".qoder"


class QoderSource(claude_code.ClaudeCodeSource):
    """Qoder CLI's `~/.qoder/projects/<project>/<id>.jsonl` and their subagents."""

    kind = KIND

    def default_roots(self) -> list[Path]:
        return [config_dir() / "projects"]

    def discover(self, root: Path, skip: Skip) -> Iterator[Path]:
        """Each session at a project folder's top and each subagent in a session's
        `subagents/`; nothing else a session's folder holds (its state, its
        compaction's files) is a transcript."""
        if root.is_file():
            if root.suffix == ".jsonl":
                yield root
            return
        for folder, dirs, names in walk(root, skip):
            if folder.name == "subagents":
                yield from (folder / n for n in names if n.endswith(".jsonl"))
                dirs[:] = []
            elif (folder.parent / f"{folder.name}.jsonl").is_file():  # a session's folder
                dirs[:] = [d for d in dirs if d == "subagents"]
            else:  # the projects folder, or a project's
                yield from (folder / n for n in names if n.endswith(".jsonl"))

    def describe(self, path: Path) -> SourceFile:
        return replace(claude_code.describe(path), source=KIND)

    def title_line(self, sf: SourceFile, title: str) -> bytes | None:
        """None: where Qoder keeps a name given with `-n` or `/rename` is not documented,
        and a line Qoder might not read is not appended to its transcript."""
        return None

    def resume(self, session: Session) -> Resume:
        """`qodercli -r <id>`, in the session's folder: Qoder keeps each project's
        sessions apart and looks the id up among those of the folder it starts in."""
        return resume_in_cwd(session, "qodercli", *option("-r", session.id))
