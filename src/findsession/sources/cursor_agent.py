"""cursor-agent (Cursor's command-line agent) transcripts: where they are, what a file is,
and the `Source` that reads them.

This module and `cursor_agent_records` are the only code that knows the format. The
agent writes `~/.cursor/projects/<project>/agent-transcripts/` (`<project>` is the
working directory with `/` and `.` turned into `-`, no leading dash): a session as
`<id>.jsonl` or `<id>/<id>.jsonl`, its subagents as `<id>/subagents/<sub id>.jsonl`,
and, in older builds, `<id>.txt` (not read where a `.jsonl` of the same id exists). The
JSONL form only grows and is read on from the JSON-lines cursor; the `.txt` form is
read whole when its content changed.

The transcript holds no id, time or directory: the id is the file's name, the time its
modification time when read, and the directory the one a message names (`Workspace
Path:` in the injected `<user_info>`), else the real folder on this machine whose name
encodes to `<project>` (the encoding loses which `-` was a `/`, a `.` or a `-`, so only
a folder that exists can settle it). The title and the start time are kept beside, in
`~/.cursor/chats/<hash>/<id>/` (`cursor_agent_meta`): the first message read from a
transcript's start takes the chat's start time. A chat there with no transcript (builds
of 2025 kept chats in their `store.db` alone) is read from its store
(`cursor_agent_store`), whole again when its root blob changes.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import UTC, datetime
from functools import lru_cache
from pathlib import Path
from typing import IO

from findsession.domain import Message, MetaEvent, MetaKind, Resume, Session
from findsession.sources import foreign_db
from findsession.sources.base import Skip, Source, SourceFile
from findsession.sources.cursor import Cursor, Reading, Record, read_whole
from findsession.sources.cursor_agent_meta import chat_meta, started_at
from findsession.sources.cursor_agent_records import TranscriptParser, workspace_in
from findsession.sources.cursor_agent_store import (
    CHATS,
    STORE,
    chat_records,
    read_chat,
    read_store,
    stores_of,
)
from findsession.sources.jsonl import ReadStats, iter_objects, read_appended
from findsession.sources.opening import open_regular
from findsession.sources.registry import SourceKind
from findsession.sources.resuming import option, resume_in_cwd

KIND = SourceKind.CURSOR_AGENT
TRANSCRIPTS = "agent-transcripts"
SUBAGENTS = "subagents"
#: Folders listed at most while decoding one project folder's name.
_DECODE_LISTINGS = 200
#: Bytes of a parent transcript read for the workspace path it names.
_HEAD = 64 * 1024


class CursorAgentSource(Source):
    """cursor-agent's `~/.cursor/projects/*/agent-transcripts/`, and the chats of
    `~/.cursor/chats/` that have no transcript."""

    kind = KIND
    #: 2: a `.txt` result line names its tool (no output), and an argument holding `=`
    #: keeps it. 3: a `.txt` thinking's paragraphs at the left margin and `<think>` tags
    #: are thinking, and an argument's further lines stay in its call.
    reads = 3
    #: A commit waiting in a chat's `store.db-wal` is a change of the store.
    companions = foreign_db.COMPANIONS

    def discover(self, root: Path, skip: Skip) -> Iterator[Path]:
        return discover(root, skip)

    def describe(self, path: Path) -> SourceFile:
        return describe(path)

    def read(self, sf: SourceFile, fh: IO[bytes], cursor: Cursor | None) -> Reading:
        when = datetime.fromtimestamp(os.fstat(fh.fileno()).st_mtime, UTC)
        if sf.path.name == STORE:
            return read_store(sf, cursor, when.isoformat())
        cwd = project_dir(sf.path) or (parent_workspace(sf.path) if sf.is_subagent else None)
        parser = TranscriptParser(sf.session_id, when.isoformat(), cwd)
        if sf.path.suffix == ".txt":
            reading = read_whole(
                fh, cursor, lambda data, _: parser.parse_text(data.decode("utf-8", "replace"))
            )
        else:
            reading = read_appended(fh, cursor, parser.parse_line)
        if sf.is_subagent or reading.binary or reading.unchanged:
            return reading
        meta = chat_meta(sf.path, sf.session_id)
        if meta.created and (cursor is None or reading.fresh):
            reading.records = started_at(reading.records, meta.created)
        if meta.title:
            # Line 0: not a line of the transcript. `/rename` sets it: the person's own.
            reading.records.append(MetaEvent(MetaKind.CUSTOM_TITLE, meta.title, 0))
        return reading

    def title_line(self, sf: SourceFile, title: str) -> bytes | None:
        """None: cursor-agent keeps titles in its own chat store, not in transcripts."""
        return None

    def read_back(self, path: Path, lines: set[int]) -> dict[tuple[int, int], str]:
        """Each wanted message as the transcript holds it now, numbered as `read` did."""
        parser = TranscriptParser(describe(path).session_id, None, None)
        if path.name == STORE:
            records = chat_records(read_chat(path, []), describe(path).session_id, None)
            return _texts(records, lines)
        with open_regular(str(path)) as fh:
            if path.suffix == ".txt":
                records = parser.parse_text(fh.read().decode("utf-8", "replace"))
            else:
                wanted = iter_objects(fh, 0, 0, ReadStats(0, 0))
                records = [r for n, obj in wanted if n in lines for r in parser.parse_line(n, obj)]
        return _texts(records, lines)

    def resume(self, session: Session) -> Resume:
        """`cursor-agent --resume <id>`, in the session's directory, where the agent keeps
        the project's chats (newer installs also name the command `agent`)."""
        return resume_in_cwd(session, "cursor-agent", *option("--resume", session.id))


