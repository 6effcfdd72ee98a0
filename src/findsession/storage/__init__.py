"""Where the index lives: the storage protocols (`base`) and their backends.

A backend is a package here with an `open_index(location, rebuild)` that returns a
`Storage` and the notes the person should read; the config's `[storage] backend`
chooses it. `sqlite` keeps a file per index on this machine; `postgresql` keeps the
index in a database on a server, which its `[storage] url` names.
"""

from __future__ import annotations

from importlib import import_module
from pathlib import Path
from typing import Any

from findsession.errors import DatabaseError
from findsession.storage.base import Storage

#: Backend name -> the package that opens it.
BACKENDS = {"sqlite": "findsession.storage.sqlite", "postgresql": "findsession.storage.postgresql"}
#: Backends whose index is on a server, named by a URL rather than a local file.
SERVER_BACKENDS = {"postgresql"}


def open_storage(
    location: Path, *, backend: str = "sqlite", rebuild: bool = False, url: str | None = None
) -> tuple[Storage, list[str]]:
    """Open (or create) the index at `location` (for a server backend, at `url`, with
    `location` the local path this machine keeps its own files for it by); `rebuild`
    starts it afresh, keeping the list of forgotten sessions. Returns the index and
    notes for the person."""
    package = import_module(BACKENDS[backend])
    if backend in SERVER_BACKENDS:
        if not url:
            raise DatabaseError(
                f"the {backend} backend needs the server's URL",
                cli_hint="set [storage] url in the config file, or FINDSESSION_STORAGE_URL",
            )
        return package.open_index(url, rebuild=rebuild, local=location)
    return package.open_index(location, rebuild=rebuild)


def init_server(url: str) -> tuple[str, bool]:
    """Create or upgrade a shared server's schema and its group role (as its admin), and
    build a missing vector graph; (the admin role's name, whether a graph was built)."""
    return import_module(BACKENDS["postgresql"]).init_server(url)


def add_person(url: str, name: str) -> bool:
    """A person's login role on a shared server (False: it existed, now a member)."""
    return import_module(BACKENDS["postgresql"]).add_person(url, name)


def remove_person(url: str, name: str, delete_sessions: bool = False) -> Any:
    """Take a person's role out of the shared server's group; with `delete_sessions`,
    delete everything they pushed (a `RemovedPerson`)."""
    return import_module(BACKENDS["postgresql"]).remove_person(url, name, delete_sessions)


def server_status(url: str) -> Any:
    """A shared server as its admin sees it: the model and graph, each person's
    sessions, and the shared projects (a `ServerStatus`)."""
    return import_module(BACKENDS["postgresql"]).server_status(url)


__all__ = [
    "BACKENDS",
    "SERVER_BACKENDS",
    "Storage",
    "add_person",
    "init_server",
    "open_storage",
    "remove_person",
    "server_status",
]
