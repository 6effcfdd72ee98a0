"""Where the editors of VS Code's family and their extensions keep their chats (each
editor's `User` folder), and Kiro's CLI and IDE."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from findsession.sources.places.common import GLOBAL, WORKSPACES, user_folder, xdg_data_home


def cline_cli_sessions() -> Path:
    """Where Cline's CLI keeps its sessions on this machine (its own resolution order)."""
    if value := os.environ.get("CLINE_SESSION_DATA_DIR", "").strip():
        return Path(value)
    data = os.environ.get("CLINE_DATA_DIR", "").strip()
    if not data:
        home = os.environ.get("CLINE_DIR", "").strip() or str(Path.home() / ".cline")
        data = str(Path(home) / "data")
    return Path(data) / "sessions"


#: Editors that host VS Code extensions, each with its own user folder.
EXTENSION_EDITORS = ("Code", "Code - Insiders", "VSCodium", "Cursor", "Windsurf")


def extension_user_folders() -> list[Path]:
    """Each editor's `User` folder on this system (`<config>/<Editor>/User`)."""
    if sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    elif sys.platform == "win32":
        base = Path(os.environ.get("APPDATA") or Path.home() / "AppData" / "Roaming")
    else:
        base = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
    return [base / editor / "User" for editor in EXTENSION_EDITORS]


def _extension_tasks(*extensions: str) -> list[Path]:
    """The task folders that exist, in every editor; else the first one (VS Code's
    own, for the first extension), so `sources` names one place, not ten."""
    places = [
        user / GLOBAL / ext / "tasks" for ext in extensions for user in extension_user_folders()
    ]
    return [p for p in places if p.is_dir()] or places[:1]


def cline() -> list[Path]:
    """Cline's task folders (`saoudrizwan.claude-dev`) and the CLI's sessions folder
    when it exists."""
    cli = cline_cli_sessions()
    return [*_extension_tasks("saoudrizwan.claude-dev"), *([cli] if cli.is_dir() else [])]


def roo_code() -> list[Path]:
    """Roo Code's task folders, and Kilo Code's legacy ones."""
    return _extension_tasks("rooveterinaryinc.roo-cline", "kilocode.kilo-code")


#: VS Code's folder of chats opened with no folder, in `globalStorage`.
EMPTY_WINDOW = "emptyWindowChatSessions"


def vscode_copilot() -> list[Path]:
    """VS Code's and VS Code Insiders' workspaces and chats of an empty window."""
    return [
        place
        for user in (user_folder("Code"), user_folder("Code - Insiders"))
        for place in (user / WORKSPACES, user / GLOBAL / EMPTY_WINDOW)
    ]


def cursor() -> list[Path]:
    user = user_folder("Cursor")
    return [user / GLOBAL, user / WORKSPACES]


def windsurf() -> list[Path]:
    user = user_folder("Windsurf")
    return [user / GLOBAL, user / WORKSPACES]


#: The editors whose database no other source reads, and the Cody agent's data folder.
CODY_EDITORS = ("Code", "Code - Insiders", "VSCodium")


CODY_AGENT_DATA = "Cody-nodejs"


def cody_agent_data() -> Path:
    """The Cody agent's data folder (`env-paths`' for `Cody`, with its `-nodejs` suffix)."""
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support" / CODY_AGENT_DATA
    if sys.platform == "win32":
        local = os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local"
        return Path(local) / CODY_AGENT_DATA / "Data"
    return xdg_data_home() / CODY_AGENT_DATA


def cody() -> list[Path]:
    """Each editor's `globalStorage` and the agent's data folder that exist; else
    VS Code's, so `sources` names one place."""
    places = [user_folder(app) / GLOBAL for app in CODY_EDITORS] + [cody_agent_data()]
    return [p for p in places if p.is_dir()] or places[:1]


#: Kiro's agent's folder of sessions per workspace, in its `globalStorage`.
KIRO_IDE_SESSIONS = "workspace-sessions"


def kiro_sessions() -> Path:
    """`~/.kiro/sessions`, under the user's home on every system."""
    return Path.home() / ".kiro" / "sessions"


def kiro_agent_folder() -> Path:
    """Kiro's agent's folder on this system."""
    return user_folder("Kiro") / GLOBAL / "kiro.kiroagent"


def kiro_ide() -> list[Path]:
    return [kiro_agent_folder() / KIRO_IDE_SESSIONS, kiro_sessions()]


def kiro_data_folder() -> Path:
    """Kiro CLI's data folder, where `data.sqlite3` is."""
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support" / "kiro-cli"
    if sys.platform == "win32":
        roaming = os.environ.get("APPDATA") or str(Path.home() / "AppData" / "Roaming")
        return Path(roaming) / "kiro-cli"
    return xdg_data_home() / "kiro-cli"


def kiro() -> list[Path]:
    """The data folder, and the JSON-lines layout's folder."""
    return [kiro_data_folder(), kiro_sessions() / "cli"]
