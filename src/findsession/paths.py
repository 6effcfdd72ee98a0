"""Where the index and the config file are, decided without importing anything heavy.

The CLI asks this before it knows whether a resident service will answer: a search the
service answers must not pay for importing the index, the model or the config parser.
Precedence for the database: `--db`, then `FINDSESSION_DB`, then the user's data
directory. The config file (TOML) is `FINDSESSION_CONFIG` or the user's config directory.
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

APP = "findsession"


def config_path() -> Path:
    env = os.environ.get("FINDSESSION_CONFIG")
    return Path(env).expanduser() if env else platformdirs.user_config_path(APP) / "config.toml"


def db_path(cli_value: str | None = None) -> Path:
    if cli_value:
        return Path(cli_value).expanduser()
    env = os.environ.get("FINDSESSION_DB")
    if env:
        return Path(env).expanduser()
    return platformdirs.user_data_path(APP) / "index.db"
