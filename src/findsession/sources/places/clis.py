"""Where the other command-line agents with a home of their own keep their files."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from findsession.paths import expand
from findsession.sources.places.common import env_home, side_object, xdg_data_home
from findsession.sources.places.projects import RA_AID_STORE


def droid() -> list[Path]:
    home = os.environ.get("FACTORY_HOME_OVERRIDE")
    return [(expand(home) if home else Path.home()) / ".factory" / "sessions"]


def pi_agent_dir() -> Path:
    """`$PI_CODING_AGENT_DIR`, else `~/.pi/agent`."""
    return env_home("PI_CODING_AGENT_DIR", ".pi", "agent")


def pi() -> list[Path]:
    """`<agent dir>/sessions`, and the folder Pi is told to keep sessions in instead
    (`$PI_CODING_AGENT_SESSION_DIR`, else `sessionDir` in the agent folder's
    `settings.json`; Pi 0.71 on) when it names one absolutely: a relative one is
    resolved from wherever Pi runs. The sessions written before it was set stay in the
    first. Files there lie in the folder itself, not in a folder per project."""
    agent = pi_agent_dir()
    roots = [agent / "sessions"]
    named = os.environ.get("PI_CODING_AGENT_SESSION_DIR") or side_object(
        agent / "settings.json"
    ).get("sessionDir")
    if isinstance(named, str) and named.strip():
        place = expand(named.strip())
        if place.is_absolute() and place not in roots:
            roots.append(place)
    return roots


#: Copilot CLI's session folders in its home: today's, and the older layout's.
COPILOT_STATE = "session-state"


COPILOT_HISTORY = "history-session-state"


def copilot_home() -> Path:
    """`$COPILOT_HOME`, else `~/.copilot`."""
    return env_home("COPILOT_HOME", ".copilot")


def copilot_cli() -> list[Path]:
    return [copilot_home() / COPILOT_STATE, copilot_home() / COPILOT_HISTORY]


#: cursor-agent's folder of chat stores, under `~/.cursor`.
CURSOR_AGENT_CHATS = "chats"


def cursor_agent() -> list[Path]:
    return [Path.home() / ".cursor" / "projects", Path.home() / ".cursor" / CURSOR_AGENT_CHATS]


def amp() -> list[Path]:
    """`$XDG_DATA_HOME/amp/threads`, else `~/.local/share/amp/threads`: Amp's CLI
    keeps its data there on every OS."""
    return [xdg_data_home() / "amp" / "threads"]


def continue_dev() -> list[Path]:
    """Continue's sessions folder, as Continue finds it."""
    base = os.environ.get("CONTINUE_GLOBAL_DIR")
    return [(expand(base) if base else Path.home() / ".continue") / "sessions"]


def kimi() -> list[Path]:
    """Kimi CLI's data folder, as Kimi CLI finds it, and its sessions in it."""
    base = os.environ.get("KIMI_SHARE_DIR")
    return [(expand(base) if base else Path.home() / ".kimi") / "sessions"]


def kimi_code() -> list[Path]:
    """Kimi Code CLI's data folder, as Kimi Code finds it (`utils/paths.ts`), and its
    sessions in it."""
    return [env_home("KIMI_CODE_HOME", ".kimi-code") / "sessions"]


def openhands() -> list[Path]:
    """Where the OpenHands CLI keeps conversations, as it finds the folder; then where
    the OpenHands app keeps them, with its file store in `~/.openhands` (the place its
    Docker command mounts)."""
    place = os.environ.get("OPENHANDS_CONVERSATIONS_DIR")
    if place:
        cli = expand(place)
    else:
        base = os.environ.get("OPENHANDS_PERSISTENCE_DIR")
        cli = (expand(base) if base else Path.home() / ".openhands") / "conversations"
    return [cli, Path.home() / ".openhands" / "sessions"]


def junie() -> list[Path]:
    """Where Junie keeps its sessions."""
    home = os.environ.get("JUNIE_HOME")
    return [(expand(home) if home else Path.home() / ".junie") / "sessions"]


def auggie() -> list[Path]:
    """Auggie's sessions folder, where it keeps it by default."""
    return [Path.home() / ".augment" / "sessions"]


def vibe() -> list[Path]:
    """Where Vibe writes its sessions on this machine."""
    return [env_home("VIBE_HOME", ".vibe") / "logs" / "session"]


def codebuddy_config_dir() -> Path:
    """CodeBuddy Code's user folder, as it finds it."""
    return env_home("CODEBUDDY_CONFIG_DIR", ".codebuddy")


def codebuddy() -> list[Path]:
    return [codebuddy_config_dir() / "projects"]


def letta_storage_dir() -> Path:
    """The local backend's storage folder, as Letta Code finds it
    (`getLocalBackendStorageDir`)."""
    named = os.environ.get("LETTA_LOCAL_BACKEND_DIR")
    return expand(named) if named else Path.home() / ".letta" / "lc-local-backend"


def letta() -> list[Path]:
    return [letta_storage_dir()]


def ra_aid() -> list[Path]:
    """The home folder's own store, when RA.Aid was run there; the projects' stores
    are found through `ra_aid_project` and the roots people name."""
    home = RA_AID_STORE.in_project(Path.home())
    return [home] if home is not None else []


def grok_cli() -> list[Path]:
    """The CLI's folder, `~/.grok`."""
    return [Path.home() / ".grok"]


def forge() -> list[Path]:
    """Forge's folders on this machine (see `sources.forge`)."""
    given = os.environ.get("FORGE_CONFIG")
    if given:
        return [expand(given)]
    return [Path.home() / "forge", Path.home() / ".forge"]


HERMES_PROFILES = "profiles"


def hermes_native_home() -> Path:
    """Hermes' home when nothing moves it."""
    if sys.platform == "win32":
        local = os.environ.get("LOCALAPPDATA", "").strip()
        return (Path(local) if local else Path.home() / "AppData" / "Local") / "hermes"
    return Path.home() / ".hermes"


def hermes_root() -> Path:
    """The folder that holds Hermes' default home and its `profiles/` (see
    `sources.hermes`)."""
    native = hermes_native_home()
    given = os.environ.get("HERMES_HOME", "").strip()
    if not given:
        return native
    home = expand(given)
    if _within(home, native):
        return native
    return home.parent.parent if home.parent.name == HERMES_PROFILES else home


def hermes() -> list[Path]:
    return [hermes_root()]


def _within(path: Path, folder: Path) -> bool:
    try:
        path.resolve().relative_to(folder.resolve())
    except (ValueError, OSError):
        return False
    return True
