"""Where Claude Code, Codex, Aider and Gemini CLI (and the agents built on them) keep
their files: each a home of its own, moved by its own variable."""

from __future__ import annotations

import os
import re
from pathlib import Path

from findsession.paths import expand
from findsession.sources.places.common import env_home


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
    if named and expand(named).is_absolute():
        roots.append(expand(named))
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


def gemini_home() -> Path:
    """`$GEMINI_CLI_HOME/.gemini`, else `~/.gemini` (the variable stands for the home
    folder, not for the `.gemini` folder itself)."""
    base = os.environ.get("GEMINI_CLI_HOME")
    return (expand(base) if base else Path.home()) / ".gemini"


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
        return expand(base)
    home = os.environ.get("QODER_CLI_HOME") or os.environ.get("GEMINI_CLI_HOME")
    name = os.environ.get("QODER_CONFIG_DIR_NAME") or ".qoder"
    return (expand(home) if home else Path.home()) / name


def qoder_china_config_dir() -> Path:
    """The China edition's user folder (npm `@qoder-ai/qoderclicn`, the same program):
    its code, built as the `cn` edition, names its folder `.qoder-cn` and its variables
    with the prefix `QODERCN_` where Qoder CLI has `QODER_`, so `$QODERCN_CONFIG_DIR`,
    else `<home>/.qoder-cn`, `<home>` being `$QODERCN_CLI_HOME`, else `$GEMINI_CLI_HOME`,
    else the user's. (Its 0.2.0 on npm was built as the global edition and writes to
    `.qoder`, read above.)"""
    base = os.environ.get("QODERCN_CONFIG_DIR")
    if base:
        return expand(base)
    home = os.environ.get("QODERCN_CLI_HOME") or os.environ.get("GEMINI_CLI_HOME")
    return (expand(home) if home else Path.home()) / ".qoder-cn"


def qoder() -> list[Path]:
    """Qoder CLI's folder and its China edition's: the same transcripts in each."""
    return [qoder_config_dir() / "projects", qoder_china_config_dir() / "projects"]


def iflow() -> list[Path]:
    """iFlow CLI's data folder, as iFlow CLI finds it, and its projects in it."""
    home = os.environ.get("IFLOW_HOME")
    return [(expand(home) if home else Path.home() / ".iflow") / "projects"]


#: The data folders under `~/.gemini`, the editor's first.
ANTIGRAVITY_APPS = ("antigravity", "antigravity-ide", "antigravity-cli")


def antigravity() -> list[Path]:
    return [Path.home() / ".gemini" / app / "brain" for app in ANTIGRAVITY_APPS]
