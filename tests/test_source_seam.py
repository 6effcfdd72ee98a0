"""The sources' seam, checked from the code: every hook is a member of the protocol, used
directly.

A hook read with `getattr` is one the protocol does not declare: a source that spells
it wrong is never called, and nothing says so.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from findsession.sources import SOURCES, Source

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "findsession"

#: Every member of the protocol a caller may use.
MEMBERS = {
    name
    for name in (*vars(Source), *Source.__annotations__)
    if not name.startswith("_") and name != "kind"
}


def test_every_source_derives_from_the_protocol_and_has_each_member() -> None:
    assert {"companions", "stamp_paths", "project_root", "report_notes"} <= MEMBERS
    for kind in SOURCES:
        source = SOURCES[kind]  # made: no abstract member is left without its body
        assert Source in type(source).__mro__ and source.kind == kind
        assert all(hasattr(source, name) for name in MEMBERS)


def test_no_hook_of_a_source_is_read_by_getattr() -> None:
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            called = getattr(node, "func", None)
            if getattr(called, "id", "") not in ("getattr", "hasattr"):
                continue
            assert isinstance(node, ast.Call)
            named = node.args[1] if len(node.args) > 1 else None
            if isinstance(named, ast.Constant) and named.value in MEMBERS:
                where = f"{path.relative_to(PACKAGE)}:{node.lineno}"
                pytest.fail(f"{where}: {named.value!r} is a member of Source: use it directly")
