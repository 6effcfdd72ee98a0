"""Aider chat histories: where they are, and the `Source` that reads them.

This module, `aider_records` and `aider_replies` are the only code that knows Aider's
format. Aider writes `.aider.chat.history.md` in the project it runs in (the git root),
so there is no one folder to look in: the configured roots are walked for that name,
past the folders no project keeps its history in (`.git`, `node_modules`, virtualenvs,
caches). The file is append-only and holds one session per run; it is read on from the
header of its last session, so a run that grew is read again from its start (its
blocks may have grown), and nothing before it is read twice.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from findsession.domain import Problem, Resume, Session
from findsession.sources.aider_inputs import Run, merged, read_inputs, stamp_in
from findsession.sources.aider_records import HistoryParser, is_header, local_start, session_key
from findsession.sources.base import Skip, Source, SourceFile, store_id, texts_by_line
from findsession.sources.cursor import HEAD, Cursor, Reading, Record, looks_binary
from findsession.sources.jsonl import prefix_hash
from findsession.sources.opening import open_regular
from findsession.sources.places.homes import AIDER_HISTORY as FILE_NAME
from findsession.sources.registry import SourceKind
from findsession.sources.resuming import option, resume_in_cwd
from findsession.sources.walking import walk

KIND = SourceKind.AIDER
#: Lines longer than this are skipped: nothing a person reads is that long.
MAX_LINE_BYTES = 64 * 1024 * 1024
_CHUNK = 1024 * 1024

#: Folders no project keeps its chat history in, and too big to walk.
_HEAVY = frozenset(
    {
        ".git", ".hg", ".svn", "node_modules", "bower_components", "__pycache__",
        ".venv", "venv", ".tox", ".nox", ".mypy_cache", ".pytest_cache", ".ruff_cache",
        ".cache", ".npm", ".yarn", ".pnpm-store", ".gradle", ".m2", ".cargo", ".rustup",
        ".terraform", ".next", ".nuxt", "site-packages", "dist-packages", ".Trash",
    }
)  # fmt: skip
#: A folder holding one of these is a virtualenv or a tagged cache (Cargo's `target/`).
_HEAVY_MARKS = ("pyvenv.cfg", "CACHEDIR.TAG")


class AiderSource(Source):
    """Aider's `.aider.chat.history.md`, found under configured roots."""

    kind = KIND
    #: 2: the lines of a history a Markdown formatter reflowed are prompts again, and
    #: aider's own answers to a group of questions and an architect's reply sent again
    #: without its thinking are not.
    reads = 2

    def discover(self, root: Path, skip: Skip) -> Iterator[Path]:
        return discover(root, skip)

    def changed_file(self, path: Path) -> Path | None:
        """A history by its name, the only file a walk takes (one named otherwise is a
        root of its own): the code an agent writes in a project under the root is
        nothing Aider keeps, and costs no walk."""
        return path if walked_name(path) else None

    def describe(self, path: Path) -> SourceFile:
        return SourceFile(path=path, source=KIND, session_id=file_id(path), sibling_sessions=True)

    def read(self, sf: SourceFile, fh: IO[bytes], cursor: Cursor | None) -> Reading:
        return read_history(fh, cursor, self.project(sf.path))

    def project(self, path: Path) -> str:
        """The project a history belongs to: the folder holding it."""
        return str(path.parent)

    def title_line(self, sf: SourceFile, title: str) -> bytes | None:
        """None: an Aider history is Markdown with no place for a title."""
        return None

    def read_back(self, path: Path, lines: set[int]) -> dict[tuple[int, int], str]:
        with open_regular(str(path)) as fh:
            reading = read_history(fh, None, self.project(path))
        return texts_by_line(reading.records, lines)

    def resume(self, session: Session) -> Resume:
        """`aider --restore-chat-history --chat-history-file <file>`, in the project:
        Aider has no session ids; the nearest it comes is starting with the messages of
        its history file loaded again (the file named, so a history kept elsewhere than
        the default place is the one restored)."""
        history = option("--chat-history-file", session.file_path) if session.file_path else []
        return resume_in_cwd(
            session,
            "aider",
            "--restore-chat-history",
            *history,
            note="Aider keeps no session ids: this restores the messages of the project's"
            " whole chat history file (every run in it, summarised by Aider when long),"
            " not this run alone",
        )


def discover(root: Path, skip: Skip | None = None, name: str = FILE_NAME) -> Iterator[Path]:
    """Every `.aider.chat.history.md` (or `name`, which may be in a folder of the
    project's: `.cecli/chat.history`) under `root`; a file named as a root is taken
    whatever its name: aider's `--chat-history-file`.

    Links to folders are not followed (a loop, or a way out of the root); heavy folders
    are not entered. A folder that cannot be read goes to `skip`.
    """
    if root.is_file():
        yield root
        return

    for folder, dirs, files in walk(root, skip):
        if any(mark in files for mark in _HEAVY_MARKS):
            dirs[:] = []
            continue
        dirs[:] = [d for d in dirs if d not in _HEAVY and not d.startswith(".aider.tags")]
        inside, _, file_name = name.rpartition("/")
        if not inside and file_name in files:
            yield folder / file_name
        elif inside in dirs and (folder / name).is_file():
            yield folder / name


