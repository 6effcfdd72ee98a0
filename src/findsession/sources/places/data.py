"""Where the agents that follow the platform's data, config or state folders keep their
files (XDG on Linux, `Application Support` on macOS, `%APPDATA%`/`%LOCALAPPDATA%` on
Windows), each as its agent's own code finds them."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from findsession.paths import expand
from findsession.sources.opening import open_regular
from findsession.sources.places.common import side_object, xdg_data_home
from findsession.sources.places.projects import CRUSH_STORE


def amazon_q_data_folder() -> Path:
    """Amazon Q Developer CLI's data folder, where `data.sqlite3` is (Rust's
    `dirs::data_local_dir()` and `amazon-q`)."""
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support" / "amazon-q"
    if sys.platform == "win32":
        local = os.environ.get("LOCALAPPDATA") or str(Path.home() / "AppData" / "Local")
        return Path(local) / "amazon-q"
    return xdg_data_home() / "amazon-q"


def amazon_q() -> list[Path]:
    return [amazon_q_data_folder()]


def opencode_data_home() -> Path:
    """`$XDG_DATA_HOME`, else `~/.local/share`: where OpenCode puts its data on every OS."""
    value = os.environ.get("XDG_DATA_HOME", "")
    return Path(value) if value and Path(value).is_absolute() else Path.home() / ".local" / "share"


def opencode() -> list[Path]:
    return [opencode_data_home() / "opencode"]


def kilo_code() -> list[Path]:
    return [opencode_data_home() / "kilo"]


def goose() -> list[Path]:
    """Where Goose keeps its sessions on this machine (see `sources.goose`)."""
    root = os.environ.get("GOOSE_PATH_ROOT")
    if root and os.path.isabs(root):
        return [Path(root) / "data" / "sessions"]
    if os.name == "nt":
        appdata = os.environ.get("APPDATA")
        base = Path(appdata) if appdata else Path.home() / "AppData" / "Roaming"
        return [base / "Block" / "goose" / "data" / "sessions"]
    xdg = os.environ.get("XDG_DATA_HOME")
    base = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".local" / "share"
    return [base / "goose" / "sessions"]


CRUSH_PROJECTS = "projects.json"


_LIST_BYTES = 16 << 20


def crush_data_home() -> Path:
    """Crush's data folder, where `projects.json` is, as Crush itself finds it."""
    for value, tail in (
        (os.environ.get("CRUSH_GLOBAL_DATA"), ()),
        (os.environ.get("XDG_DATA_HOME"), ("crush",)),
    ):
        if value:
            return expand(value).joinpath(*tail)
    if sys.platform == "win32":
        local = os.environ.get("LOCALAPPDATA") or str(Path.home() / "AppData" / "Local")
        return Path(local) / "crush"
    return Path.home() / ".local" / "share" / "crush"


def crush_projects(home: Path | None = None) -> list[tuple[str, Path]]:
    """`(project folder, data folder)` of each project `projects.json` names."""
    try:
        with open_regular(str((home or crush_data_home()) / CRUSH_PROJECTS)) as fh:
            doc = json.loads(fh.read(_LIST_BYTES).decode("utf-8", "replace"))
    except (OSError, ValueError, RecursionError):
        return []
    entries = doc.get("projects") if isinstance(doc, dict) else None
    found = []
    for entry in entries if isinstance(entries, list) else []:
        if not isinstance(entry, dict):
            continue
        path, data = entry.get("path"), entry.get("data_dir")
        if isinstance(path, str) and path and "\x00" not in path:
            if not (isinstance(data, str) and data):
                data = os.path.join(path, CRUSH_STORE.folder)
            if "\x00" not in data:
                found.append((path, Path(data)))
    return found


def crush() -> list[Path]:
    """The data folder (its `projects.json` lists the projects), then each listed
    project's own data folder, so a change in one is seen where it happens."""
    home = crush_data_home()
    listed = [data for _, data in crush_projects(home) if data.is_dir()]
    return [home, *dict.fromkeys(listed)]


