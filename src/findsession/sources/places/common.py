"""What several place rules share: an agent's home from its variable, the platform's data
folder, an editor's `User` folder, a small JSON file an agent keeps its settings in."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from findsession.paths import expand
from findsession.sources.opening import open_regular


def env_home(variable: str, *default: str) -> Path:
    """An agent's home: the folder `$variable` names when set (`~` expanded), else
    `default` under the user's home."""
    base = os.environ.get(variable)
    return expand(base) if base else Path.home().joinpath(*default)


def xdg_data_home() -> Path:
    """`$XDG_DATA_HOME` (`~` expanded), else `~/.local/share`."""
    data = os.environ.get("XDG_DATA_HOME")
    return expand(data) if data else Path.home() / ".local" / "share"


def user_folder(app: str) -> Path:
    """An editor's `User` folder on this system (VS Code's family)."""
    if sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    elif sys.platform == "win32":
        base = Path(os.environ.get("APPDATA") or Path.home() / "AppData" / "Roaming")
    else:
        xdg = os.environ.get("XDG_CONFIG_HOME")
        base = expand(xdg) if xdg else Path.home() / ".config"
    return base / app / "User"


def side_object(path: Path, limit: int = 16 << 20) -> dict[str, Any]:
    """A small JSON object an agent keeps beside its transcript (a session's state, a
    subagent's description, its settings), its first `limit` bytes; {} when it is
    missing, broken or not an object (the agent writes it again whole: a later run
    reads it whole)."""
    try:
        with open_regular(str(path)) as fh:
            doc = json.loads(fh.read(limit).decode("utf-8", "replace"))
    except (OSError, ValueError, RecursionError):
        return {}
    return doc if isinstance(doc, dict) else {}


def nowhere() -> list[Path]:
    """No standard place: an export is wherever the person saved it and is named to be
    read; notes are the folders the config names; SpecStory's exports live in each
    project (its `project_root`)."""
    return []


#: Editors' `globalStorage` and `workspaceStorage` folders.
GLOBAL, WORKSPACES = "globalStorage", "workspaceStorage"
