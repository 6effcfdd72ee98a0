"""Names a package offers, each imported when first asked for (PEP 562).

Every submodule import runs its package's `__init__` first, so a package that imported
all it offers would make the lightest command (`--help`, a search the service answers)
pay for the heaviest (numpy, the storage layer, every builder). The packages that gather
many names (`findsession`, `findsession.api`, `render`, `jsonout`, `sources`) list where
each lives and hand the list to `exports`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any


def exports(
    package: str, homes: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """`__getattr__` and `__dir__` for the module named `package`. `homes` maps each
    name to its module: a full name, a submodule of `package` (no dot), or either with
    `:other` when the name there is another."""

    def get(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module, _, there = home.partition(":")
        if "." not in module:
            module = f"{package}.{module}"
        value = getattr(import_module(module), there or name)
        setattr(sys.modules[package], name, value)  # asked once, then an ordinary attribute
        return value

    def names() -> list[str]:
        return sorted([*vars(sys.modules[package]), *homes])

    return get, names
