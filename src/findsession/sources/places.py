"""Where each agent keeps its files by default, and the store it keeps inside a project:
every source's place rules, in one light module (the standard library only).

An index run with no folder named reads every enabled source's standard places, and
`sources` lists them; usually one or two of those places exist. Asking each source's
class for them imported all ~57 source modules and their parsers (a third to half of a
cold `index`'s imports) to learn paths: the rules live here instead, each source's
entry in `registry.ENTRIES` names its rules (`Entry.places`, `Entry.in_project`), and
`Source.default_roots` and `Source.project_root` answer from them, so a rule is written
once and read without its parser.

A rule follows its agent's own resolution: the variable that moves its home, the
platform's data or config folder, a config file that names another folder. Each reads
only the variables its entry lists (checked from the code: tests/test_source_seam.py).
"""

from __future__ import annotations

import json
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from findsession.sources.opening import open_regular

# -- What several rules share ---------------------------------------------------------


def env_home(variable: str, *default: str) -> Path:
    """An agent's home: the folder `$variable` names when set (`~` expanded), else
    `default` under the user's home."""
    base = os.environ.get(variable)
    return Path(base).expanduser() if base else Path.home().joinpath(*default)


def xdg_data_home() -> Path:
    """`$XDG_DATA_HOME` (`~` expanded), else `~/.local/share`."""
    data = os.environ.get("XDG_DATA_HOME")
    return Path(data).expanduser() if data else Path.home() / ".local" / "share"


def user_folder(app: str) -> Path:
    """An editor's `User` folder on this system (VS Code's family)."""
    if sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    elif sys.platform == "win32":
        base = Path(os.environ.get("APPDATA") or Path.home() / "AppData" / "Roaming")
    else:
        xdg = os.environ.get("XDG_CONFIG_HOME")
        base = Path(xdg).expanduser() if xdg else Path.home() / ".config"
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

# -- Stores an agent keeps inside a project ------------------------------------------


@dataclass(frozen=True, slots=True)
class ProjectStore:
    """Where one agent keeps a project's store, and its name in what is reported."""

    agent: str
    folder: str
    db_name: str

    def in_project(self, project: Path) -> Path | None:
        """`project`'s folder of this store, when it holds the database."""
        folder = project / self.folder
        return folder if (folder / self.db_name).is_file() else None

    def project_of(self, db: Path) -> str:
        """The project a database belongs to: the folder that holds the store's folder."""
        return str(db.parent.parent) if db.parent.name == self.folder else str(db.parent)


CRUSH_STORE = ProjectStore(agent="Crush", folder=".crush", db_name="crush.db")
#: OpenCode before its rewrite: `data.directory` defaulted to `.opencode`, in the project.
OPENCODE_FIRST = ProjectStore(agent="OpenCode", folder=".opencode", db_name="opencode.db")
#: RA.Aid's store, in a project's folder (and the home folder's, when run there).
RA_AID_STORE = ProjectStore(agent="RA.Aid", folder=".ra-aid", db_name="pk.db")
#: Where SpecStory keeps a project's chat exports (`.specstory/history/`).
SPECSTORY_FOLDER, SPECSTORY_HISTORY = ".specstory", "history"
#: Where Cody's JetBrains plugin (2024) kept a project's chats.
CODY_IDEA, CODY_HISTORY_XML = ".idea", "cody_history.xml"


def crush_project(project: Path) -> Path | None:
    """A project's own Crush data folder, when it has a database."""
    return CRUSH_STORE.in_project(project)


def opencode_project(project: Path) -> Path | None:
    """A project's `.opencode/` folder, when the first OpenCode kept a store there."""
    return OPENCODE_FIRST.in_project(project)


def ra_aid_project(project: Path) -> Path | None:
    """A project's own `.ra-aid/` folder, when it has a store."""
    return RA_AID_STORE.in_project(project)


def specstory_project(project: Path) -> Path | None:
    """A project's own SpecStory history folder, when it has one."""
    folder = project / SPECSTORY_FOLDER / SPECSTORY_HISTORY
    return folder if folder.is_dir() else None


def cody_project(project: Path) -> Path | None:
    """A JetBrains project's `.idea`, when the Cody plugin kept its chats there."""
    folder = project / CODY_IDEA
    return folder if (folder / CODY_HISTORY_XML).is_file() else None


# -- Claude Code, its memory notes, Codex ---------------------------------------------


