"""The Cursor IDE's chats, and Windsurf's older chat panel: where their databases are,
what a database is, and the `Source`s that read them.

Both editors are VS Code forks that keep their state in SQLite files named
`state.vscdb`: one for the editor (`<User>/globalStorage/state.vscdb`) and one per
workspace (`<User>/workspaceStorage/<id>/state.vscdb`, beside a `workspace.json` that
names the folder). `<User>` is `~/.config/<App>/User` on Linux (`$XDG_CONFIG_HOME` if
set), `~/Library/Application Support/<App>/User` on macOS and `%APPDATA%\\<App>\\User` on
Windows. Current Cursor keeps every chat ("composer") in the editor's database;
older builds kept them, and the chat panel before Composer, in each workspace's
(`cursor_ide_layouts`). Windsurf's Cascade history is encrypted
(`~/.codeium/windsurf/cascade/*.pb`) and is not read; its older chat panel is, by the
same code as Cursor's.

One database holds many chats, so a database is a file of sibling sessions: each chat
is indexed as `<file id>:<its id>` and read again only when its change token moved
(`cursor_ide_store`). Neither editor has a command that opens a chat by its id.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path
from typing import IO, Any

from findsession.domain import Resume, Session
from findsession.sources import foreign_db
from findsession.sources.base import Skip, Source, SourceFile, store_id
from findsession.sources.cursor import Cursor, Reading
from findsession.sources.cursor_ide_records import workspace_dir, workspace_id
from findsession.sources.cursor_ide_store import Folder, read_back, read_store
from findsession.sources.opening import open_regular
from findsession.sources.places.common import GLOBAL, WORKSPACES
from findsession.sources.registry import SourceKind
from findsession.sources.resuming import no_resume
from findsession.sources.vscode_copilot_records import uri_path

DB = "state.vscdb"


class _StateDbSource(Source):
    """What Cursor and Windsurf share: the `state.vscdb` files of one editor."""

    kind: str
    app: str  # the editor's folder name under the user's config folder
    agent: str  # the editor's own name for itself in message ids
    companions = foreign_db.COMPANIONS
    #: 2: a message kept only as the editor's saved state (`initText`) reads as its text.
    reads = 2

    def discover(self, root: Path, skip: Skip) -> Iterator[Path]:
        return discover(root, skip)

    def describe(self, path: Path) -> SourceFile:
        return SourceFile(
            path, self.kind, session_id=file_id(self.kind, path), sibling_sessions=True
        )

    def read(self, sf: SourceFile, fh: IO[bytes], cursor: Cursor | None) -> Reading:
        """The chats that changed since `cursor`; `fh` (the database file) is not parsed."""
        return read_store(sf.path, cursor, self.agent, folder_for(sf.path))

    def read_back(self, path: Path, lines: set[int]) -> dict[tuple[int, int], str]:
        return read_back(path, lines, self.agent, folder_for(path))

    def title_line(self, sf: SourceFile, title: str) -> bytes | None:
        """None: the editor keeps titles in its database, which findsession never writes."""
        return None

    def resume(self, session: Session) -> Resume:
        return no_resume(
            f"{self.app} has no command that opens a chat by its id: open the folder in"
            f" {self.app} and pick the chat from its chat history"
        )


class CursorIdeSource(_StateDbSource):
    """The Cursor IDE's composers and chats."""

    kind = SourceKind.CURSOR
    app = "Cursor"
    agent = "cursor"


class WindsurfSource(_StateDbSource):
    """Windsurf's older chat panel; its Cascade history is encrypted and not read."""

    kind = SourceKind.WINDSURF
    app = "Windsurf"
    agent = "windsurf"

    def report_notes(self) -> list[str]:
        """One line for `findsession sources` when Cascade's history is on this machine."""
        cascade = Path.home() / ".codeium" / "windsurf" / "cascade"
        if not cascade.is_dir():
            return []
        return [
            "Cascade history (~/.codeium/windsurf/cascade) is encrypted: only the older"
            " chat panel is read"
        ]


def file_id(kind: str, path: Path) -> str:
    """The id of a database: its kind and a hash of its path. Its chats are
    `<file id>:<chat id>`, short enough to type and never a path."""
    return store_id(kind, path)


def discover(root: Path, skip: Skip | None = None) -> Iterator[Path]:
    """Every `state.vscdb` under `root`: a database named itself (any `*.vscdb`); a
    `User` folder's two places; `globalStorage`'s own database; any other folder's own
    and each of its subfolders' (`workspaceStorage/<id>/`). A backup beside a database
    (`state.vscdb.backup`) is not read; symlinked folders are not followed."""
    if root.is_file():
        if root.suffix == ".vscdb":
            yield root
        return
    user = (root / GLOBAL).is_dir() or (root / WORKSPACES).is_dir()
    tops = [root / GLOBAL, root / WORKSPACES] if user else [root]
    for top in tops:
        if (top / DB).is_file():
            yield top / DB
        if top.name == GLOBAL or not top.is_dir():
            continue  # globalStorage's subfolders are extensions' storage
        try:
            with os.scandir(top) as listing:
                folders = sorted(e.name for e in listing if e.is_dir(follow_symlinks=False))
        except OSError as exc:
            if skip is not None and top.exists():
                skip(top, f"cannot read the folder: {exc.strerror or exc}")
            continue
        for name in folders:
            if (top / name / DB).is_file():
                yield top / name / DB


def folder_for(path: Path) -> Folder:
    """How a chat of the database at `path` finds its project folder: its own
    workspace's URI, else the workspace storage its id names (beside the editor's
    database), else the workspace the database itself belongs to."""
    own = workspace_folder(str(path.parent)) if path.parent.parent.name == WORKSPACES else None
    storage = path.parent.parent / WORKSPACES

    def folder(data: dict[str, Any]) -> str | None:
        found = workspace_dir(data)
        wid = None if found else workspace_id(data)
        if wid is not None:
            found = workspace_folder(str(storage / wid))
        return found or own

    return folder


@lru_cache(maxsize=512)
def workspace_folder(storage: str) -> str | None:
    """The folder a workspace storage's `workspace.json` names (`folder`, else the
    folder holding its `workspace` file); None when it names none."""
    try:
        with open_regular(str(Path(storage) / "workspace.json")) as fh:
            manifest = json.loads(fh.read(1 << 20).decode("utf-8", "replace"))
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(manifest, dict):
        return None
    found = uri_path(manifest.get("folder"))
    if found:
        return found
    workspace = uri_path(manifest.get("workspace"))
    return str(Path(workspace).parent) if workspace else None
