"""What every transcript source provides, so the indexer never names a format."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Protocol

from findsession.model import Message, MetaEvent
from findsession.sources.jsonl import ReadStats

#: Called as `skip(path, reason)` for a file or folder left out of the run.
Skip = Callable[[Path, str], None]


@dataclass(frozen=True, slots=True)
class SourceFile:
    """One transcript file and the session it holds, as far as its path tells.

    `parent_id` is None for a subagent whose layout does not name its parent; the
    indexer then takes it from the records.
    """

    path: Path
    source: str
    session_id: str
    is_subagent: bool = False
    parent_id: str | None = None
    agent_type: str | None = None
    agent_description: str | None = None


class Source(Protocol):
    """A transcript format: where its files live and how to read them from an offset."""

    kind: str

    def default_roots(self) -> list[Path]:
        """Roots indexed when the user names none."""
        ...

    def discover(self, root: Path, skip: Skip) -> Iterator[Path]:
        """Every transcript file under `root`: paths only, so an unchanged file costs a stat.

        A folder that cannot be read is passed to `skip` with the reason, never dropped
        silently.
        """
        ...

    def describe(self, path: Path) -> SourceFile:
        """What a file is (main session or subagent, its ids), for a file about to be read."""
        ...

    def read(
        self, sf: SourceFile, fh: IO[bytes], start_offset: int, start_line: int, stats: ReadStats
    ) -> Iterator[Message | MetaEvent]:
        """Records after `start_offset`; `stats` says where reading stopped."""
        ...
