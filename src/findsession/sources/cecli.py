"""cecli chat histories: where they are, and the `Source` that reads them.

cecli (PyPI `cecli-dev`, before that `aider-ce`, "Aider Community Edition") is a fork
of Aider that writes Aider's chat history, line for line, to `.cecli/chat.history` in
the project it runs in (the git root, else the folder it was started in), its header
naming it (`# cecli chat started at …`). Aider's reader reads it (`aider`,
`aider_records`); this module knows only where cecli keeps it, what a session's id
is, and how to go back to it. aider-ce before 0.92 wrote Aider's own file and header,
and is read as Aider.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import IO

from findsession.domain import Resume, Session
from findsession.sources.aider import AiderSource, read_history, walked_name
from findsession.sources.aider import discover as discover_histories
from findsession.sources.aider_records import session_key
from findsession.sources.base import Skip, SourceFile, store_id, texts_by_line
from findsession.sources.cursor import Cursor, Reading
from findsession.sources.opening import open_regular
from findsession.sources.places.homes import CECLI_CHAT_NAME as CHAT_NAME
from findsession.sources.places.homes import CECLI_FOLDER as FOLDER
from findsession.sources.places.homes import CECLI_HISTORY as FILE_NAME
from findsession.sources.registry import SourceKind
from findsession.sources.resuming import resume_in_cwd

KIND = SourceKind.CECLI
#: Where cecli keeps its chat history, from the project's root (cecli/args.py).
#: Where cecli keeps what was typed, beside its chat history (`--input-history-file`).
INPUTS_NAME = "input.history"


class CecliSource(AiderSource):
    """cecli's `.cecli/chat.history`, found under configured roots."""

    kind = KIND
    #: 2: the prompts only `input.history` holds (cecli stopped logging the run) are read.
    reads = 2

    def discover(self, root: Path, skip: Skip) -> Iterator[Path]:
        return discover(root, skip)

    def changed_file(self, path: Path) -> Path | None:
        """A chat history by its name, or the chat history beside an input history that
        changed: an input it gains may be a prompt the chat history lost."""
        if path.name == INPUTS_NAME and path.parent.name == FOLDER:
            return path.with_name(CHAT_NAME)
        return path if walked_name(path, FILE_NAME) else None

    def describe(self, path: Path) -> SourceFile:
        return SourceFile(path=path, source=KIND, session_id=file_id(path), sibling_sessions=True)

    def read(self, sf: SourceFile, fh: IO[bytes], cursor: Cursor | None) -> Reading:
        return read_history(fh, cursor, self.project(sf.path), inputs_beside(sf.path))

    def read_back(self, path: Path, lines: set[int]) -> dict[tuple[int, int], str]:
        with open_regular(str(path)) as fh:
            reading = read_history(fh, None, self.project(path), inputs_beside(path))
        return texts_by_line(reading.records, lines)

    def stamp_paths(self, path: Path) -> list[str]:
        """The input history beside it: an input it gains is a prompt the chat history
        may have lost."""
        inputs = inputs_beside(path)
        return [] if inputs is None else [str(inputs)]

    def project(self, path: Path) -> str:
        """The folder `.cecli/` is in (a history named elsewhere: the folder holding it)."""
        folder = path.parent
        return str(folder.parent if folder.name == FOLDER else folder)

    def resume(self, session: Session) -> Resume:
        """`cecli --auto-load`, in the project: cecli keeps no session ids and, since
        0.96, no way to load its chat history again (`--restore-chat-history` is gone);
        what it loads is the session it saved last (`--auto-save`)."""
        return resume_in_cwd(
            session,
            "cecli",
            "--auto-load",
            note="cecli keeps no session ids and cannot load its chat history again: this"
            " loads the session it saved last in the project (with --auto-save), which may"
            " not be this run",
        )


def inputs_beside(path: Path) -> Path | None:
    """`input.history` beside a `chat.history` (where cecli keeps both, cecli/args.py);
    None for a history named otherwise, whose inputs may be kept anywhere."""
    return path.with_name(INPUTS_NAME) if path.name == CHAT_NAME else None


def discover(root: Path, skip: Skip | None = None) -> Iterator[Path]:
    """Every `.cecli/chat.history` under `root` (a file named as a root is taken
    whatever its name: cecli's `--chat-history-file`)."""
    return discover_histories(root, skip, FILE_NAME)


def file_id(path: Path) -> str:
    """`cecli-` and a hash of the history's path; its sessions are `<file id>:<key>`."""
    return store_id("cecli", path)


def session_id(path: Path, header: str) -> str:
    """The id of the session a header starts in the history at `path`."""
    return f"{file_id(path)}:{session_key(header)}"
