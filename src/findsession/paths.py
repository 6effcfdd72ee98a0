"""Where the index and the config file are, decided without importing anything heavy;
and how any path a person wrote is read (`expand`).

The CLI asks this before it knows whether a resident service will answer: a search the
service answers must not pay for importing the index, the model or the config parser.
Precedence for the database: `--db`, then `FINDSESSION_DB`, then the user's data
directory. The config file (TOML) is `FINDSESSION_CONFIG` or the user's config directory.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import platformdirs

APP = "findsession"


def expand(path: str | os.PathLike[str]) -> Path:
    """`path` with a leading `~` or `~name` expanded when that home is known, else kept
    as written, as a shell keeps it. `Path.expanduser` raises when `~name` names no user
    on this machine (a config copied from another machine, a variable set for another
    account), and every command reading such a path ended in a traceback; kept as
    written, it is a path that does not exist, which every caller already reports."""
    return Path(os.path.expanduser(path))


def no_home() -> str | None:
    """Why this user has no home folder, or None when it has one. Under an arbitrary uid
    with `HOME` unset (a container's user with no entry in the password database) there
    is no home: the config, the index and every agent's folder live under one, and each
    command ended in a traceback from the first of them it asked for."""
    if os.path.expanduser("~") != "~":
        return None
    return (
        "this user has no home folder (HOME is not set and the password database has no "
        "entry for it): set HOME to a folder to keep the index and the config in"
    )


def tilde(text: str) -> str:
    """`text` (a path, or a line naming paths) with the home folder shown as `~`: only
    where a path begins with the home folder and goes on below it (`…/al` is not the
    start of `…/alice`), and not at all when the home is the file system's root (a
    container's user with `HOME=/`, where every path would read as `~/…`)."""
    home = os.path.expanduser("~").rstrip(os.sep)
    if not home or home == "~":
        return text
    pattern = rf"(?<![^\s'\"`(=:]){re.escape(home)}(?=[{re.escape(os.sep)}\s'\"`),;:]|$)"
    return re.sub(pattern, "~", text)


def config_path() -> Path:
    env = os.environ.get("FINDSESSION_CONFIG")
    return expand(env) if env else platformdirs.user_config_path(APP) / "config.toml"


def db_path(cli_value: str | None = None) -> Path:
    if cli_value:
        return expand(cli_value)
    env = os.environ.get("FINDSESSION_DB")
    if env:
        return expand(env)
    return platformdirs.user_data_path(APP) / "index.db"
