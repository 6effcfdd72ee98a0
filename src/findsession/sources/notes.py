"""What the note sources (Markdown docs, journals, agent memory) share: finding notes,
reading one whole when its content changed, and turning its parts into records.

A note is a "session" of its own (`md-`/`jr-`/`mem-` and a hash of its path: short,
stable, never a path), each part of it a `SECTION` message carrying where it sits in the
document, and its title a `CUSTOM_TITLE` event. Notes are rewritten in place, so they
use the content-hash cursor: an unchanged note costs a stat, a changed one is read
whole again. A subclass decides where a note is cut (`entries`), whose project it is
(`project`) and which files it reads (`discover`).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, cast

from findsession.domain import Message, MessageKind, MetaEvent, MetaKind, Problem, Resume, Session
from findsession.sources.base import Skip, Source, SourceFile
from findsession.sources.cursor import Cursor, Reading, Record, read_whole
from findsession.sources.jsonl import cap, clean_text
from findsession.sources.notes_dates import iso
from findsession.sources.notes_parse import Note, decode, heading_path, parse_note, span_text, spans
from findsession.sources.opening import open_regular
from findsession.sources.places.projects import SPECSTORY_FOLDER
from findsession.sources.resuming import no_resume
from findsession.sources.walking import walk

#: Past this a note is indexed in part (and a problem says so): nobody's note is that
#: long, and a parser in pure Python should not spend a minute on one file.
MAX_NOTE_BYTES = 8 << 20
#: Per section, like a typed prompt in a transcript: search needs its start.
SECTION_CAP = 100_000
#: Sections past this many are left out (and a problem says so): a generated file, not
#: a note, and each section costs a unit.
MAX_SECTIONS = 2_000
SUFFIXES = (".md", ".markdown")
#: Folders that hold other people's Markdown, not the user's notes.
_SKIP_DIRS = frozenset({"node_modules"})


@dataclass(frozen=True, slots=True)
class Entry:
    """One searchable part of a note: its first line (1-based), heading path, text as
    written and time (UTC `YYYY-MM-DDTHH:MM:SSZ`)."""

    line: int
    heading: str
    text: str
    timestamp: str | None


def note_id(prefix: str, path: Path) -> str:
    """`prefix` and 12 hex digits of the absolute path's hash."""
    key = os.path.abspath(path).encode("utf-8", "surrogateescape")
    return prefix + hashlib.blake2b(key, digest_size=6).hexdigest()


def is_note(name: str) -> bool:
    """A Markdown file that is not hidden (`.aider.chat.history.md` is a transcript)."""
    return not name.startswith(".") and name.lower().endswith(SUFFIXES)


def storable(path: Path, skip: Skip) -> bool:
    """Whether the index can hold the path: a name that is not UTF-8 (from an old system
    or another machine) cannot be stored, so it is skipped, named printably."""
    try:
        str(path).encode("utf-8")
    except UnicodeEncodeError:
        skip(Path(clean_text(str(path))), "the file name is not valid UTF-8; not read")
        return False
    return True


def walk_notes(root: Path, skip: Skip) -> Iterator[Path]:
    """Every note under `root` in name order, hidden folders and `node_modules` left out;
    links to folders are not followed (a loop must not hang the walk). A root inside a
    `.specstory` folder is left out, saying why: SpecStory's chat exports are sessions,
    which the specstory source reads (under a larger root the hidden folder is passed
    over like any other)."""
    if SPECSTORY_FOLDER in Path(os.path.abspath(root)).parts:
        skip(root, "SpecStory chat exports: read by the specstory source, not as notes")
        return
    if root.is_file():
        if is_note(root.name) and storable(root, skip):
            yield root
        return

    for base, dirs, files in walk(root, skip):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d not in _SKIP_DIRS]
        for name in files:
            if is_note(name) and storable(base / name, skip):
                yield base / name


