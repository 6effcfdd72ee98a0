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
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import IO

from findsession.domain import Message, Resume, Session
from findsession.sources.base import Skip, Source, SourceFile
from findsession.sources.cursor import Cursor, Reading
from findsession.sources.jsonl import ReadStats, iter_objects, read_appended
from findsession.sources.opening import open_regular
from findsession.sources.qwen_records import QwenParser
from findsession.sources.registry import SourceKind
from findsession.sources.resuming import option, resume_in_cwd
from findsession.sources.walking import env_home, walk

KIND = SourceKind.QWEN


class QwenSource(Source):
    """Qwen Code's `~/.qwen/projects/*/chats/*.jsonl`."""

    kind = KIND

    def default_roots(self) -> list[Path]:
        return [qwen_home() / "projects"]

    def discover(self, root: Path, skip: Skip) -> Iterator[Path]:
        return discover(root, skip)

    def describe(self, path: Path) -> SourceFile:
        return SourceFile(path=path, source=KIND, session_id=path.name[: -len(".jsonl")])

    def read(self, sf: SourceFile, fh: IO[bytes], cursor: Cursor | None) -> Reading:
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
        started in."""
        return resume_in_cwd(session, "qwen", *option("--resume", session.id))


def qwen_home() -> Path:
    """`$QWEN_HOME`, else `~/.qwen`."""
    return env_home("QWEN_HOME", ".qwen")


def discover(root: Path, skip: Skip | None = None) -> Iterator[Path]:
    """Every chat under `root`: the `.jsonl` files of `chats/` folders and their
    `archive/`. Other folders of a project (checkpoints, logs) hold no chats. A file
    named as a root is read whatever its folder. Symlinked folders are not followed."""
    if root.is_file():
        if root.name.endswith(".jsonl"):
            yield root
        return

    for base, _dirs, files in walk(root, skip):
        in_chats = base.name == "chats" or (base.name == "archive" and base.parent.name == "chats")
        if not in_chats:
            continue
        for name in files:
            if name.endswith(".jsonl"):
                yield base / name
