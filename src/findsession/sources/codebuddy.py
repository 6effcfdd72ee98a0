"""CodeBuddy Code (Tencent's terminal agent, `codebuddy`): where its sessions are, and the
`Source` that reads them.

CodeBuddy keeps its user folder at `$CODEBUDDY_CONFIG_DIR`, else `~/.codebuddy`
(`PathUtils.getHomeDir`), and each session at `projects/<project>/<session id>.jsonl`,
the project's folder with its separators made `-` (`PathUtils.compressPath`), in Claude
Code's layout: a session's folder beside it holds `subagents/agent-<id>.jsonl` (a
subagent's own history, which its parent's `Agent` result names as
`toolResult.subAgent.sessionId`) and `tool-results/` (large outputs, no transcript);
the project's folder holds `memory/` (Markdown). Its lines are not Claude Code's: they
are the OpenAI Agents SDK's items (`codebuddy_records`), appended as the session goes on.
`codebuddy --resume <id>` goes back into one, looked up first among the sessions of the
folder it starts in and then across every project; sessions untouched for
`cleanupPeriodDays` are deleted by CodeBuddy itself.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import IO

from findsession.domain import Resume, Session
from findsession.sources import claude_code
from findsession.sources.base import Skip, Source, SourceFile, texts_by_line
from findsession.sources.codebuddy_records import parse_line
from findsession.sources.cursor import Cursor, Reading
from findsession.sources.jsonl import objects_at, read_appended
from findsession.sources.opening import open_regular
from findsession.sources.registry import SourceKind
from findsession.sources.resuming import option, resume_anywhere

KIND = SourceKind.CODEBUDDY


class CodeBuddySource(Source):
    """CodeBuddy Code's `~/.codebuddy/projects/<project>/<id>.jsonl` and their subagents."""

    kind = KIND

    def discover(self, root: Path, skip: Skip) -> Iterator[Path]:
        """Every transcript under `root`, as in Claude Code's layout (its `tool-results/`
        and a project's `memory/` hold no `.jsonl`)."""
        return claude_code.discover(root, skip)

    def describe(self, path: Path) -> SourceFile:
        return replace(claude_code.describe(path), source=KIND, agent_type=None)

    def read(self, sf: SourceFile, fh: IO[bytes], cursor: Cursor | None) -> Reading:
        return read_appended(fh, cursor, lambda line, obj: parse_line(obj, line, sf.is_subagent))

    def read_back(self, path: Path, lines: set[int]) -> dict[tuple[int, int], str]:
        in_subagent = claude_code.describe(path).is_subagent
        with open_regular(str(path)) as fh:
            records = [
                rec
                for number, obj in objects_at(fh, lines)
                for rec in parse_line(obj, number, in_subagent)
            ]
        return texts_by_line(records, lines)

    def title_line(self, sf: SourceFile, title: str) -> bytes | None:
        """None: `/rename` appends a `custom-title` record (`SessionManager.rename`), but
        no line CodeBuddy wrote for one has been seen, and its lines are chained by
        `id`/`parentId`: a line it might not read as its own is not appended to its
        transcript. The title is kept in the index."""
        return None

    def resume(self, session: Session) -> Resume:
        """`codebuddy --resume <id>`, in the session's folder when it is known (where its
        tools work); CodeBuddy finds the session from any folder."""
        return resume_anywhere(session, "codebuddy", *option("--resume", session.id))
