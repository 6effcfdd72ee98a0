"""What every transcript source provides, so nothing outside it names a format."""

from __future__ import annotations

import hashlib
from abc import abstractmethod
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO, Protocol

from findsession.domain import Message, MessageKind, Resume, Session
from findsession.sources.cursor import Cursor, Reading, Record
from findsession.sources.registry import IN_PROJECT, PLACES

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
    #: Files this one replaces (Gemini CLI turns a resumed `.json` chat into a `.jsonl`
    #: of the same session, and keeps a chat in two folders of one project): the indexer
    #: drops them when it first reads this one, so the session stays one session under
    #: its own id.
    supersedes: tuple[Path, ...] = ()
    #: The file began, or may have begun, as a copy of another session's history
    #: (Claude Code's `--fork-session`, Pi's forks, a Vibe 2.2 resume), its copied lines
    #: unmarked: the indexer reads it after the other files of a run, so a line it shares
    #: with another file (same uuid) stays the one of the file it was first written in.
    copies_history: bool = False
    #: When the session began (seconds since the epoch), where its file says so: files
    #: that copy history are read in this order, else in the order they were last written.
    began: float | None = None
    agent_type: str | None = None
    agent_description: str | None = None


class Source(Protocol):
    """A transcript format: where its files live, how to read them on from a cursor, how
    to read one record back, and how its agent resumes one of its sessions. Registered
    by one entry in `sources.registry.ENTRIES`.

    Every member a caller may use is declared here, and callers use each directly. A
    source class derives from this protocol: it must give the abstract members, and
    inherits the defaults of the hooks below them (no companion files, no other paths in
    a file's stamp, no folder of its own inside a project, nothing to report), so it
    states only what differs.
    """

    kind: str
    #: Suffixes of the files beside one of its files whose change is that file's change:
    #: an agent's commits wait in a database's `-wal` while the database file itself
    #: stays as it was (`foreign_db.COMPANIONS`). The indexer folds their size and time
    #: into the file's (`sources.file_stamp`), and a change the watcher sees beside such
    #: a file (`sources.SIDE_FILES`) is taken for a change of the file.
    companions: tuple[str, ...] = ()
    #: Which reading of its files this release gives: raised by a change that makes a
    #: file already indexed read otherwise (a record kept that was dropped, a field read
    #: differently), so that indexes made before read its files again once
    #: (`indexing.readings`). A change that only reads new files or new layouts does
    #: not need it.
    reads: int = 1

    def default_roots(self) -> list[Path]:
        """Roots indexed when the user names none: its entry's place rule
        (`sources.places`), which the index reads without importing any source."""
        return PLACES[self.kind]()

    @abstractmethod
    def discover(self, root: Path, skip: Skip) -> Iterator[Path]:
        """Every transcript file under `root`: paths only, so an unchanged file costs a stat.

        A folder that cannot be read is passed to `skip` with the reason, never dropped
        silently.
        """

    @abstractmethod
    def describe(self, path: Path) -> SourceFile:
        """What a file is (main session or subagent, its ids), for a file about to be read."""

    @abstractmethod
    def read(self, sf: SourceFile, fh: IO[bytes], cursor: Cursor | None) -> Reading:
        """Format-free records of what changed since `cursor` (None: read it all).

        The source chooses the cursor's kind (`sources.cursor`) and keeps what else it
        needs for the next read in the cursor's `state`; the indexer only stores the one
        returned. May raise `OSError`.
        """

    @abstractmethod
    def read_back(self, path: Path, lines: set[int]) -> dict[tuple[int, int], str]:
        """The text, as the file holds it now, of the messages at `(line, part)` for the
        wanted `lines` (the numbers `read` gave its records). May raise `OSError`."""

    @abstractmethod
    def resume(self, session: Session) -> Resume:
        """The agent's command that goes back into `session` (a main session: the caller
        turns a subagent into its parent first) and the directory to run it in, built
        with `sources.resuming` so every value stays one argument; or, for a format
        with no such command (a note is a document, not a conversation), `no_resume`
        with the reason."""

    @abstractmethod
    def title_line(self, sf: SourceFile, title: str) -> bytes | None:
        """The line that gives the file's session `title`, as the agent itself writes
        it, to append at the file's end; None where the format has no documented place
        for a title (findsession then keeps the title in its index only). Each source
        says which, and why: there is no default."""

    def stamp_paths(self, path: Path) -> list[str]:
        """Other paths whose size and time are folded into the stamp of the file at
        `path`, beyond its `companions`: the folders an older OpenCode session's messages
        and parts are added to, the other SpecStory exports of the same chat. None by
        default."""
        return []

    def changed_file(self, path: Path) -> Path | None:
        """What a change of a file the index does not know, at `path` inside a folder
        root of this source, is about (the resident service asks for each path it is
        told changed): the path itself when it may be a transcript of its own, which only
        a walk of the roots can say; the transcript whose stamp holds it; or None, when
        this source reads nothing there, so no walk is spent on it. By default, the file
        if `discover` takes it when it is named as a root."""
        return path if next(iter(self.discover(path, lambda _p, _why: None)), None) else None

    def project_root(self, project: Path) -> Path | None:
        """The folder inside an indexed project where this source's files are kept
        (Crush's `.crush/`, the first OpenCode's `.opencode/`, SpecStory's
        `.specstory/history/`), when the project has one: each is read as a root of this
        source, so a project the agent's own list never named is still read. Its entry's
        rule (`Entry.in_project`, in `sources.places`), which the index reads without
        importing any source; None for a source that keeps nothing inside projects."""
        rule = IN_PROJECT.get(self.kind)
        return rule(project) if rule else None

    def kept_in_project(self, path: Path) -> bool:
        """Whether the file at `path` is a store the agent keeps inside a project (what
        `project_root` finds), which a cloned repository can ship with someone else's
        sessions in it: the indexer then asks git's index whether it is committed
        (`sources.git_index`). False by default."""
        return False

    def report_notes(self) -> list[str]:
        """Lines `findsession sources` shows under this source: what it cannot read on
        this machine (an encrypted history). None by default."""
        return []


