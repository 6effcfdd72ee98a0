"""SpecStory: the chats its editor extension and CLI save as Markdown, one file per chat
in each project's `.specstory/history/`, and the `Source` that reads them as sessions.

SpecStory has no store of its own: every project keeps its exports, and people commit
them with the project. findsession looks in the folder of each project the index knows
(`project_root`) and walks a folder named for this source (`--source specstory`, or a
configured root) for `.specstory/history/`. The project is the folder holding
`.specstory`.

An export is rewritten whole as its chat goes on, so it is read whole again when its
content changed (`specstory_parse` cuts it into blocks, `specstory_records` turns them
into records). Its session is `specstory-<the agent's id>` when the header names the
agent's session (`<!-- cursor Session <id> -->`), else `specstory-` and a hash of the
file's path. When the agent's own copy of the chat is on this machine, or a fuller
export of it is beside this one, that copy is indexed instead (`specstory_copies`).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import IO

from findsession.domain import Problem, Resume, Session
from findsession.sources import SOURCES
from findsession.sources.base import Skip, Source, SourceFile, texts_by_line
from findsession.sources.cursor import Cursor, Reading, looks_binary
from findsession.sources.notes_parse import decode_text
from findsession.sources.opening import open_regular
from findsession.sources.places.projects import SPECSTORY_FOLDER, SPECSTORY_HISTORY
from findsession.sources.registry import SourceKind
from findsession.sources.resuming import no_resume
from findsession.sources.specstory_copies import Copies, agent_kind, claude_transcript, head_ids
from findsession.sources.specstory_parse import Header, is_export_name, parse
from findsession.sources.specstory_records import session_records
from findsession.sources.walking import walk

KIND = SourceKind.SPECSTORY
FOLDER, HISTORY = SPECSTORY_FOLDER, SPECSTORY_HISTORY
PREFIX = "specstory-"
#: Past this an export is indexed in part (and a problem says so).
MAX_BYTES = 64 << 20
#: Folders a walk for `.specstory/` never enters: too big, and no project's own.
_HEAVY = frozenset(
    {"node_modules", "__pycache__", "venv", "site-packages", "dist-packages", "target"}
)


class SpecStorySource(Source):
    """SpecStory's Markdown exports of Cursor, Copilot, Claude Code and other chats."""

    kind = KIND
    #: 2: an export whose session comment names the Cursor chat as the CLI does
    #: (`cursoride`) gives way to Cursor's own copy.
    reads = 2

    def __init__(self) -> None:
        self.copies = Copies()

    def kept_in_project(self, path: Path) -> bool:
        """Every export: SpecStory writes them into each project's `.specstory/`."""
        return True

    def discover(self, root: Path, skip: Skip) -> Iterator[Path]:
        """The exports under `root`: a file named itself; every `*.md` of a history
        folder (or of a `.specstory` folder's); else those of each `.specstory/history/`
        under `root`, hidden and heavy folders left out."""
        if root.is_file():
            if root.suffix == ".md":
                yield root
            return
        inside = FOLDER in Path(os.path.abspath(root)).parts
        for folder, dirs, names in walk(root, skip):
            if folder.name == FOLDER:
                dirs[:] = [d for d in dirs if d == HISTORY]
            elif inside or (folder.name == HISTORY and folder.parent.name == FOLDER):
                yield from (folder / n for n in names if is_export_name(n))
            else:
                dirs[:] = [d for d in dirs if d == FOLDER or not (d[0] == "." or d in _HEAVY)]

    def describe(self, path: Path) -> SourceFile:
        found = head_ids(path)
        return SourceFile(path=path, source=KIND, session_id=session_id(path, found))

    def stamp_paths(self, path: Path) -> list[str]:
        """The other exports of the same session beside this one: which copy is
        indexed changes with any of them."""
        return [str(p) for p in self.copies.siblings(path)]

    def read(self, sf: SourceFile, fh: IO[bytes], cursor: Cursor | None) -> Reading:
        """The whole export again when its content, or the copy chosen, changed."""
        data = fh.read(MAX_BYTES + 1)
        problems: list[Problem] = []
        if len(data) > MAX_BYTES:
            problems.append(Problem(0, "export too large", f"only its first {MAX_BYTES >> 20} MB"))
            data = data[:MAX_BYTES]
        # A NUL byte near the start took the whole export for a binary file: an export
        # is one when no chat label is in it, whatever its bytes.
        head, blocks = parse(decode_text(data), sf.path.name)
        elsewhere = self._elsewhere(sf.path, head)
        digest = "blake2b:" + hashlib.blake2b(data, digest_size=16).hexdigest()
        state = {"elsewhere": elsewhere} if elsewhere else None
        now = Cursor(offset=len(data), lines=0, digest=digest, state=state)
        if cursor is not None and (cursor.digest, cursor.state) == (now.digest, now.state):
            return Reading([], now, fresh=False, unchanged=True)
        if elsewhere is not None:
            why = Problem(0, "a copy of a chat indexed from elsewhere", elsewhere)
            return Reading([], now, fresh=True, bytes_read=len(data), problems=[why])
        records = session_records(head, blocks, project_of(sf.path))
        binary = "binary: not a SpecStory export" if not blocks and looks_binary(data) else None
        if not blocks and binary is None:
            problems.append(Problem(0, "no chat in it", "no _**User**_ or reply label"))
        return Reading(
            records, now, fresh=True, binary=binary, bytes_read=len(data), problems=problems
        )

    def _elsewhere(self, path: Path, head: Header) -> str | None:
        """Where the copy indexed in this export's place is, or None for this one."""
        if head.agent_id is None:
            return None
        fuller = self.copies.fuller(path)
        if fuller is not None:
            return f"{fuller.name} beside it holds the same session"
        own = self.copies.agents_own(head.agent, head.agent_id)
        return f"{own} holds the same chat" if own else None

    def read_back(self, path: Path, lines: set[int]) -> dict[tuple[int, int], str]:
        """Each wanted message as the export holds it now, numbered as `read` did."""
        with open_regular(str(path)) as fh:
            head, blocks = parse(decode_text(fh.read(MAX_BYTES)), path.name)
        return texts_by_line(session_records(head, blocks, None), lines)

    def resume(self, session: Session) -> Resume:
        """Back into the agent's own session where that is possible from here: a Claude
        Code session whose transcript is on this machine; otherwise why not."""
        found = head_ids(Path(session.file_path)) if session.file_path else None
        agent, agent_id = found if found else (None, None)
        kind = agent_kind(agent)
        if kind == SourceKind.CLAUDE_CODE and agent_id:
            return _claude_code(session, agent_id)
        if kind == SourceKind.CURSOR:
            return no_resume(
                "a SpecStory export of a Cursor chat: Cursor has no command that opens a chat"
                " by its id; open the project in Cursor and pick the chat from its history"
            )
        named = f"{agent} session {agent_id}" if agent_id else "chat"
        return no_resume(
            f"a SpecStory export of a {named}: findsession has no way back into it from the"
            " export; open the file, or the chat in the agent that had it"
        )

    def title_line(self, sf: SourceFile, title: str) -> bytes | None:
        """None: SpecStory writes the export again as the chat goes on."""
        return None


