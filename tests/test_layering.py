"""The package's layers, checked from the code's own imports.

Data flows one way: sources -> index -> storage -> search -> core API -> interfaces.
An interface (the CLI, the MCP server) that reached past the core API grew its own copy
of index-then-embed, of the project filter and of session lookup, and the copies
drifted (one of them forgot neighbouring projects). A source that knew the database
could not be reused by another backend.
"""

from __future__ import annotations

import ast
import re
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
    "findsession.domain",
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
    above = ("findsession.storage", "findsession.indexing", "findsession.search", "findsession.api")
    for path in sorted((PACKAGE / "sources").glob("*.py")):
        bad = {m for m in _imports(path) if m.startswith(above)} | ({"apsw"} & _imports(path))
        assert not bad, (path.name, sorted(bad))


def test_sql_and_the_driver_live_in_the_store_package_alone() -> None:
    """Every SQL statement and every use of apsw is in `findsession/storage/sqlite/`: a second
    backend is one more package, and nothing above the store reaches into its connection."""
    sql = re.compile(r"\b(SELECT|INSERT INTO|UPDATE \w+ SET|DELETE FROM|CREATE TABLE)\b")
    reach = re.compile(r"\.(db|query|scalar)\b[.(]")
    for path in sorted(PACKAGE.rglob("*.py")):
        if (PACKAGE / "storage" / "sqlite") in path.parents:
            continue
        name = str(path.relative_to(PACKAGE))
        assert "apsw" not in _imports(path), name
        text = path.read_text(encoding="utf-8")
        assert not sql.search(text), (name, sql.search(text))
        assert not reach.search(text), (name, reach.search(text))
