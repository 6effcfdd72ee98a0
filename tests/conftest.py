"""Shared fixtures: a real index database in a temp folder and the real CLI as a subprocess."""

from __future__ import annotations

import compileall
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import postgres_server
import pytest
from hypothesis import settings as hypothesis_settings
from postgres_server import Server

import findsession
from findsession.embeddings.base import Embedder
from findsession.embeddings.onnx_local import OnnxEmbedder, bundled_model_dir
from findsession.indexing import IndexReport, Root, index_roots
from findsession.sources import ENVIRONMENT
from findsession.sources.aider import file_id as aider_file_id
from findsession.storage import Storage, open_storage
from findsession.storage.sqlite import Store

# Property tests draw the same examples on every run and every machine: a change is never
# refused, or let through, by the luck of one draw. Each test's draws follow from its own
# name (`derandomize`), no example database carries one run's finds into the next, and a
# failure prints the blob that replays it. A longer random hunt is run by hand with
# `--hypothesis-profile=hunt` (docs/reliability.md); what it finds becomes an @example.
hypothesis_settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
hypothesis_settings.register_profile("hunt", derandomize=False, print_blob=True)
hypothesis_settings.load_profile("ci")

# Helper modules that test files both import and load as plugins (`pytest_plugins`): their
# asserts are rewritten whichever comes first, so a failure in them says what differed.
pytest.register_assert_rewrite("web_page", "other_user")

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("FINDSESSION_SHARED", REPO.parent / "shared"))
SAMPLE = REPO / "src" / "findsession" / "sample" / "claude" / "projects"
FIXTURES = REPO / "tests" / "fixtures"
#: The Aider fixture's session: its id holds a hash of where the checkout is.
AIDER_SESSION = (
    aider_file_id(FIXTURES / "aider" / "weather-station" / ".aider.chat.history.md")
    + ":20240305-101502"
)


def pytest_configure(config: pytest.Config) -> None:
    """The package compiled to bytecode before any test runs. The tests start thousands
    of CLI processes, each importing the package: where writing bytecode is turned off
    (`PYTHONDONTWRITEBYTECODE`, set on some machines and CI images) each compiled every
    module again, an index run 0.5 s instead of 0.2 s, a quarter of the test run
    (measured on three test files: 57.5 s, 43.5 s compiled). `compileall` writes it
    whatever that says, and only what is missing or stale: every worker may ask."""
    compileall.compile_dir(Path(findsession.__file__).parent, quiet=1)


@pytest.fixture(scope="session", autouse=True)
def model_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """One cache of mapped model copies (findsession.embeddings.onnx_cache) for the whole
    run, in-process and in every CLI subprocess: written once, not once per test's home
    (82 MB each), and never into the user's own cache."""
    path = tmp_path_factory.mktemp("model-cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("FINDSESSION_CACHE", str(path))
        yield path


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "index" / "findsession.db"


@pytest.fixture
def store(db_path: Path) -> Iterator[Store]:
    with Store.open(db_path) as s:
        yield s


@pytest.fixture
def projects(tmp_path: Path) -> Path:
    """An empty `~/.claude/projects` to write transcripts into."""
    root = tmp_path / "claude" / "projects"
    root.mkdir(parents=True)
    return root


def index(store: Store, root: Path, **kwargs: Any) -> IndexReport:
    return index_roots(store, [Root(root, "claude-code")], **kwargs)


@pytest.fixture(scope="session")
def embedder() -> Embedder:
    """The bundled model, loaded once for the whole run (it is read-only)."""
    return OnnxEmbedder(bundled_model_dir())


class CLI:
    """Runs `python -m findsession` in a subprocess with its own database and home."""

    def __init__(self, tmp_path: Path, db: Path) -> None:
        self.env = {
            **os.environ,
            "FINDSESSION_DB": str(db),
            "FINDSESSION_CONFIG": str(tmp_path / "config.toml"),
            "HOME": str(tmp_path / "home"),
            "CLAUDE_CONFIG_DIR": str(tmp_path / "home" / ".claude"),
            "COLUMNS": "200",
            "NO_COLOR": "1",
        }
        # Every other variable that points a source's standard place elsewhere (VS
        # Code's `User` folder follows XDG_CONFIG_HOME, Copilot CLI's COPILOT_HOME...):
        # the test's home decides, whatever the shell running the tests has set.
        for name in ENVIRONMENT:
            if name != "CLAUDE_CONFIG_DIR":
                self.env.pop(name, None)

    def run(self, *args: str, check: bool = True, **kwargs: Any) -> subprocess.CompletedProcess:
        proc = subprocess.run(
            [sys.executable, "-m", "findsession", *args],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=300,
            **kwargs,
        )
        if check and proc.returncode != 0:
            raise AssertionError(
                f"findsession {' '.join(args)} exited {proc.returncode}\n"
                f"{proc.stdout}\n{proc.stderr}"
            )
        return proc

    def json(self, *args: str) -> dict[str, Any]:
        """Run a command with `--json` (placed before any `--`) and parse its output."""
        return json.loads(self.run(args[0], "--json", *args[1:]).stdout)


@pytest.fixture
def cli(tmp_path: Path, db_path: Path) -> CLI:
    return CLI(tmp_path, db_path)


@pytest.fixture(scope="session")
def pg_server() -> Iterator[Server]:
    """One real PostgreSQL with pgvector for the whole run (see tests/postgres_server.py)."""
    yield from postgres_server.start()


@pytest.fixture
def pg_url(pg_server: Server) -> Iterator[str]:
    """The URL of a fresh database holding an empty index, dropped after the test."""
    name = pg_server.fresh_database()
    yield pg_server.url(name)
    pg_server.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


BACKEND_NAMES = ["sqlite", "postgresql"]


@pytest.fixture(params=BACKEND_NAMES)
def backend(request: pytest.FixtureRequest, db_path: Path) -> Callable[[], Storage]:
    """Opens an index of each backend: `backend()` again gives a second connection to
    the same index (another process, as far as the index can tell)."""
    if request.param == "sqlite":
        return lambda: open_storage(db_path)[0]
    url = request.getfixturevalue("pg_url")
    return lambda: open_storage(db_path, backend="postgresql", url=url)[0]


@pytest.fixture
def storage(backend: Callable[[], Storage]) -> Iterator[Storage]:
    """An open, empty index of each backend, for tests of the storage protocols."""
    opened = backend()
    yield opened
    opened.close()