class NoteSource(Source):
    """A `Source` of Markdown notes; subclasses set `kind` and `prefix`.

    The folder a note was found under is its project directory, so `--project ~/notes`
    scopes a search to the notes configured there.
    """

    kind: str = ""
    prefix: str = ""
    #: What one note is called in a sentence ("a Markdown document").
    noun: str = "note"

    def __init__(self) -> None:
        # The root each note was found under, remembered from `discover` (which always
        # runs before `read` in an index run): `read` is given the file alone.
        self._roots: dict[str, str] = {}

    def discover(self, root: Path, skip: Skip) -> Iterator[Path]:
        folder = os.path.abspath(root if root.is_dir() else root.parent)
        for path in walk_notes(root, skip):
            self._roots[str(path)] = folder
            yield path

    def describe(self, path: Path) -> SourceFile:
        return SourceFile(path=path, source=self.kind, session_id=note_id(self.prefix, path))

    def read(self, sf: SourceFile, fh: IO[bytes], cursor: Cursor | None) -> Reading:
        mtime = os.fstat(fh.fileno()).st_mtime
        cwd = self.project(sf.path)
        return read_whole(
            cast(IO[bytes], _Head(fh)),
            cursor,
            lambda data, problems: self.records(sf.path, data, problems, mtime, cwd),
        )

    def resume(self, session: Session) -> Resume:
        """No command: a note is a document a person edits, not an agent's conversation."""
        return no_resume(
            f"a {self.noun} is not an agent's session: there is no conversation to go back"
            " into; open the file itself"
        )

    def title_line(self, sf: SourceFile, title: str) -> bytes | None:
        """None: a note's title is its own heading or front matter, the person's to edit."""
        return None

    def read_back(self, path: Path, lines: set[int]) -> dict[tuple[int, int], str]:
        with open_regular(str(path)) as fh:
            data = fh.read(MAX_NOTE_BYTES + 1)
        return {
            (rec.line, 0): rec.text
            for rec in self.records(path, data, [], 0.0, None)
            if isinstance(rec, Message) and rec.line in lines
        }

    def records(
        self, path: Path, data: bytes, problems: list[Problem], mtime: float, cwd: str | None
    ) -> list[Record]:
        """The note's title event and one `SECTION` message per entry; none for a binary
        file (the indexer then skips it, saying why)."""
        if len(data) > MAX_NOTE_BYTES:
            problems.append(
                Problem(0, "note too large", f"only its first {MAX_NOTE_BYTES >> 20} MB indexed")
            )
            data = data[:MAX_NOTE_BYTES]
        text = decode(data)
        if text is None:
            return []
        note = parse_note(text, problems)
        entries = self.entries(path, note, _modified(mtime))
        if not entries:
            return []
        if len(entries) > MAX_SECTIONS:
            problems.append(
                Problem(entries[MAX_SECTIONS].line, "too many sections", f"{len(entries):,}")
            )
            entries = entries[:MAX_SECTIONS]
        title, title_line = self.title(path, note, cwd)
        out: list[Record] = [MetaEvent(MetaKind.CUSTOM_TITLE, title, title_line)]
        # Tags and description stay searchable, with the first entry; the raw front
        # matter block is never indexed.
        extra = note.front.searchable()
        for n, entry in enumerate(entries):
            body = f"{extra}\n\n{entry.text}" if n == 0 and extra else entry.text
            out.append(
                Message(
                    MessageKind.SECTION,
                    cap(body, SECTION_CAP),
                    entry.line,
                    timestamp=entry.timestamp,
                    cwd=cwd,
                    heading=entry.heading,
                )
            )
        return out

    def entries(self, path: Path, note: Note, modified: str) -> list[Entry]:
        """A document's parts: one per `##` section (and per `#` after the first), the
        text before the first of them one more if it holds more than the title. Dated
        by the front matter's `date`, else the file's modification time."""
        cuts = [h for h in note.headings if h.level <= 2]
        out = []
        for span in spans(note, cuts):
            line, text = span_text(note, span)
            when = note.front.date or modified
            out.append(Entry(line, heading_path(path.name, note, span), text, when))
        return out

    def project(self, path: Path) -> str | None:
        """The project directory of a note: the root it was found under."""
        return self._roots.get(str(path)) or os.path.abspath(path.parent)

    def title(self, path: Path, note: Note, cwd: str | None) -> tuple[str, int]:
        """The front matter's title, else the first `#` heading, else the file name; with
        the line it came from (0: the file name)."""
        if note.front.title:
            return note.front.title, 1
        heading = note.first_title()
        if heading is not None:
            return heading.text, heading.start + 1
        return path.name, 0


def _modified(mtime: float) -> str:
    """The file's modification time as UTC text; the epoch for one beyond the calendar."""
    try:
        return iso(datetime.fromtimestamp(mtime, UTC))
    except (OverflowError, OSError, ValueError):
        return iso(datetime.fromtimestamp(0, UTC))


class _Head:
    """The start of a file for `read_whole`: one byte past the cap, so a note that is
    too large is known to be and indexed in part instead of loaded whole."""

    def __init__(self, fh: IO[bytes]) -> None:
        self.fh = fh

    def seek(self, offset: int) -> int:
        return self.fh.seek(offset)

    def read(self) -> bytes:
        return self.fh.read(MAX_NOTE_BYTES + 1)