def walked_name(path: Path, name: str = FILE_NAME) -> bool:
    """Whether `path` is named as `discover` finds a history in a folder (`name`, or
    `.cecli/chat.history`'s two parts)."""
    inside, _, file_name = name.rpartition("/")
    return path.name == file_name and (not inside or path.parent.name == inside)


def file_id(path: Path) -> str:
    """The id of a history file: `aider-` and a hash of its path. Its sessions are
    `<file id>:<session key>`, short enough to type and never a path."""
    return store_id("aider", path)


def session_id(path: Path, header: str) -> str:
    """The id of the session a header starts in the history at `path`."""
    return f"{file_id(path)}:{session_key(header)}"


def read_history(
    fh: IO[bytes], cursor: Cursor | None, cwd: str, inputs_at: Path | None = None
) -> Reading:
    """Records from the last session's header on when the file only grew; else all.

    The cursor's offset is the start of the last header read (its records are given
    again, and replace themselves); its state is where the read ended (`end`), and its
    digest covers every byte before that, so an edit anywhere in them reads the file
    again from the start.

    With `inputs_at`, the input history beside it (cecli's), what it holds that the
    history lost is read in as prompts of their runs (`aider_inputs`): its size and
    checksum join the state; one that only grew reads the last run again (inputs come
    in time order, so a new one is of the last run), any other change all of the file.
    The last run read again is then given whole: what it gave before goes (`kept`).
    """
    fh.seek(0)
    head = fh.read(HEAD)
    size = os.fstat(fh.fileno()).st_size
    problems: list[Problem] = []
    inputs = None if inputs_at is None else read_inputs(inputs_at, problems)
    read_to = _resumable(fh, cursor, size)
    was = stamp_in(cursor.state if cursor is not None else None)
    same_inputs = was == ({} if inputs is None else inputs.stamp())
    if read_to is not None and not same_inputs and (inputs is None or not inputs.grew_from(was)):
        read_to = None
    if cursor is not None and read_to == size and same_inputs:
        return Reading([], cursor, fresh=False, unchanged=True)
    fresh = cursor is None or read_to is None
    offset, line = (0, 0) if fresh or cursor is None else (cursor.offset, cursor.lines)
    parser = HistoryParser(cwd)
    records: list[Record] = []
    runs: list[Run] = []
    resume_at, headers = (offset, line), 0
    end, number, lines_read = offset, line, 0
    for number, start, text, length in _lines(fh, offset, line, problems):
        end, lines_read = start + length, lines_read + 1
        if text is None:
            continue
        _add(records, runs, parser, parser.feed(number, text))
        if is_header(text):
            resume_at, headers = (start, number - 1), headers + 1
            runs.append(Run(parser.key, local_start(text), number, len(records), []))
    _add(records, runs, parser, parser.finish())
    if fresh and not headers and looks_binary(head):
        # NUL bytes near the start and no run header: not a history, whatever its name.
        return Reading([], Cursor(), fresh=True, binary="binary: no Aider run header in it")
    state: dict[str, object] = {"end": end}
    if inputs is not None:
        records = merged(records, runs, inputs, cwd)
        state |= inputs.stamp()
    return Reading(
        records,
        Cursor(resume_at[0], resume_at[1], prefix_hash(fh, end), state),
        fresh=fresh,
        bytes_read=end - offset,
        lines_read=lines_read,
        problems=problems,
        kept=None if fresh or inputs_at is None else line,
    )


def _add(records: list[Record], runs: list[Run], parser: HistoryParser, new: list[Record]) -> None:
    """`new` onto `records`, noting the `####` block it is, if it is one, in its run."""
    if parser.typed is not None and runs:
        runs[-1].blocks.append((len(records), parser.typed))
    parser.typed = None
    records += new


def _lines(
    fh: IO[bytes], offset: int, line: int, problems: list[Problem]
) -> Iterator[tuple[int, int, str | None, int]]:
    """`(number, start offset, text, length in bytes)` per line after `offset`; `text` is
    None for a line skipped as a problem. Invalid UTF-8 is replaced, line ends dropped."""
    fh.seek(offset)
    while True:
        raw = fh.readline(MAX_LINE_BYTES + 1)
        if not raw:
            return
        length = len(raw)
        line += 1
        if length > MAX_LINE_BYTES and not raw.endswith(b"\n"):
            while chunk := fh.readline(_CHUNK):
                length += len(chunk)
                if chunk.endswith(b"\n"):
                    break
            problems.append(Problem(line, "line too long", f"{length} bytes"))
            yield line, offset, None, length
        elif b"\x00" in raw:
            preview = raw[:80].decode("utf-8", "replace").replace("\x00", "\ufffd").strip()
            problems.append(Problem(line, "NUL byte in line", preview))
            yield line, offset, None, length
        else:
            yield line, offset, raw.decode("utf-8", "replace").rstrip("\r\n"), length
        offset += length


def _resumable(fh: IO[bytes], cursor: Cursor | None, size: int) -> int | None:
    """How far the last read went, if every byte it read is unchanged; else None."""
    end = cursor.state.get("end") if cursor is not None and cursor.state else None
    if cursor is None or not isinstance(end, int) or not cursor.digest:
        return None
    if end > size or cursor.offset > end or prefix_hash(fh, end) != cursor.digest:
        return None
    return end
