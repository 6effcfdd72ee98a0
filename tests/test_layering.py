"""The package's layers, checked from the code's own imports.

Data flows one way: sources -> index -> storage -> search -> core API -> interfaces.
An interface (the CLI, the MCP server) that reached past the core API grew its own copy
of index-then-embed, of the project filter and of session lookup, and the copies
drifted (one of them forgot neighbouring projects). A source that knew the database
could not be reused by another backend.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
from pathlib import Path

import pytest

from findsession.storage import BACKENDS
from findsession.storage.base import (
    PROTOCOLS,
    Embedding,
    Index,
    IndexWriter,
    KeywordIndex,
    SearchReader,
    SessionReader,
    TitleLog,
    VectorIndex,
    WriteIndex,
    methods_of,
)
from findsession.storage.postgresql import Store as PostgresStore
from findsession.storage.sqlite import Store

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "findsession"
#: The backend packages: the only places apsw and psycopg may appear.
BACKEND_DIRS = tuple(PACKAGE / "storage" / name for name in BACKENDS)
#: The statements every backend runs, written once: SQL, but no driver and no backend.
QUERY_LAYER = PACKAGE / "storage" / "sql"
#: Database drivers, each imported by its backend alone.
DRIVERS = {"apsw", "psycopg"}


def _in_a_backend(path: Path) -> bool:
    return any(folder in path.parents for folder in BACKEND_DIRS)


def _may_hold_sql(path: Path) -> bool:
    return _in_a_backend(path) or QUERY_LAYER in path.parents


#: What an interface may import from the package: the core API, rendering, the JSON
#: schemas, the error tree, the domain's dataclasses, where the index is (`paths`), the
#: protocol every interface speaks to the service (and the context a command runs in),
#: the file watcher the service and the MCP server both run, and its own package; never
#: another interface (the CLI importing the MCP server, the page importing the CLI's
#: shell quoting is how interfaces grew into each other). The few places one interface
#: runs another name it as `module:function`, in a table checked below.
INTERFACE_MAY_IMPORT = {
    "findsession.api",
    "findsession.render",
    "findsession.jsonout",
    "findsession.errors",
    "findsession.domain",
    "findsession.paths",
    "findsession.freshness",
    "findsession",
}
#: Rendering is a package each (one module per command family): any of their modules too;
#: so is the protocol every interface speaks to the service.
RENDERING = ("findsession.render", "findsession.jsonout", "findsession.protocol")
#: The interfaces, as modules or packages of the package; every file of a package is checked.
INTERFACES = ("cli", "mcp_server", "service", "web")


def _interface_files() -> list[Path]:
    files = []
    for name in INTERFACES:
        package = PACKAGE / name
        files += sorted(package.rglob("*.py")) if package.is_dir() else [package.with_suffix(".py")]
    return files


def _interface_of(module: str) -> str | None:
    """The interface `module` belongs to, or None."""
    for name in INTERFACES:
        if module == f"findsession.{name}" or module.startswith(f"findsession.{name}."):
            return name
    return None


def _may_import(module: str, own: str | None = None) -> bool:
    """Whether an interface (`own`) may import `module`."""
    interface = _interface_of(module)
    if interface is not None:
        return interface == own
    rendering = module in RENDERING or module.startswith(tuple(f"{r}." for r in RENDERING))
    return rendering or module in INTERFACE_MAY_IMPORT


def _imports(path: Path) -> set[str]:
    """Every module `path` imports, relative imports resolved (`from ..storage import x`
    counts as `findsession.storage`), so no form of import slips past the rules."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = ["findsession", *path.relative_to(PACKAGE).parent.parts]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                found.add(".".join([*base, *([node.module] if node.module else [])]))
            elif node.module:
                found.add(node.module)
    return found


