"""Agent memory: the instructions and notes agents keep per project, as notes of it.

Two kinds of files, each read as a document (one unit per `##` section):

- Claude Code's auto-memory notes, `$CLAUDE_CONFIG_DIR` (default `~/.claude`)
  `/projects/<folder>/memory/*.md`, and its `CLAUDE.md` for every project: found with
  no configuration. `<folder>` encodes the project's path with loss, so it is never
  decoded: the project is the `originalPath` of the folder's `sessions-index.json`,
  else the `cwd` the folder's own sessions record.
- `CLAUDE.md`, `AGENTS.md` and `GEMINI.md` at the top of a project folder given as a
  root of this source; the folder is their project.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from findsession.sources.base import Skip
from findsession.sources.notes import NoteSource, is_note, storable
from findsession.sources.notes_parse import Note
from findsession.sources.opening import open_regular
from findsession.sources.places.homes import claude_home
from findsession.sources.registry import SourceKind

#: The instruction files agents read at the top of a project.
PROJECT_FILES = ("CLAUDE.md", "AGENTS.md", "GEMINI.md")
#: A Claude Code project folder: the path with every non-alphanumeric as `-`, so it
#: starts with `-` (from `/`) or a drive letter and `--` (from `C:\`).
_PROJECT_FOLDER = re.compile(r"^(?:-|[A-Za-z]--)")
#: How much of a project's sessions is read to find its `cwd`.
_SESSION_FILES = 3
_SESSION_LINES = 50
_LINE_BYTES = 1 << 20


class MemorySource(NoteSource):
    """Agents' memory notes: Claude Code's per-project notes, and projects' CLAUDE.md,
    AGENTS.md and GEMINI.md."""

    kind = SourceKind.MEMORY
    prefix = "mem-"
    noun = "memory note"

    def __init__(self) -> None:
        super().__init__()
        self._projects: dict[str, str | None] = {}

    def discover(self, root: Path, skip: Skip) -> Iterator[Path]:
        """The project files at `root`'s top, and the notes of every `memory/` folder of
        Claude Code's project folders under `root` or `root/projects` (or of the project
        folder or `memory/` folder given)."""
        if root.is_file():
            if is_note(root.name) and storable(root, skip):
                yield root
            return
        for name in PROJECT_FILES:
            if os.path.lexists(root / name):
                yield root / name
        folders = []
        if root.name == "memory":
            folders.append(root)
        elif _PROJECT_FOLDER.match(root.name):
            folders.append(root / "memory")
        else:
            for base in (root, root / "projects"):
                try:
                    children = sorted(e.name for e in os.scandir(base) if e.is_dir())
                except FileNotFoundError:
                    continue
                except OSError as exc:
                    skip(base, f"cannot read the folder: {exc.strerror or exc}")
                    continue
                folders += [base / c / "memory" for c in children if _PROJECT_FOLDER.match(c)]
        for folder in folders:
            try:
                names = sorted(e.name for e in os.scandir(folder) if is_note(e.name))
            except FileNotFoundError:
                continue
            except OSError as exc:
                skip(folder, f"cannot read the folder: {exc.strerror or exc}")
                continue
            yield from (folder / n for n in names if storable(folder / n, skip))

    def project(self, path: Path) -> str | None:
        if os.path.abspath(path.parent) == os.path.abspath(claude_home()):
            return None  # Claude Code's own CLAUDE.md: every project's
        if path.parent.name != "memory":  # a project's own file: the folder it is in
            return os.path.abspath(path.parent)
        folder = str(path.parent.parent)
        if folder not in self._projects:
            self._projects[folder] = _recorded_project(Path(folder))
        return self._projects[folder]

    def title(self, path: Path, note: Note, cwd: str | None) -> tuple[str, int]:
        """As a document's; a bare file name (`MEMORY.md`) is followed by the project's
        name, which says more than the name every project's file shares."""
        title, line = super().title(path, note, cwd)
        if line == 0 and cwd:
            name = os.path.basename(cwd.rstrip("/\\")) or cwd
            title = f"{title} ({name})"
        return title, line


def _recorded_project(folder: Path) -> str | None:
    """The project a Claude Code project folder belongs to, as its own files record it:
    `sessions-index.json`'s `originalPath` (or an entry's `projectPath`), else the first
    `cwd` in its newest sessions; None when neither says (the sessions were cleaned up)."""
    index = _json_file(folder / "sessions-index.json")
    if isinstance(index, dict):
        found = _path_value(index.get("originalPath"))
        entries = index.get("entries")
        for entry in entries if isinstance(entries, list) else []:
            if not found and isinstance(entry, dict):
                found = _path_value(entry.get("projectPath"))
        if found:
            return found
    try:
        sessions = [e for e in os.scandir(folder) if e.name.endswith(".jsonl") and e.is_file()]
        sessions.sort(key=lambda e: e.stat().st_mtime, reverse=True)
    except OSError:
        return None
    for entry in sessions[:_SESSION_FILES]:
        found = _first_cwd(Path(entry.path))
        if found:
            return found
    return None


def _first_cwd(path: Path) -> str | None:
    try:
        with open_regular(str(path)) as fh:
            for _ in range(_SESSION_LINES):
                line = fh.readline(_LINE_BYTES)
                if not line:
                    break
                if b'"cwd"' not in line:
                    continue
                try:
                    obj = json.loads(line.decode("utf-8", "replace"))
                except (ValueError, RecursionError):
                    continue
                if isinstance(obj, dict) and (cwd := _path_value(obj.get("cwd"))):
                    return cwd
    except OSError:
        return None
    return None


def _json_file(path: Path) -> Any:
    try:
        with open_regular(str(path)) as fh:
            return json.loads(fh.read(16 << 20).decode("utf-8", "replace"))
    except (OSError, ValueError, RecursionError):
        return None


def _path_value(value: Any) -> str | None:
    if isinstance(value, str) and value.strip() and "\x00" not in value and len(value) < 4096:
        return value.strip().rstrip("/\\") or value.strip()
    return None
