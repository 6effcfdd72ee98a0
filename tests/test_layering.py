"""The package's layers, checked from the code's own imports.

Data flows one way: sources -> index -> storage -> search -> core API -> interfaces.
An interface (the CLI, the MCP server) that reached past the core API grew its own copy
of index-then-embed, of the project filter and of session lookup, and the copies
drifted (one of them forgot neighbouring projects). A source that knew the database
could not be reused by another backend.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "findsession"
#: What an interface may import from the package: the core API, rendering, the JSON
#: schemas, the error tree and the domain's dataclasses.
INTERFACE_MAY_IMPORT = {
    "findsession.api",
    "findsession.render",
    "findsession.jsonout",
    "findsession.errors",
    "findsession.model",
    "findsession.mcp_server",  # the CLI's `serve` starts it
    "findsession",
}
INTERFACES = ("cli.py", "mcp_server.py")


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


@pytest.mark.parametrize("name", INTERFACES)
def test_interfaces_reach_the_index_only_through_the_core_api(name: str) -> None:
    ours = {m for m in _imports(PACKAGE / name) if m.split(".")[0] == "findsession"}
    assert ours <= INTERFACE_MAY_IMPORT, sorted(ours - INTERFACE_MAY_IMPORT)
    assert "apsw" not in _imports(PACKAGE / name)


def test_sources_import_nothing_from_storage_or_above() -> None:
    above = ("findsession.store", "findsession.index", "findsession.search", "findsession.api")
    for path in sorted((PACKAGE / "sources").glob("*.py")):
        bad = {m for m in _imports(path) if m.startswith(above)} | ({"apsw"} & _imports(path))
        assert not bad, (path.name, sorted(bad))


def test_sql_driver_stays_below_the_core_api() -> None:
    """apsw may be used by the store and the modules that still hold SQL of their own
    (moving those into one storage package is the next step); never above them."""
    never = {"api.py", "cli.py", "mcp_server.py", "render.py", "jsonout.py"}
    for name in never:
        assert "apsw" not in _imports(PACKAGE / name), name
