"""VS Code's Copilot Chat sessions: where they are, what a file is, and the `Source` that
reads them.

This module, `vscode_copilot_log` (the operation log replayed) and
`vscode_copilot_records` (the state → records) are the only code that knows the
format. VS Code keeps a chat of a window with a folder open in
`<User>/workspaceStorage/<hash>/chatSessions/<session id>.jsonl` (`.json` before VS
Code 1.109; where both exist the `.jsonl` is the live one), and a chat of an empty
window in `<User>/globalStorage/emptyWindowChatSessions/`. `<User>` is
`~/.config/Code/User` on Linux (`$XDG_CONFIG_HOME` if set), `~/Library/Application
Support/Code/User` on macOS and `%APPDATA%\\Code\\User` on Windows, and the same with
`Code - Insiders`. The project directory is the folder `<hash>/workspace.json` names.

Every change of a session file reads it whole (`cursor.read_whole`): a log line can
change any earlier request, and VS Code compacts the log into one snapshot now and then.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from findsession.domain import Message, MetaEvent, Problem, Resume, Session
from findsession.sources.base import Skip, Source, SourceFile, texts_by_line
from findsession.sources.cursor import Cursor, Reading, read_whole
from findsession.sources.opening import open_regular
from findsession.sources.places.editors import EMPTY_WINDOW
from findsession.sources.registry import SourceKind
from findsession.sources.resuming import no_resume
from findsession.sources.vscode_copilot_log import load_json, replay
from findsession.sources.vscode_copilot_records import session_records, uri_path
from findsession.sources.walking import walk

KIND = SourceKind.VSCODE_COPILOT
SESSIONS = "chatSessions"


class VSCodeCopilotSource(Source):
    """VS Code's `workspaceStorage/*/chatSessions/` and `emptyWindowChatSessions/`."""

    kind = KIND
    #: 2: an exported chat takes its folder from its replies' `baseUri`.
    #: 3: a second edit of one file in one request is kept (it was taken for a repeat).
    reads = 3

    def discover(self, root: Path, skip: Skip) -> Iterator[Path]:
        return discover(root, skip)

    def describe(self, path: Path) -> SourceFile:
        return SourceFile(path=path, source=KIND, session_id=path.stem)

    def read(self, sf: SourceFile, fh: IO[bytes], cursor: Cursor | None) -> Reading:
        cwd = project_dir(sf.path)
        return read_whole(
            fh, cursor, lambda data, problems: file_records(sf.path, data, problems, cwd)
        )

    def title_line(self, sf: SourceFile, title: str) -> bytes | None:
        """None: VS Code writes its session files, findsession never does."""
        return None

    def read_back(self, path: Path, lines: set[int]) -> dict[tuple[int, int], str]:
        """Each wanted message as the session resolves it now, numbered as `read` did."""
        with open_regular(str(path)) as fh:
            data = fh.read()
        return texts_by_line(file_records(path, data, [], None), lines)

    def resume(self, session: Session) -> Resume:
        """None: VS Code has no command that opens a chat session by its id (its `code
        chat` starts a new one); the session is in the chat view's history."""
        return no_resume(
            "VS Code has no command that opens a chat session by its id: open the folder"
            " in VS Code and pick the session from the chat view's history"
        )


def file_records(
    path: Path, data: bytes, problems: list[Problem], cwd: str | None
) -> list[Message | MetaEvent]:
    """The records of a whole session file; `HalfWritten` when it holds no state yet."""
    state = replay(data, problems) if path.suffix == ".jsonl" else load_json(data)
    return session_records(state, cwd)


def discover(root: Path, skip: Skip | None = None) -> Iterator[Path]:
    """Every session file under `root`: in `chatSessions/` and `emptyWindowChatSessions/`
    folders, a `.json` only where no `.jsonl` twin sits beside it. A `User` folder named
    as a root is read through its two places; symlinked folders are not followed."""
    if root.is_file():
        if root.suffix in (".json", ".jsonl"):
            yield root
        return
    if root.name == "User" and (root / "workspaceStorage").is_dir():
        tops = [root / "workspaceStorage", root / "globalStorage" / EMPTY_WINDOW]
    else:
        tops = [root]

    for top in tops:
        for base, dirs, files in walk(top, skip):
            if base.name in (SESSIONS, EMPTY_WINDOW):
                dirs[:] = []
                names = set(files)
                for name in files:
                    if name.endswith(".jsonl") or (
                        name.endswith(".json") and name + "l" not in names
                    ):
                        yield base / name
                continue
            # A storage folder holds many other folders: walk only towards chat sessions.
            dirs[:] = sorted(d for d in dirs if d in (SESSIONS, EMPTY_WINDOW) or base == top)


def project_dir(path: Path) -> str | None:
    """The folder the session's workspace opened (`workspace.json` beside its
    `chatSessions`): `folder`, else the folder holding the `workspace` file; None for an
    empty window or a folder that is not on this machine's disk."""
    if path.parent.name != SESSIONS:
        return None
    try:
        with open_regular(str(path.parent.parent / "workspace.json")) as fh:
            manifest = json.loads(fh.read(1 << 20).decode("utf-8", "replace"))
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(manifest, dict):
        return None
    folder = uri_path(manifest.get("folder"))
    if folder:
        return folder
    workspace = uri_path(manifest.get("workspace"))
    return str(Path(workspace).parent) if workspace else None