def discover(root: Path, skip: Skip | None = None) -> Iterator[Path]:
    """Every transcript in an `agent-transcripts` folder under `root`: `*.jsonl`, and
    `*.txt` where no `.jsonl` of the same id sits beside it or in its own folder. A
    project's other folders (terminals, tool output) are not walked; a Cursor home
    named as a root is read through its `projects`. Symlinked folders are not followed."""
    if root.is_file():
        if root.suffix in (".jsonl", ".txt") or root.name == STORE:
            yield root
        return
    if root.name == CHATS:
        yield from chat_stores(root)
        return
    if (root / CHATS).is_dir() and root.name != "projects":
        yield from chat_stores(root / CHATS)
    if (root / "projects").is_dir() and root.name != "projects":
        root = root / "projects"

    def unreadable(exc: OSError) -> None:
        if skip is not None and exc.filename:
            skip(Path(exc.filename), f"cannot read the folder: {exc.strerror or exc}")

    for folder, dirs, files in os.walk(root, onerror=unreadable, followlinks=False):
        base = Path(folder)
        if TRANSCRIPTS not in base.parts:
            # The projects folder, a project's folder: only the way to its transcripts.
            dirs[:] = sorted(d for d in dirs if d == TRANSCRIPTS or base == root)
            continue
        dirs.sort()
        names = set(files)
        for name in sorted(files):
            stem, suffix = os.path.splitext(name)
            if suffix == ".jsonl" or (
                suffix == ".txt"
                and stem + ".jsonl" not in names
                and not (base / stem / (stem + ".jsonl")).is_file()
            ):
                yield base / name


def chat_stores(chats: Path) -> Iterator[Path]:
    """`<hash>/<id>/store.db` under a chats folder, for each chat with no transcript in
    the `projects` beside it: a chat that has one is read from it."""
    transcribed = transcript_ids(chats.parent / "projects")
    for store in sorted(chats.glob(f"*/*/{STORE}")):
        if store.parent.name not in transcribed and store.is_file():
            yield store


def transcript_ids(projects: Path) -> set[str]:
    """The chat ids the transcripts under `projects` hold (their files' and folders'
    names in each `agent-transcripts`)."""
    ids: set[str] = set()
    for folder in projects.glob(f"*/{TRANSCRIPTS}"):
        try:
            ids.update(os.path.splitext(name)[0] for name in os.listdir(folder))
        except OSError:
            continue
    return ids


def describe(path: Path) -> SourceFile:
    """A session by its file's name (a chat's store: its folder's); a subagent in
    `<parent id>/subagents/`."""
    if path.name == STORE:
        return SourceFile(path=path, source=KIND, session_id=path.parent.name)
    sid = path.stem
    if path.parent.name == SUBAGENTS:
        parent = path.parent.parent.name
        return SourceFile(
            path=path, source=KIND, session_id=sid, is_subagent=True, parent_id=parent
        )
    return SourceFile(path=path, source=KIND, session_id=sid, supersedes=stores_of(path, sid))


def project_dir(path: Path) -> str | None:
    """The real folder whose encoded name is the project folder `path` lies in; None
    when the transcript is not in that layout or no such folder exists here."""
    for folder in path.parents:
        if folder.name == TRANSCRIPTS:
            return decode_project(folder.parent.name)
    return None


def parent_workspace(path: Path) -> str | None:
    """A subagent's directory: the workspace path its parent's transcript names near its
    start (a subagent's own transcript begins with the task, not the `<user_info>`)."""
    folder = path.parent.parent  # <parent id>/subagents/<id>.jsonl
    for parent in (folder / f"{folder.name}.jsonl", folder.with_name(f"{folder.name}.jsonl")):
        try:
            with open_regular(str(parent)) as fh:
                head = fh.read(_HEAD).decode("utf-8", "replace")
        except OSError:
            continue
        # Raw JSON: its `\n` escapes become the line ends the pattern looks for.
        return workspace_in(head.replace("\\n", "\n"))
    return None


@lru_cache(maxsize=256)
def decode_project(encoded: str) -> str | None:
    """The folder whose absolute path, `/` and `.` turned into `-` without the leading
    one, is `encoded`: found by walking down from `/` through the folders that exist and
    whose names encode to the next part of it; the first in name order wins."""
    budget = [_DECODE_LISTINGS]

    def walk(folder: Path, rest: str) -> Path | None:
        if budget[0] <= 0:
            return None
        budget[0] -= 1
        try:
            with os.scandir(folder) as listing:
                entries = sorted(listing, key=lambda e: e.name)
        except OSError:
            return None
        for entry in entries:
            code = entry.name.replace(".", "-")
            if rest != code and not rest.startswith(code + "-"):
                continue
            if not _is_dir(entry):
                continue
            if rest == code:
                return folder / entry.name
            found = walk(folder / entry.name, rest[len(code) + 1 :])
            if found is not None:
                return found
        return None

    if not encoded or encoded.startswith("-"):
        return None
    found = walk(Path("/"), encoded)
    return str(found) if found is not None else None


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir(follow_symlinks=True)
    except OSError:
        return False


def _texts(records: list[Record], lines: set[int]) -> dict[tuple[int, int], str]:
    texts: dict[tuple[int, int], str] = {}
    for rec in records:
        if isinstance(rec, Message) and rec.line in lines and rec.uuid:
            texts[(rec.line, int(rec.uuid.rsplit(":", 1)[1]))] = rec.text
    return texts
