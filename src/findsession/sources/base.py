"""What every transcript source provides, so nothing outside it names a format."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Protocol

from findsession.domain import Resume, Session
from findsession.sources.cursor import Cursor, Reading

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
    #: The file holds several sessions of its own, one per `Message.session_key` (an
    #: Aider history holds one per run); none is a subagent of another.
    sibling_sessions: bool = False
    #: A file this one replaces (Gemini CLI turns a resumed `.json` chat into a `.jsonl`
    #: of the same session): the indexer drops it when it first reads this one, so the
    #: session stays one session under its own id.
    supersedes: Path | None = None
    agent_type: str | None = None
    agent_description: str | None = None


class Source(Protocol):
    """A transcript format: where its files live, how to read them on from a cursor, how
    to read one record back, and how its agent resumes one of its sessions. Registered
    in `findsession.sources.SOURCES`."""

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

    def read(self, sf: SourceFile, fh: IO[bytes], cursor: Cursor | None) -> Reading:
        """Format-free records of what changed since `cursor` (None: read it all).

        The source chooses the cursor's kind (`sources.cursor`) and keeps what else it
        needs for the next read in the cursor's `state`; the indexer only stores the one
        returned. May raise `OSError`.
        """
        ...

    def read_back(self, path: Path, lines: set[int]) -> dict[tuple[int, int], str]:
        """The text, as the file holds it now, of the messages at `(line, part)` for the
        wanted `lines` (the numbers `read` gave its records). May raise `OSError`."""
        ...

    def resume(self, session: Session) -> Resume:
        """The agent's command that goes back into `session` (a main session: the caller
        turns a subagent into its parent first) and the directory to run it in, built
        with `sources.resuming` so every value stays one argument; or, for a format
        with no such command (a note is a document, not a conversation), `no_resume`
        with the reason."""
        ...

    def title_line(self, sf: SourceFile, title: str) -> bytes | None:
        """The line that gives the file's session `title`, as the agent itself writes
        it, to append at the file's end; None where the format has no documented place
        for a title (findsession then keeps the title in its index only)."""
        ...
