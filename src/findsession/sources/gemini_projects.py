"""Which project folder a Gemini CLI chat belongs to.

Chats live in `<gemini home>/tmp/<project>/chats/`, and no message names its working
folder. `<project>` was the SHA-256 of the project's path in older builds and is a
short slug (`my-app`, `my-app-1`) in newer ones; the path is found, in this order, in
the slug folder's `.project_root` marker, in `projects.json` (`{"projects": {path:
slug}}`), or as the path whose SHA-256 is the folder's name or the chat's `projectHash`
among the paths `projects.json` and `trustedFolders.json` name. A chat of a project
known to none of them has no project folder, rather than a guessed one.

On Windows the marker and `projects.json` hold the path lower-cased (the CLI's key for
comparing paths), while `trustedFolders.json` (and so the hashed folder's name) keeps
the person's spelling: one project would be two, `c:\\users\\me\\app` for the newer
chats and `C:\\Users\\Me\\App` for the older. A Windows path names the same folder in
any case, so the spelling of `trustedFolders.json` wins: it is the folder as the person
opened it (the spelling other agents record too), and the same for every chat of the
project. A chat's own `directories` do not decide it: only some chats (a subagent's)
carry them, so the project would again be split. The lowered path stays when no other
name of the folder spells it.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path
from typing import Any

from findsession.projects import is_windows_path
from findsession.sources.names import entry_name
from findsession.sources.opening import open_regular

_MAX_BYTES = 4 * 1024 * 1024
_HASH = re.compile(r"^[0-9a-f]{64}$")
#: Line comments, which `trustedFolders.json` may hold (the CLI strips them too).
_COMMENT = re.compile(r'^\s*//.*$|("(?:[^"\\]|\\.)*")|//[^\n]*', re.M)


def project_dir(chat: Path, project_hash: str | None) -> str | None:
    """The project folder of the chat file at `chat`, when the Gemini home tells it."""
    chats = next((p for p in chat.parents if p.name == "chats"), None)
    if chats is None:
        return None
    folder = chats.parent
    home = folder.parent.parent  # <gemini home>/tmp/<project>
    registry = _json(home / "projects.json")
    projects = registry.get("projects") if isinstance(registry, dict) else None
    projects = projects if isinstance(projects, dict) else {}
    trusted = [_json(home / "trustedFolders.json")]
    if os.environ.get("GEMINI_CLI_TRUSTED_FOLDERS_PATH"):
        trusted.append(_json(Path(os.environ["GEMINI_CLI_TRUSTED_FOLDERS_PATH"])))
    known = [p for p in projects if isinstance(p, str)]
    known += [p for t in trusted if isinstance(t, dict) for p in t if isinstance(p, str)]

    found = _named(folder, project_hash, projects, known)
    return _as_spelled(found, known) if found else None


def twin_folder(folder: Path) -> Path | None:
    """The other folder `tmp/` keeps the same project's chats in, if the Gemini home
    names it: the slug folder (`projects.json`) of a folder named by the path's SHA-256,
    or the hashed folder of a slug folder. Newer CLIs moved a project's chats from the
    first to the second, so one chat may sit in both."""
    home = folder.parent.parent
    registry = _json(home / "projects.json")
    projects = registry.get("projects") if isinstance(registry, dict) else None
    projects = projects if isinstance(projects, dict) else {}
    if _HASH.match(folder.name):
        for path, slug in projects.items():
            name = entry_name(slug)
            if isinstance(path, str) and name and _sha256(path) == folder.name:
                return folder.parent / name
        return None
    path = _named(folder, None, projects, [])
    return folder.parent / _sha256(path) if path else None


def _sha256(path: str) -> str:
    return hashlib.sha256(path.encode("utf-8", "surrogatepass")).hexdigest()


def _named(
    folder: Path, project_hash: str | None, projects: dict[Any, Any], known: list[str]
) -> str | None:
    """The path the Gemini home gives the project folder `folder`, as it spells it."""
    marker = (_read(folder / ".project_root") or "").strip()
    if marker:
        return marker
    for path, slug in projects.items():
        if slug == folder.name and isinstance(path, str):
            return path
    wanted = {h for h in (folder.name, project_hash) if h and _HASH.match(h)}
    for path in known if wanted else ():
        if _sha256(path) in wanted:
            return path
    return None


def _as_spelled(path: str, spellings: list[str]) -> str:
    """A lower-cased Windows `path` as another name of the same folder spells it (the
    first one with capitals); any other path as it is."""
    if not is_windows_path(path) or path != path.lower():
        return path
    key = _folder_key(path)
    for other in spellings:
        if other != other.lower() and is_windows_path(other) and _folder_key(other) == key:
            return other
    return path


def _folder_key(path: str) -> str:
    """A Windows path as Windows compares it: any case, either separator."""
    return path.replace("/", "\\").rstrip("\\").casefold()


def _read(path: Path) -> str | None:
    """A small settings file's text; None when absent or not a regular file (a FIFO
    must not hang the run)."""
    try:
        with open_regular(str(path)) as fh:
            return fh.read(_MAX_BYTES).decode("utf-8", "replace")
    except OSError:
        return None


def _json(path: Path) -> Any:
    text = _read(path)
    if text is None:
        return None
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        pass
    try:
        return json.loads(_COMMENT.sub(lambda m: m.group(1) or "", text))
    except (ValueError, RecursionError):
        return None