def claude_home() -> Path:
    """`$CLAUDE_CONFIG_DIR`, else `~/.claude`."""
    return env_home("CLAUDE_CONFIG_DIR", ".claude")


def claude_projects() -> Path:
    """`$CLAUDE_CONFIG_DIR/projects`, else `~/.claude/projects`."""
    return claude_home() / "projects"


def claude_code() -> list[Path]:
    return [claude_projects()]


def memory() -> list[Path]:
    """Claude Code's own folder, not its `projects/` (the Claude Code source's root):
    each source keeps a place of its own, and its top holds the CLAUDE.md that applies
    to every project."""
    return [claude_home()]


def codex_home() -> Path:
    """`$CODEX_HOME`, else `~/.codex`."""
    return env_home("CODEX_HOME", ".codex")


def codex() -> list[Path]:
    return [codex_home()]


def trae_cli() -> list[Path]:
    """TRAE CLI's home, where other tools' readers found its rollouts."""
    return [Path.home() / ".trae" / "cli"]


# -- Aider and cecli ------------------------------------------------------------------

#: The history aider keeps in the folder it runs in.
AIDER_HISTORY = ".aider.chat.history.md"
#: cecli's folder, and its history in it, from the project's root (cecli/args.py).
CECLI_FOLDER = ".cecli"
CECLI_CHAT_NAME = "chat.history"
CECLI_HISTORY = f"{CECLI_FOLDER}/{CECLI_CHAT_NAME}"

_CONF_KEY = re.compile(r"""^chat-history-file:\s*["']?([^"'#\n]+?)["']?\s*(?:#.*)?$""", re.M)


def aider() -> list[Path]:
    """The history file aider is told to use (`AIDER_CHAT_HISTORY_FILE`, or
    `chat-history-file` in `~/.aider.conf.yml`) when it is an absolute path, and the one
    in the home folder (aider run outside a git repository). Project folders are not
    guessed: walking a whole home folder is not cheap; the config adds roots."""
    home = Path.home()
    named = os.environ.get("AIDER_CHAT_HISTORY_FILE")
    return _named_and_home(named, [home / ".aider.conf.yml"], home / AIDER_HISTORY)


def cecli() -> list[Path]:
    """The history cecli is told to use (`CECLI_CHAT_HISTORY_FILE`, or
    `chat-history-file` in `~/.cecli.conf.yml` or `~/.cecli/.cecli.conf.yml`) when it
    is an absolute path, and `~/.cecli/chat.history` (cecli run outside a git
    repository, in the home folder). Project folders are not guessed, as for Aider."""
    home = Path.home()
    configs = [home / ".cecli.conf.yml", home / CECLI_FOLDER / ".cecli.conf.yml"]
    named = os.environ.get("CECLI_CHAT_HISTORY_FILE")
    return _named_and_home(named, configs, home / CECLI_HISTORY)


def _named_and_home(named: str | None, configs: list[Path], at_home: Path) -> list[Path]:
    """The history `named` (an environment variable's value), else the one the first of
    `configs` names, when that is an absolute path; then `at_home`."""
    roots = []
    named = named or next(filter(None, map(_configured_history, configs)), None)
    if named and Path(named).expanduser().is_absolute():
        roots.append(Path(named).expanduser())
    if at_home not in roots:
        roots.append(at_home)
    return roots


def _configured_history(conf: Path) -> str | None:
    """`chat-history-file` from aider's YAML config, read as the one line it is."""
    try:
        found = _CONF_KEY.search(conf.read_text(encoding="utf-8", errors="replace"))
    except OSError:
        return None
    return found.group(1) if found else None


# -- Gemini CLI and the agents built on it --------------------------------------------


def gemini_home() -> Path:
    """`$GEMINI_CLI_HOME/.gemini`, else `~/.gemini` (the variable stands for the home
    folder, not for the `.gemini` folder itself)."""
    base = os.environ.get("GEMINI_CLI_HOME")
    return (Path(base).expanduser() if base else Path.home()) / ".gemini"


def gemini() -> list[Path]:
    return [gemini_home() / "tmp"]


def qwen_home() -> Path:
    """`$QWEN_HOME`, else `~/.qwen`."""
    return env_home("QWEN_HOME", ".qwen")


def qwen() -> list[Path]:
    return [qwen_home() / "projects", qwen_home() / "tmp"]


