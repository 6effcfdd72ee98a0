"""The sources' seam, checked from the code: every source is one registry entry, every
variable a source reads is declared in it, and every hook is a member of the protocol,
used directly.

A variable a source reads but the registry does not list is one the login unit does not
carry: the service then indexes other places than the shell does. A hook read with
`getattr` is one the protocol does not declare: a source that spells it wrong is never
called, and nothing says so.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest
from test_units import Login, unit_command

from findsession.sources import ENTRIES, ENVIRONMENT, SOURCES, SPOKEN_NAMES, Source

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "findsession"
#: Where an agent's home is read from a variable its caller names (`env_home`).
READS_BY_NAME = {"places/common.py"}

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


def _environment_read(node: ast.AST) -> ast.expr | None:
    """The name a node reads from the environment (`os.environ.get(X)`,
    `os.environ[X]`, `os.getenv(X)`, `env_home(X, ...)`), or None."""
    if isinstance(node, ast.Subscript) and _is_environ(node.value):
        return node.slice
    if isinstance(node, ast.Call) and node.args:
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "get" and _is_environ(func.value):
            return node.args[0]
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
        if name in ("getenv", "env_home"):
            return node.args[0]
    return None


def _is_environ(node: ast.expr) -> bool:
    return (isinstance(node, ast.Attribute) and node.attr == "environ") or (
        isinstance(node, ast.Name) and node.id == "environ"
    )


def variables_read() -> dict[str, set[str]]:
    """The environment variables each module of `sources/` reads, by its path there."""
    found: dict[str, set[str]] = {}
    for path in sorted((PACKAGE / "sources").rglob("*.py")):
        name = path.relative_to(PACKAGE / "sources").as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            name_read = _environment_read(node)
            if name_read is None:
                continue
            literal = isinstance(name_read, ast.Constant) and isinstance(name_read.value, str)
            assert literal or name in READS_BY_NAME, (
                f"{name}:{getattr(node, 'lineno', 0)}: read the environment by a"
                " literal name, so the registry check can see it"
            )
            if literal:
                found.setdefault(name, set()).add(name_read.value)
    return found


def rules_read() -> dict[str, set[str]]:
    """The variables each function of `sources/places/` reads, itself or through the
    functions of that package it calls or passes on, by function name (each name once)."""
    functions = [
        node
        for path in sorted((PACKAGE / "sources" / "places").glob("*.py"))
        for node in ast.parse(path.read_text(encoding="utf-8")).body
        if isinstance(node, ast.FunctionDef)
    ]
    assert len({f.name for f in functions}) == len(functions)
    own: dict[str, set[str]] = {}
    uses: dict[str, set[str]] = {}
    for function in functions:
        names = [_environment_read(node) for node in ast.walk(function)]
        own[function.name] = {n.value for n in names if isinstance(n, ast.Constant)}
        uses[function.name] = {n.id for n in ast.walk(function) if isinstance(n, ast.Name)}

    def reads(name: str, seen: set[str]) -> set[str]:
        seen.add(name)
        found = set(own[name])
        for used in uses[name] & own.keys() - seen:
            found |= reads(used, seen)
        return found

    return {name: reads(name, set()) for name in own}


def test_every_variable_a_source_reads_is_declared_in_its_registry_entry() -> None:
    """Its module's reads and its place rules' (`Entry.places`, `Entry.in_project`)."""
    read = variables_read()
    rules = rules_read()
    assert set().union(*read.values()) == set(ENVIRONMENT)
    for entry in ENTRIES:
        module = entry.home.split(":")[0] + ".py"
        assert read.get(module, set()) <= set(entry.env), (entry.kind, read.get(module))
        for rule in (entry.places, entry.in_project):
            read_by_rule = rules[rule.__name__] if rule else set()
            assert read_by_rule <= set(entry.env), (entry.kind, read_by_rule)


def test_where_a_source_reads_is_its_entry_s_rules_alone() -> None:
    """An index run reads the standard places and the stores inside projects from the
    entries' rules (`sources.places`), importing no source: a source class that answered
    otherwise would read elsewhere than the run does."""
    for entry in ENTRIES:
        made = type(SOURCES[entry.kind])
        assert made.default_roots is Source.default_roots, entry.kind
        assert made.project_root is Source.project_root, entry.kind
        for rule in (entry.places, entry.in_project):
            assert rule is None or rule.__module__.startswith("findsession.sources.places."), (
                entry.kind
            )


def test_each_source_is_one_entry_made_from_the_class_it_names() -> None:
    assert [e.kind for e in ENTRIES] == list(SOURCES)
    for entry in ENTRIES:
        assert type(SOURCES[entry.kind]).__name__ == entry.home.split(":")[1]
    assert {e.kind: e.spoken for e in ENTRIES if e.agent} == SPOKEN_NAMES
    assert set(SOURCES) - set(SPOKEN_NAMES) == {"markdown", "journal", "memory"}


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="systemd units")
def test_the_login_unit_carries_every_variable_a_source_reads(tmp_path: Path) -> None:
    """Each variable the sources' code reads, set in the shell that installs the
    service, is in the unit it writes (the unit's own folder follows XDG_CONFIG_HOME)."""
    login = Login(tmp_path)
    read = set().union(*variables_read().values())
    places = {name: str(tmp_path / "places" / name.lower()) for name in sorted(read)}
    places["XDG_CONFIG_HOME"] = str(login.config_home)
    proc = login.run("service", "install", **places)
    assert proc.returncode == 0, proc.stderr
    _, env = unit_command(login.units / "findsession.service")
    assert {name: env.get(name) for name in places} == places


def test_the_kinds_and_the_agents_a_handoff_starts_come_from_the_registry() -> None:
    """`--source`'s list, the MCP tools' and `handoff --to`'s agents are read from the
    entries: a new source with a start command is offered everywhere at once."""
    from findsession.cli.parser import build_parser
    from findsession.sources import HANDOFF_AGENTS, KINDS
    from findsession.sources.starting import start_command

    assert sorted(KINDS) == sorted(entry.kind for entry in ENTRIES) == sorted(SOURCES)
    started = [entry for entry in ENTRIES if entry.start]
    assert tuple(dict.fromkeys(e.start.agent for e in started if e.start)) == HANDOFF_AGENTS
    for entry in started:
        for name in (entry.kind, entry.start.agent if entry.start else ""):
            plan = start_command(name, "-carry on", "/")
            assert plan.available and plan.command[0] == (entry.start and entry.start.agent)
            assert plan.command[-1] == "-carry on" or plan.command[-1].endswith("=-carry on")
    helps = build_parser().format_help() + " ".join(
        action.format_help()
        for action in build_parser()._subparsers._group_actions  # type: ignore[union-attr]
        for action in action.choices.values()
        if action.prog.endswith(("search", "handoff"))
    )
    assert all(kind in helps for kind in KINDS) and all(a in helps for a in HANDOFF_AGENTS)