def zed() -> list[Path]:
    """Zed's data folder on this system (see `sources.zed`), and its threads in it."""
    if sys.platform == "darwin":
        data = Path.home() / "Library" / "Application Support" / "Zed"
    elif sys.platform == "win32":
        local = os.environ.get("LOCALAPPDATA") or str(Path.home() / "AppData" / "Local")
        data = Path(local) / "Zed"
    else:
        data = Path.home() / ".local" / "share" / "zed"
        for value in (os.environ.get("FLATPAK_XDG_DATA_HOME"), os.environ.get("XDG_DATA_HOME")):
            if value and os.path.isabs(value):
                data = Path(value) / "zed"
                break
    return [data / "threads"]


def gptme() -> list[Path]:
    """gptme's logs folder, as gptme finds it (`gptme.dirs.get_logs_dir`)."""
    logs = os.environ.get("GPTME_LOGS_HOME", "").strip()
    if logs:
        return [expand(logs)]
    data = os.environ.get("XDG_DATA_HOME", "").strip()
    if data:
        return [expand(data) / "gptme" / "logs"]
    home = Path.home()
    if sys.platform == "darwin" and not (home / ".local" / "share" / "gptme").exists():
        return [home / "Library" / "Application Support" / "gptme" / "logs"]
    if sys.platform == "win32" and not (home / ".local" / "share" / "gptme").exists():
        local = os.environ.get("LOCALAPPDATA") or str(home / "AppData" / "Local")
        return [Path(local) / "gptme" / "gptme" / "logs"]
    return [home / ".local" / "share" / "gptme" / "logs"]


LLM_APP = "io.datasette.llm"


def llm_user_dir() -> Path:
    """`llm`'s user folder on this machine, as `llm` itself finds it (see
    `sources.llm_logs`)."""
    given = os.environ.get("LLM_USER_PATH")
    if given:
        return expand(given)
    home = Path.home()
    if sys.platform == "darwin":
        return home / "Library" / "Application Support" / LLM_APP
    if sys.platform == "win32":
        appdata = os.environ.get("APPDATA")
        return (Path(appdata) if appdata else home / "AppData" / "Roaming") / LLM_APP
    config = os.environ.get("XDG_CONFIG_HOME")
    return (Path(config) if config else home / ".config") / LLM_APP


def llm() -> list[Path]:
    return [llm_user_dir()]


#: Where a Nanocoder sessions folder may be named, newest first.
_NANOCODER_CONFIGS = ("nanocoder-preferences.json", "agents.config.json")


def nanocoder_data_dir() -> Path:
    """Nanocoder's data folder, as its `getAppDataPath` finds it."""
    named = os.environ.get("NANOCODER_DATA_DIR")
    if named:
        return expand(named)
    data = os.environ.get("XDG_DATA_HOME")
    if data:
        return Path(data) / "nanocoder"
    home = Path.home()
    if sys.platform == "win32":
        return Path(os.environ.get("APPDATA") or home / "AppData" / "Roaming") / "nanocoder"
    if sys.platform == "darwin":
        return home / "Library" / "Application Support" / "nanocoder"
    return home / ".local" / "share" / "nanocoder"


def nanocoder_config_dir() -> Path:
    """Nanocoder's config folder, as its `getConfigPath` finds it."""
    named = os.environ.get("NANOCODER_CONFIG_DIR")
    if named:
        return expand(named)
    home = Path.home()
    if sys.platform == "win32":
        return Path(os.environ.get("APPDATA") or home / "AppData" / "Roaming") / "nanocoder"
    if sys.platform == "darwin":
        return home / "Library" / "Preferences" / "nanocoder"
    return Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config") / "nanocoder"


def nanocoder() -> list[Path]:
    """The sessions folder of the data folder, and any the config names instead (the
    default one may still hold the sessions from before)."""
    found = [nanocoder_data_dir() / "sessions"]
    for name in _NANOCODER_CONFIGS:
        named = _nanocoder_configured(side_object(nanocoder_config_dir() / name))
        if named is not None and named not in found:
            found.append(named)
    return found


def _nanocoder_configured(config: dict[str, Any]) -> Path | None:
    """The absolute folder `nanocoder.sessions.directory` names (`~` as Nanocoder expands
    it), or None."""
    nanocoder = config.get("nanocoder")
    sessions = nanocoder.get("sessions") if isinstance(nanocoder, dict) else None
    named = sessions.get("directory") if isinstance(sessions, dict) else None
    if not isinstance(named, str) or not named.strip():
        return None
    if named == "~" or named.startswith("~/"):
        named = str(Path.home()) + named[1:]
    return Path(named) if os.path.isabs(named) else None


