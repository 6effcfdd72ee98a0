"""Where the index lives: the storage protocols (`base`) and their backends.

A backend is a package here with an `open_index(location, rebuild)` that returns a
`Storage` and the notes the person should read; the config's `[storage] backend`
chooses it. Today there is one, `sqlite`: a file per index, on this machine.
"""

from __future__ import annotations

from importlib import import_module
from pathlib import Path

from findsession.storage.base import Storage

#: Backend name -> the package that opens it.
BACKENDS = {"sqlite": "findsession.storage.sqlite"}


def open_storage(
    location: Path, *, backend: str = "sqlite", rebuild: bool = False
) -> tuple[Storage, list[str]]:
    """Open (or create) the index at `location`; `rebuild` starts it afresh, keeping the
    list of forgotten sessions. Returns the index and notes for the person."""
    package = import_module(BACKENDS[backend])
    return package.open_index(location, rebuild=rebuild)


__all__ = ["BACKENDS", "Storage", "open_storage"]
