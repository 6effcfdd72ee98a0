"""Pi sessions: where they are, what a file is, and the `Source` that reads them.

This module and `pi_records` are the only code that knows Pi's format. A session is
`<agent dir>/sessions/--<project>--/<time>_<session id>.jsonl` (`<agent dir>` is
`$PI_CODING_AGENT_DIR`, else `~/.pi/agent`; `<project>` is the working directory with
`/` made `-`, a lossy name the header's `cwd` replaces). Line 1 is the `session` header
(`id`, `cwd`); the entries after it form a tree through `id`/`parentId`.

A child session the pi-subagents extension ran is kept below its parent's file, in a
folder named as that file: `<parent stem>/<run id>/run-<n>/session.jsonl` (and its
background runs' and forks' folders there); it is a subagent of that session.

A file only grows: it is read on from the JSON-lines cursor. Every branch of the tree
is indexed, not only the one the last entry ends: Pi keeps each branch in the file as a
place to go back to (`/tree` moves between them), so a turn on another branch is still
part of the session, unlike a Qwen Code rewind.

A fork (`pi --fork`, `/fork`, `/clone`) is a new file whose header names the file it
came from (`parentSession`) and whose entries begin with a copy of that session's,
unmarked, `id` and `timestamp` kept. Such a file is read after the others of a run
(`SourceFile.copies_history`), and a message's uuid is its entry's id and time, so the
copied lines stay the session's they were first written in and the fork keeps its own.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from findsession.domain import Resume, Session
from findsession.sources.base import Skip, Source, SourceFile
from findsession.sources.cursor import Cursor, Reading
from findsession.sources.epoch import iso_seconds
from findsession.sources.jsonl import clean_text, read_appended, texts_at
from findsession.sources.opening import open_regular
from findsession.sources.pi_records import PiParser
from findsession.sources.registry import SourceKind
from findsession.sources.resuming import no_resume, option, resume_in_cwd
from findsession.sources.walking import files_ending

KIND = SourceKind.PI
#: Bytes of line 1 read for the header (it holds a few ids and a path).
_HEADER_BYTES = 64 * 1024
#: Folders above a file looked at for the session it is a subagent of.
_SUBAGENT_DEPTH = 4


class PiSource(Source):
    """Pi's `~/.pi/agent/sessions/*/*.jsonl`."""

    kind = KIND
    #: 2: a pi-subagents child session is a subagent of the session that ran it.
    #: 3: a fork's copy of another session's entries is that session's, not the fork's.
    reads = 3

    def discover(self, root: Path, skip: Skip) -> Iterator[Path]:
        return discover(root, skip)

    def describe(self, path: Path) -> SourceFile:
        """The session id from the header, else from the name after the time; a
        pi-subagents child names its parent by where it is."""
        header = _header(path)
        forked = isinstance(header.get("parentSession"), str) and bool(header["parentSession"])
        # A fork of a fork is read after the fork it copies: by when each began, which
        # its header says (a file's time is a copy's or a checkout's, not the fork's).
        began = iso_seconds(header.get("timestamp")) if forked else None
        parent = _parent_file(path)
        if parent is None:
            return SourceFile(
                path=path,
                source=KIND,
                session_id=_session_id(path, header),
                copies_history=forked,
                began=began,
            )
        return SourceFile(
            path=path,
            source=KIND,
            session_id=_session_id(path, header),
            is_subagent=True,
            parent_id=_session_id(parent),
            copies_history=forked,
            began=began,
        )

    def read(self, sf: SourceFile, fh: IO[bytes], cursor: Cursor | None) -> Reading:
        # A read from the cursor starts after the header: its `cwd` is read again.
        cwd = header_cwd(fh) if cursor is not None else None
        return read_appended(fh, cursor, PiParser(cwd, copies=True).parse)

    def title_line(self, sf: SourceFile, title: str) -> bytes | None:
        """None: Pi's name entry is a node of the session tree (`id`, `parentId`), and
        appending one would move the branch Pi resumes on."""
        return None

    def read_back(self, path: Path, lines: set[int]) -> dict[tuple[int, int], str]:
        parser = PiParser()
        with open_regular(str(path)) as fh:
            return texts_at(fh, lines, parser.parse)

    def resume(self, session: Session) -> Resume:
        """`pi --session <file>`, in the session's directory: Pi opens a session by
        its file."""
        if not session.file_path:
            return no_resume("the index does not know which file holds this Pi session")
        return resume_in_cwd(session, "pi", *option("--session", session.file_path))


def discover(root: Path, skip: Skip | None = None) -> Iterator[Path]:
    """Every session file under `root`."""
    return files_ending(root, skip, ".jsonl")


def _session_id(path: Path, header: dict[str, object] | None = None) -> str:
    sid = (_header(path) if header is None else header).get("id")
    if not isinstance(sid, str) or not sid:
        stem = path.name[: -len(".jsonl")]
        sid = stem.split("_", 1)[1] if "_" in stem else stem
    return clean_text(sid)


def _parent_file(path: Path) -> Path | None:
    """The session file a pi-subagents child was run from: the nearest folder above it
    that has a `.jsonl` file of its own name beside it (`<parent stem>/<run id>/run-0/`,
    `<parent stem>/async-<id>/`, `<parent stem>/forks/`), a few levels up at most."""
    for folder in list(path.parents)[:_SUBAGENT_DEPTH]:
        candidate = folder.with_name(f"{folder.name}.jsonl")
        if folder.name and candidate.is_file():
            return candidate
    return None


def _header(path: Path) -> dict[str, object]:
    try:
        with open_regular(str(path)) as fh:
            return _first_object(fh)
    except OSError:
        return {}


def header_cwd(fh: IO[bytes]) -> str | None:
    """The `cwd` of line 1 when it is a `session` header (Letta Code's local transcripts
    begin with the same one)."""
    cwd = _first_object(fh).get("cwd")
    return clean_text(cwd) if isinstance(cwd, str) and cwd else None


def _first_object(fh: IO[bytes]) -> dict[str, object]:
    """Line 1 when it is the `session` header; else nothing."""
    fh.seek(0)
    try:
        obj = json.loads(fh.readline(_HEADER_BYTES).decode("utf-8", "replace"))
    except (ValueError, RecursionError):
        return {}
    return obj if isinstance(obj, dict) and obj.get("type") == "session" else {}