def store_id(name: str, path: Path) -> str:
    """The id of a file that holds many sessions (a database, a chat history): `name-`
    and a short hash of its path, its sessions `<store id>:<key>`. The path, not the
    content: the id must hold while the store grows, and two copies are two stores."""
    return f"{name}-" + hashlib.blake2b(str(path).encode(), digest_size=4).hexdigest()


def texts_by_line(records: Iterable[Record], lines: set[int]) -> dict[tuple[int, int], str]:
    """`read_back`'s answer from a source's records read again: each message on a wanted
    line keyed `(line, part)`, its part counted as the indexer counts a line's records
    (every record of the line, message or not, in order), so the keys meet the stored ones."""
    texts: dict[tuple[int, int], str] = {}
    parts: dict[int, int] = {}
    for rec in records:
        part = parts.get(rec.line, 0)
        parts[rec.line] = part + 1
        if isinstance(rec, Message) and rec.line in lines:
            texts[(rec.line, part)] = rec.text
    return texts


def named_results(
    records: list[Record], every_record: Callable[[], Iterable[Record]]
) -> list[Record]:
    """Results read on from an offset whose call came in an earlier read, named after
    that call: `every_record`, the whole file read again, only when there is such a
    result (a source that pairs a result with its call by id, and reads on from an
    offset)."""
    if not any(_orphan(r) for r in records):
        return records
    calls = {
        r.tool_id: r.tool_name or "tool"
        for r in every_record()
        if isinstance(r, Message) and r.kind is MessageKind.TOOL_CALL and r.tool_id
    }
    return [replace(r, tool_name=calls.get(r.tool_id or "")) if _orphan(r) else r for r in records]


def _orphan(rec: Record) -> bool:
    return (
        isinstance(rec, Message)
        and rec.kind is MessageKind.TOOL_OUTPUT
        and rec.tool_name is None
        and rec.tool_id is not None
    )