def qoder_config_dir() -> Path:
    """Qoder CLI's user folder, found as its code finds it: `$QODER_CONFIG_DIR`, else
    `<home>/<name>`, `<home>` being `$QODER_CLI_HOME`, else `$GEMINI_CLI_HOME` (Qoder
    CLI is built on Gemini CLI and still honours its variable), else the user's, and
    `<name>` being `$QODER_CONFIG_DIR_NAME`, else `.qoder`."""
    base = os.environ.get("QODER_CONFIG_DIR")
    if base:
        return Path(base).expanduser()
    home = os.environ.get("QODER_CLI_HOME") or os.environ.get("GEMINI_CLI_HOME")
    name = os.environ.get("QODER_CONFIG_DIR_NAME") or ".qoder"
    return (Path(home).expanduser() if home else Path.home()) / name


def qoder_china_config_dir() -> Path:
    """The China edition's user folder (npm `@qoder-ai/qoderclicn`, the same program):
    its code, built as the `cn` edition, names its folder `.qoder-cn` and its variables
    with the prefix `QODERCN_` where Qoder CLI has `QODER_`, so `$QODERCN_CONFIG_DIR`,
    else `<home>/.qoder-cn`, `<home>` being `$QODERCN_CLI_HOME`, else `$GEMINI_CLI_HOME`,
    else the user's. (Its 0.2.0 on npm was built as the global edition and writes to
    `.qoder`, read above.)"""
    base = os.environ.get("QODERCN_CONFIG_DIR")
    if base:
        return Path(base).expanduser()
    home = os.environ.get("QODERCN_CLI_HOME") or os.environ.get("GEMINI_CLI_HOME")
    return (Path(home).expanduser() if home else Path.home()) / ".qoder-cn"


def qoder() -> list[Path]:
    """Qoder CLI's folder and its China edition's: the same transcripts in each."""
    return [qoder_config_dir() / "projects", qoder_china_config_dir() / "projects"]


def iflow() -> list[Path]:
    """iFlow CLI's data folder, as iFlow CLI finds it, and its projects in it."""
    home = os.environ.get("IFLOW_HOME")
    return [(Path(home).expanduser() if home else Path.home() / ".iflow") / "projects"]


#: The data folders under `~/.gemini`, the editor's first.
ANTIGRAVITY_APPS = ("antigravity", "antigravity-ide", "antigravity-cli")


def antigravity() -> list[Path]:
    return [Path.home() / ".gemini" / app / "brain" for app in ANTIGRAVITY_APPS]


# -- Command-line agents with a home of their own -------------------------------------


def droid() -> list[Path]:
    home = os.environ.get("FACTORY_HOME_OVERRIDE")
    return [(Path(home).expanduser() if home else Path.home()) / ".factory" / "sessions"]


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
        place = Path(named.strip()).expanduser()
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
    return [(Path(base).expanduser() if base else Path.home() / ".continue") / "sessions"]


def kimi() -> list[Path]:
    """Kimi CLI's data folder, as Kimi CLI finds it, and its sessions in it."""
    base = os.environ.get("KIMI_SHARE_DIR")
    return [(Path(base).expanduser() if base else Path.home() / ".kimi") / "sessions"]


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
        cli = Path(place).expanduser()
    else:
        base = os.environ.get("OPENHANDS_PERSISTENCE_DIR")
        cli = (Path(base).expanduser() if base else Path.home() / ".openhands") / "conversations"
    return [cli, Path.home() / ".openhands" / "sessions"]


def junie() -> list[Path]:
    """Where Junie keeps its sessions."""
    home = os.environ.get("JUNIE_HOME")
    return [(Path(home).expanduser() if home else Path.home() / ".junie") / "sessions"]


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
    return Path(named).expanduser() if named else Path.home() / ".letta" / "lc-local-backend"


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
        return [Path(given).expanduser()]
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
    home = Path(given).expanduser()
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


# -- Agents in the platform's data, config or state folders ---------------------------


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
            return Path(value).expanduser().joinpath(*tail)
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
        return [Path(logs).expanduser()]
    data = os.environ.get("XDG_DATA_HOME", "").strip()
    if data:
        return [Path(data).expanduser() / "gptme" / "logs"]
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
        return Path(given).expanduser()
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
        return Path(named).expanduser()
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
        return Path(named).expanduser()
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
    return Path(state).expanduser() / app if state else home / ".local" / "state" / app


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
    homes = [Path(given).expanduser() / "devin"] if given else []
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
