"""Qwen Code chats: where they are, what a file is, and the `Source` that reads them.

This module and `qwen_records` are the only code that knows Qwen Code's format. A chat
is `<home>/projects/<project>/chats/<session id>.jsonl` (`<home>` is `$QWEN_HOME`, else
`~/.qwen`; `<project>` is the working directory with every character outside
`[A-Za-z0-9]` made `-`, a lossy name the records' `cwd` replaces), or the same under
`chats/archive/`. A chat only grows: it is read on from the JSON-lines cursor.

A `/rewind` leaves the turns it takes back in the file, on a branch of the record tree
no longer reached from the last record. A read that meets a `rewind` record therefore
reads the whole file again and keeps the active branch (`QwenParser.active`), so a turn
the person took back leaves the index; a read with no rewind in it only adds.

Qwen Code's first layout, before those, was Gemini CLI's (it began as a fork of it):
`<home>/tmp/<SHA-256 of the project's path>/chats/session-<time>-<id8>.json`, one JSON
object rewritten in place, its model messages typed `qwen`. Such a chat is read by
Gemini CLI's reader, whole when its content changed, as Gemini CLI's own first layout.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import IO

from findsession.domain import Message, Resume, Session
from findsession.sources import gemini
from findsession.sources.base import Skip, Source, SourceFile
from findsession.sources.cursor import Cursor, Reading, read_whole
from findsession.sources.jsonl import ReadStats, iter_objects, read_appended
from findsession.sources.opening import open_regular
from findsession.sources.qwen_records import QwenParser
from findsession.sources.registry import SourceKind
from findsession.sources.resuming import no_resume, option, resume_in_cwd
from findsession.sources.walking import walk

KIND = SourceKind.QWEN


class QwenSource(Source):
    """Qwen Code's `~/.qwen/projects/*/chats/*.jsonl`, and its first layout's
    `~/.qwen/tmp/*/chats/session-*.json`."""

    kind = KIND
    #: 2: a prompt with `@file` references is what was typed, not the files' content.
    #: 3: a `/branch` copy's `forkedFrom` records are the other session's, not the branch's.
    #: 4: a `/goal` is the goal typed; its "Continue working" nudges are harness.
    reads = 4

    def discover(self, root: Path, skip: Skip) -> Iterator[Path]:
        return discover(root, skip)

    def describe(self, path: Path) -> SourceFile:
        if is_first_layout(path):
            # Its id is the `sessionId` inside; a subagent's chat shares its session's.
            return replace(gemini.describe(path), source=KIND)
        return SourceFile(path=path, source=KIND, session_id=path.name[: -len(".jsonl")])

    def read(self, sf: SourceFile, fh: IO[bytes], cursor: Cursor | None) -> Reading:
        if is_first_layout(sf.path):
            return read_whole(
                fh, cursor, lambda data, problems: gemini.file_records(sf.path, data, problems)
            )
        # Whole, not in slices: a rewind anywhere decides which turns before it count.
        parser = QwenParser()
        reading = read_appended(fh, cursor, parser.parse, glued=True, sliced=False)
        if not reading.fresh and parser.rewound:
            # Turns before the cursor may be off the branch now: read it all again.
            parser = QwenParser()
            reading = read_appended(fh, None, parser.parse, glued=True, sliced=False)
        if reading.fresh and parser.rewound:
            reading.records = parser.active(reading.records)
        return reading

    def title_line(self, sf: SourceFile, title: str) -> bytes | None:
        """None: Qwen Code's title record sits in its record tree (a `uuid` and a parent),
        which is Qwen Code's to extend."""
        return None

    def read_back(self, path: Path, lines: set[int]) -> dict[tuple[int, int], str]:
        if is_first_layout(path):
            return gemini.GeminiSource().read_back(path, lines)
        parser = QwenParser()
        texts: dict[tuple[int, int], str] = {}
        parts: dict[int, int] = {}  # a glued line's objects number their parts on
        with open_regular(str(path)) as fh:
            for number, obj in iter_objects(fh, 0, 0, ReadStats(0, 0), glued=True):
                records = parser.parse(number, obj)
                if number in lines:
                    for rec in records:
                        part = parts[number] = parts.get(number, -1) + 1
                        if isinstance(rec, Message):
                            texts[(number, part)] = rec.text
        return texts

    def resume(self, session: Session) -> Resume:
        """`qwen --resume <id>`, in the session's directory: Qwen Code keeps each
        project's chats apart and looks the id up among those of the directory it is
        started in. A chat of the first layout is not among those: Qwen Code resumes
        only the chats it keeps per project."""
        if session.file_path and is_first_layout(Path(session.file_path)):
            return no_resume(
                "Qwen Code resumes only the chats of its projects folder; this one is "
                "from its first layout (~/.qwen/tmp)"
            )
        return resume_in_cwd(session, "qwen", *option("--resume", session.id))


def is_first_layout(path: Path) -> bool:
    """Whether `path` is a chat of the first layout (`session-*.json`)."""
    return path.name.startswith("session-") and path.name.endswith(".json")


def discover(root: Path, skip: Skip | None = None) -> Iterator[Path]:
    """Every chat under `root`: the `.jsonl` files of `chats/` folders and their
    `archive/`, and the first layout's `session-*.json` in `chats/`. Other folders of a
    project (checkpoints, logs) hold no chats. A file named as a root is read whatever
    its folder. Symlinked folders are not followed."""
    if root.is_file():
        if root.name.endswith(".jsonl") or is_first_layout(root):
            yield root
        return

    for base, _dirs, files in walk(root, skip):
        in_chats = base.name == "chats" or (base.name == "archive" and base.parent.name == "chats")
        if not in_chats:
            continue
        for name in files:
            if name.endswith(".jsonl") or (base.name == "chats" and is_first_layout(Path(name))):
                yield base / name
