"""Transcript sources, one module per agent format, behind the `Source` protocol."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import IO

from findsession.model import Message, MetaEvent
from findsession.sources import claude_code
from findsession.sources.base import Skip, Source, SourceFile
from findsession.sources.jsonl import ReadStats, iter_objects


class ClaudeCodeSource:
    """Claude Code's `~/.claude/projects/**/*.jsonl`."""

    kind = claude_code.KIND

    def default_roots(self) -> list[Path]:
        return [claude_code.default_root()]

    def discover(self, root: Path, skip: Skip) -> Iterator[Path]:
        return claude_code.discover(root, skip)

    def describe(self, path: Path) -> SourceFile:
        return claude_code.describe(path)

    def read(
        self, sf: SourceFile, fh: IO[bytes], start_offset: int, start_line: int, stats: ReadStats
    ) -> Iterator[Message | MetaEvent]:
        for line, obj in iter_objects(fh, start_offset, start_line, stats):
            yield from claude_code.parse_record(obj, line, sf.is_subagent)


SOURCES: dict[str, Source] = {ClaudeCodeSource.kind: ClaudeCodeSource()}

__all__ = ["SOURCES", "Skip", "Source", "SourceFile"]
