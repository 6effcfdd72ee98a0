"""Qoder CLI: where its sessions are, and the `Source` that reads them.

Each session is `<user folder>/projects/<project>/<session id>.jsonl`, the project's
folder with every character but letters and digits made `-`, beside `<session id>/`
(its `state.json`, a compaction's `compression-v2/` state); `qodercli -r <id>` resumes
one. Its lines take Claude Code's shape (`user`, `assistant`, `custom-title`,
`ai-title`, `last-prompt`, `summary`, `system`, ... with `uuid`, `parentUuid`,
`sessionId`, `cwd`, `gitBranch`), with lines of its own (`runtime-config`,
`workspace-directories`, `worktree-state`, `active-leaf`, `relocated`, `token-stats`)
that carry nothing to search: other tools' readers found so in real files, and Qoder
CLI 1.1.52's bundled code writes them so (it is built on Gemini CLI, its transcript a
port of Claude Code's). They are read by Claude Code's mapping (`claude_code_records`).
A subagent's lines are in `<session id>/subagents/agent-<id>.jsonl`, beside its
`.meta.json` (`agentType`, `description`). Qoder deletes a session only when the person
does (`--delete-session`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

from findsession.domain import Resume, Session
from findsession.sources import claude_code
from findsession.sources.base import Skip, SourceFile
from findsession.sources.places.homes import qoder_china_config_dir
from findsession.sources.registry import SourceKind
from findsession.sources.resuming import option, resume_in_cwd
from findsession.sources.walking import walk

KIND = SourceKind.QODER


class QoderSource(claude_code.ClaudeCodeSource):
    """Qoder CLI's `~/.qoder/projects/<project>/<id>.jsonl` and their subagents."""

    kind = KIND

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
        """None. Qoder's code keeps a name given with `-n` or `/rename` as a
        `custom-title` line (`type`, `sessionId`, `customTitle`), the last one the
        session's name, but no line Qoder wrote has been seen (it runs only signed in to
        its service): a line it might not read as its own is not appended to its
        transcript. The title is kept in the index."""
        return None

    def resume(self, session: Session) -> Resume:
        """`qodercli -r <id>`, in the session's folder: Qoder keeps each project's
        sessions apart and looks the id up among those of the folder it starts in. A
        session in the China edition's folder is its own: `qoderclicn -r <id>`."""
        program = "qoderclicn" if in_china_folder(session.file_path) else "qodercli"
        return resume_in_cwd(session, program, *option("-r", session.id))


def in_china_folder(file_path: str | None) -> bool:
    """Whether a transcript lies in the China edition's user folder, where the
    global edition's `qodercli` does not look."""
    if not file_path:
        return False
    china = qoder_china_config_dir()
    return Path(file_path).is_relative_to(china) or ".qoder-cn" in Path(file_path).parts