@pytest.mark.parametrize("path", _interface_files(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_interfaces_reach_the_index_only_through_the_core_api(path: Path) -> None:
    """Nor does one import another, not even for a type."""
    own = path.relative_to(PACKAGE).parts[0].removesuffix(".py")
    ours = {m for m in _imports(path) if m.split(".")[0] == "findsession"}
    wrong = sorted(m for m in ours if not _may_import(m, own))
    assert not wrong, wrong
    assert not DRIVERS & {m.split(".")[0] for m in _imports(path)}


def test_below_the_interfaces_nothing_imports_one() -> None:
    """What the interfaces share (the protocol, rendering, the watcher, the core API)
    knows none of them."""
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == PACKAGE / "__main__.py":  # `python -m findsession` is the command line
            continue
        if _interface_of("findsession." + ".".join(path.relative_to(PACKAGE).parts)):
            continue
        wrong = sorted(m for m in _imports(path) if _interface_of(m))
        assert not wrong, (str(path.relative_to(PACKAGE)), wrong)


def test_what_one_interface_runs_of_another_is_named_in_a_table_that_resolves() -> None:
    """The command table (`serve` is the MCP server's, `ui` the page's, `service` and
    `schedule` the service's) and what the service hosts (the page, an MCP session) name
    `module:function`; each must exist, or a command fails only when it is typed."""
    from findsession.cli.table import COMMANDS
    from findsession.service.hosted import HOSTED, STOPS

    refs = [c.run for c in COMMANDS] + list(HOSTED.values()) + list(STOPS.values())
    for ref in refs:
        module, _, name = ref.partition(":")
        assert callable(getattr(importlib.import_module(module), name, None)), ref
    assert {_interface_of(c.run.partition(":")[0]) for c in COMMANDS} == set(INTERFACES)


def test_rendering_modules_count_as_rendering_and_nothing_else_does() -> None:
    assert _may_import("findsession.render.text") and _may_import("findsession.jsonout.search")
    assert not _may_import("findsession.renderer") and not _may_import("findsession.search")
    assert _may_import("findsession.cli.table", "cli")
    assert not _may_import("findsession.cli.table", "web")
    assert not _may_import("findsession.mcp_server", "cli")


def test_every_interface_is_checked() -> None:
    """A renamed or moved interface must not leave the check above with nothing to read."""
    files = _interface_files()
    assert all(path.exists() for path in files), files
    assert {path.relative_to(PACKAGE).parts[0].removesuffix(".py") for path in files} == set(
        INTERFACES
    )


def test_sources_import_nothing_from_storage_or_above() -> None:
    above = (
        "findsession.storage",
        "findsession.indexing",
        "findsession.search",
        "findsession.api",
        "findsession.core",
    )
    for path in sorted((PACKAGE / "sources").rglob("*.py")):
        bad = {m for m in _imports(path) if m.startswith(above)} | ({"apsw"} & _imports(path))
        assert not bad, (path.name, sorted(bad))


#: Modules outside the store that may hold SQL text: reading another tool's own database,
#: read-only, is not our storage (Codex keeps its thread names in `state_<n>.sqlite`;
#: OpenCode, Goose, Crush, Kiro and Cursor keep whole sessions in one). Each such source
#: module is named `*_db.py` and opens the database through `sources/foreign_db.py`.
FOREIGN_DATABASE_READERS = {"sources/codex_titles.py", "sources/foreign_db.py"}
#: What a reader of another tool's database must never say.
WRITES = re.compile(
    r"\b(INSERT|UPDATE \w+ SET|DELETE FROM|CREATE|DROP|ALTER|REPLACE INTO|VACUUM)\b"
)


def _reads_a_foreign_database(name: str) -> bool:
    return name in FOREIGN_DATABASE_READERS or (
        name.startswith("sources/") and name.endswith("_db.py")
    )


def test_sql_and_the_driver_live_in_the_store_package_alone() -> None:
    """Every SQL statement is in a backend package (`findsession/storage/sqlite/`,
    `.../postgresql/`) or in the statements they share (`findsession/storage/sql/`), and
    every use of a driver (apsw, psycopg) in its backend: a backend is one more package,
    and nothing above the store reaches into its connection."""
    sql = re.compile(r"\b(SELECT|INSERT INTO|UPDATE \w+ SET|DELETE FROM|CREATE TABLE)\b")
    reach = re.compile(r"\.(db|query|scalar)\b[.(]")
    assert all(folder.is_dir() for folder in (*BACKEND_DIRS, QUERY_LAYER)), BACKEND_DIRS
    for path in sorted(PACKAGE.rglob("*.py")):
        if _in_a_backend(path):
            continue
        if _may_hold_sql(path):
            assert not DRIVERS & {m.split(".")[0] for m in _imports(path)}, path.name
            continue
        name = path.relative_to(PACKAGE).as_posix()
        assert not DRIVERS & {m.split(".")[0] for m in _imports(path)}, name
        text = path.read_text(encoding="utf-8")
        if not _reads_a_foreign_database(name):
            assert not sql.search(text), (name, sql.search(text))
            assert "sqlite3" not in _imports(path), name
        assert not reach.search(text), (name, reach.search(text))


def test_another_tools_database_is_only_read() -> None:
    """An agent's own database is its to write: a source reads it through the read-only
    opener (query_only, `mode=ro`) and holds no statement that could change it."""
    readers = [
        p
        for p in sorted((PACKAGE / "sources").glob("*.py"))
        if _reads_a_foreign_database(p.relative_to(PACKAGE).as_posix())
    ]
    assert len(readers) >= 2
    for path in readers:
        text = path.read_text(encoding="utf-8")
        name = path.relative_to(PACKAGE).as_posix()
        assert not WRITES.search(text), (name, WRITES.search(text))
        if name not in FOREIGN_DATABASE_READERS:
            assert "sqlite3.connect" not in text, name


def test_only_the_backend_names_its_backend() -> None:
    """Indexing, search and the core API speak to `findsession.storage.base`'s protocols;
    a module that imported a backend package would have to change for another backend.
    Nor does one backend import the other: each stands alone."""
    for path in sorted(PACKAGE.rglob("*.py")):
        for folder in BACKEND_DIRS:
            if folder in path.parents:
                continue
            backend = f"findsession.storage.{folder.name}"
            bad = {m for m in _imports(path) if m == backend or m.startswith(backend + ".")}
            assert not bad, (str(path.relative_to(PACKAGE)), sorted(bad))


def test_storage_imports_nothing_from_the_layers_above() -> None:
    above = (
        "findsession.indexing",
        "findsession.search",
        "findsession.api",
        "findsession.core",
        "findsession.cli",
    )
    for path in sorted((PACKAGE / "storage").rglob("*.py")):
        bad = {m for m in _imports(path) if m.startswith(above)}
        assert not bad, (str(path.relative_to(PACKAGE)), sorted(bad))


@pytest.mark.parametrize("store_class", [Store, PostgresStore], ids=["sqlite", "postgresql"])
@pytest.mark.parametrize("protocol", PROTOCOLS, ids=lambda p: p.__name__)
def test_each_store_answers_every_storage_method(protocol: type, store_class: type) -> None:
    """What a backend must provide is written down once, in the protocols; each store
    provides all of it, under the same parameter names."""
    methods = {
        name: member
        for name, member in vars(protocol).items()
        if callable(member) and not name.startswith("_")
    }
    assert methods
    for name, member in methods.items():
        ours = getattr(store_class, name, None)
        assert ours is not None, f"{store_class.__module__} Store has no {name}"
        wanted = list(inspect.signature(member).parameters)
        assert list(inspect.signature(ours).parameters) == wanted, name


@pytest.mark.parametrize("protocol", PROTOCOLS, ids=lambda p: p.__name__)
def test_each_open_store_has_the_protocols_attributes(protocol: type, storage: object) -> None:
    for attribute in getattr(protocol, "__annotations__", {}):
        assert hasattr(storage, attribute), f"{type(storage).__module__} Store has no {attribute}"


#: The protocols each layer that uses the index is the user of (storage/base.py): search
#: reads and never writes; an index run writes, and reads back what it rebuilds from.
USERS = {
    "search": (Index, SearchReader, KeywordIndex, VectorIndex, SessionReader),
    "indexing": (Index, IndexWriter, Embedding, SessionReader, TitleLog, WriteIndex),
}


def _methods_called(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {
        node.func.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
    }


@pytest.mark.parametrize("layer", sorted(USERS))
def test_each_layer_asks_the_index_only_what_its_protocols_name(layer: str) -> None:
    """The protocols are split by who uses them; a layer that called another's method
    (search writing, an index run ranking) would blur what each may do to the index."""
    allowed = {name for protocol in USERS[layer] for name in methods_of(protocol)}
    others = {name for p in PROTOCOLS if p not in USERS[layer] for name in methods_of(p)}
    files = sorted((PACKAGE / layer).rglob("*.py"))
    assert files
    for path in files:
        wrong = _methods_called(path) & (others - allowed)
        assert not wrong, (str(path.relative_to(PACKAGE)), sorted(wrong))


def test_every_protocol_method_is_asked_for_once() -> None:
    """One method, one protocol: a name in two would be two promises to keep alike."""
    names = [name for protocol in PROTOCOLS for name in methods_of(protocol)]
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)


def test_callers_outside_storage_name_the_protocols_they_use_not_the_whole_index() -> None:
    """`Storage` (every protocol at once) is what opens an index and hands it on, the
    core API; everyone else is typed against what it asks of the index
    (`storage/views.py`), so what each may do to it is read from its signature."""
    whole = re.compile(r"\bStorage\b")
    for path in sorted(PACKAGE.rglob("*.py")):
        where = path.relative_to(PACKAGE).parts[0]
        if where in ("storage", "core"):
            continue
        assert not whole.search(path.read_text(encoding="utf-8")), str(path.relative_to(PACKAGE))