def session_id(path: Path, found: tuple[str, str] | None) -> str:
    """`specstory-` and the agent's session id, else a hash of the file's path."""
    if found is not None:
        return PREFIX + found[1]
    key = os.path.abspath(path).encode("utf-8", "surrogateescape")
    return PREFIX + hashlib.blake2b(key, digest_size=6).hexdigest()


def project_of(path: Path) -> str:
    """The folder holding the export's `.specstory`; else the file's own folder."""
    absolute = Path(os.path.abspath(path))
    for folder in absolute.parents:
        if folder.name == FOLDER:
            return str(folder.parent)
    return str(absolute.parent)


def _claude_code(session: Session, agent_id: str) -> Resume:
    """`claude --resume <id>` where Claude Code's own transcript is on this machine."""
    if claude_transcript(agent_id) is None:
        return no_resume(
            f"a SpecStory export of Claude Code session {agent_id}, whose own transcript is"
            " not on this machine: Claude Code resumes a session only from its transcript"
            " (under ~/.claude/projects); read it here"
        )
    plan = SOURCES[SourceKind.CLAUDE_CODE].resume(replace(session, id=agent_id))
    note = f"SpecStory's export of Claude Code session {agent_id}, resumed in Claude Code"
    return replace(plan, session_id=session.id, note="; ".join(n for n in (plan.note, note) if n))