def nvim_state_dir() -> Path:
    """Neovim's state folder (`stdpath("state")`), as Neovim finds it."""
    app = os.environ.get("NVIM_APPNAME", "").strip() or "nvim"
    home = Path.home()
    if sys.platform == "win32":
        local = os.environ.get("LOCALAPPDATA") or str(home / "AppData" / "Local")
        return Path(local) / f"{app}-data"
    state = os.environ.get("XDG_STATE_HOME", "").strip()
    return expand(state) / app if state else home / ".local" / "state" / app


def avante() -> list[Path]:
    """avante's default storage folder."""
    return [nvim_state_dir() / "avante"]


#: Code Puppy's folder of subagents' sessions, in its data folder.
CODE_PUPPY_SUBAGENTS = "subagent_sessions"


def _code_puppy_folder(base: str | None) -> Path:
    """Code Puppy's folder for one XDG kind, as its `_get_xdg_dir` finds it: under the
    XDG variable's folder when it is set, else `~/.code_puppy` for every kind."""
    return Path(base) / "code_puppy" if base else Path.home() / ".code_puppy"


def code_puppy_autosaves() -> Path:
    """Where Code Puppy autosaves its sessions (its cache folder's `autosaves`)."""
    return _code_puppy_folder(os.environ.get("XDG_CACHE_HOME")) / "autosaves"


def code_puppy() -> list[Path]:
    data = _code_puppy_folder(os.environ.get("XDG_DATA_HOME"))
    roots = [code_puppy_autosaves(), data / "contexts", data / CODE_PUPPY_SUBAGENTS]
    return list(dict.fromkeys(roots))


_OPEN_INTERPRETER = "open-interpreter"


def open_interpreter() -> list[Path]:
    """Open Interpreter's config folder, as `platformdirs.user_config_dir` finds it, and
    its conversations in it."""
    home = Path.home()
    if sys.platform == "win32":
        local = Path(os.environ.get("LOCALAPPDATA") or home / "AppData" / "Local")
        config = local / _OPEN_INTERPRETER / _OPEN_INTERPRETER
    elif sys.platform == "darwin":
        config = home / "Library" / "Application Support" / _OPEN_INTERPRETER
    else:
        config = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config") / _OPEN_INTERPRETER
    return [config / "conversations"]


def devin() -> list[Path]:
    """The CLI's data folders on this machine (see `sources.devin`)."""
    given = os.environ.get("XDG_DATA_HOME")
    homes = [expand(given) / "devin"] if given else []
    homes.append(Path.home() / ".local" / "share" / "devin")
    if sys.platform == "darwin":
        homes.append(Path.home() / "Library" / "Application Support" / "devin")
    return list(dict.fromkeys(homes))


#: Warp's folder names: the Stable build's, then the Preview build's, on each system.
_WARP_LINUX = ("warp-terminal", "warp-terminal-preview")


_WARP_MAC = ("dev.warp.Warp-Stable", "dev.warp.WarpPreview")


_WARP_WINDOWS = ("Warp", "WarpPreview")


_WARP_GROUP = "2BBY89MBSN.dev.warp"


def warp() -> list[Path]:
    """Warp's state folders on this system, Stable's and Preview's (see
    `sources.warp`)."""
    home = Path.home()
    if sys.platform == "darwin":
        group = home / "Library" / "Group Containers" / _WARP_GROUP / "Library"
        group = group / "Application Support"
        support = home / "Library" / "Application Support"
        return [place / name for name in _WARP_MAC for place in (group, support)]
    if sys.platform == "win32":
        local = os.environ.get("LOCALAPPDATA") or str(home / "AppData" / "Local")
        return [Path(local) / "warp" / name / "data" for name in _WARP_WINDOWS]
    state = os.environ.get("XDG_STATE_HOME")
    base = Path(state) if state and os.path.isabs(state) else home / ".local" / "state"
    return [base / name for name in _WARP_LINUX]
