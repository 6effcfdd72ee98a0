"""avante.nvim's chat histories: where they are, and the `Source` that reads them.

avante.nvim (a coding agent inside Neovim) keeps its chats under its storage folder,
`history.storage_path` of its setup, by default `avante` in Neovim's state folder
(`stdpath("state")`: `$XDG_STATE_HOME/$NVIM_APPNAME`, else `~/.local/state/nvim`, on
Linux and macOS; `%LOCALAPPDATA%\\nvim-data` on Windows). Since March 2025 each project has
a folder `projects/<root>/history/`, `<root>` the project's root folder with each `/`
written `__` and any other character but letters, digits, `.` and `_` written `_`. It
holds one `<n>.json` per chat (numbered from the files already there) and
`metadata.json`, `{project_root, latest_filename}`: the project's folder as it is,
which the folder's name gives only as far as that spelling allows. Before, each
project's single chat was `<root>.json` in the storage folder itself (a list of
entries); the first releases named it after the file being edited instead. The chat
documents are read by `avante_records`; each is written again whole at every save, so it
is read whole when its content changed (`json_doc`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from findsession.domain import Problem, Resume, Session
from findsession.sources.avante_records import document_records
from findsession.sources.base import Skip, Source, SourceFile, texts_by_line
from findsession.sources.cursor import Cursor, Reading, Record
from findsession.sources.json_doc import load_or_none, read_document, side_object
from findsession.sources.opening import open_regular
from findsession.sources.registry import SourceKind
from findsession.sources.resuming import resume_in_cwd
from findsession.sources.walking import walk

KIND = SourceKind.AVANTE
METADATA = "metadata.json"
_NOTE = "In Neovim, open avante's chat list (:AvanteHistory) and pick the chat by its title."


class AvanteSource(Source):
    """avante.nvim's `projects/<root>/history/<n>.json` (and its older `<root>.json`)."""

    kind = KIND

    def discover(self, root: Path, skip: Skip) -> Iterator[Path]:
        """Each chat document under `root` (the storage folder, a project's folder or
        one file): a `.json` in a `history` folder, or directly in the storage folder
        (the older single chat of a project), never `metadata.json`."""
        if root.is_file():
            if _chat_name(root.name):
                yield root
            return
        for folder, _dirs, names in walk(root, skip):
            if folder == root or folder.name == "history":
                yield from (folder / name for name in names if _chat_name(name))

    def describe(self, path: Path) -> SourceFile:
        """A chat's id: its project folder's name (hashed: it is a long path) and its
        number, as avante's numbers restart in each project."""
        if path.parent.name == "history":
            project = path.parent.parent.name
            return SourceFile(path=path, source=KIND, session_id=_chat_id(project, path.stem))
        return SourceFile(path=path, source=KIND, session_id=_chat_id(path.stem, None))

    def read(self, sf: SourceFile, fh: IO[bytes], cursor: Cursor | None) -> Reading:
        cwd = project_folder(sf.path)
        return read_document(fh, cursor, lambda doc, found: _records(doc, found, cwd))

    def read_back(self, path: Path, lines: set[int]) -> dict[tuple[int, int], str]:
        with open_regular(str(path)) as fh:
            doc = load_or_none(fh.read())
        records = _records(doc, [], project_folder(path)) if doc is not None else []
        return texts_by_line(records, lines)

    def resume(self, session: Session) -> Resume:
        """Neovim in the chat's project: avante has no command line that opens a chat,
        its list (`:AvanteHistory`) does."""
        return resume_in_cwd(session, "nvim", note=_NOTE)

    def title_line(self, sf: SourceFile, title: str) -> bytes | None:
        """None: the title is a field of the chat's document, which avante writes again
        whole; a line appended would break it."""
        return None

    def changed_file(self, path: Path) -> Path | None:
        """A chat document; a project's `metadata.json` changes with every save and
        names no chat."""
        return path if _chat_name(path.name) else None


def project_folder(path: Path) -> str | None:
    """The project a chat file belongs to: `metadata.json`'s `project_root` beside it,
    else its folder's name spelled back (`__` to `/`; what avante wrote as `_` for
    another character stays `_`)."""
    if path.parent.name == "history":
        named = side_object(path.parent / METADATA).get("project_root")
        if isinstance(named, str) and named.strip():
            return named
        return _spelled_back(path.parent.parent.name)
    return _spelled_back(path.stem)


def _records(doc: Any, problems: list[Problem], cwd: str | None) -> list[Record]:
    return document_records(doc, problems, cwd)


def _chat_name(name: str) -> bool:
    return name.endswith(".json") and name != METADATA


def _chat_id(project: str, number: str | None) -> str:
    digest = hashlib.blake2b(project.encode(), digest_size=4).hexdigest()
    return f"avante-{digest}" + (f"-{number}" if number is not None else "")


def _spelled_back(name: str) -> str | None:
    """`__home__dev__site` as `/home/dev/site`; None for a name no path gave."""
    if name.startswith("__"):
        return name.replace("__", "/")
    if len(name) > 3 and name[0].isalpha() and name[1:4] == "___":  # `C:\` on Windows
        return name[0] + ":\\" + name[4:].replace("__", "\\")
    return None
