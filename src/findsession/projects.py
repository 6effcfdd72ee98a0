"""What "this project" means, in one place: a project is its path or a path below it.

Every filter that scopes sessions to a project (search, `forget --project`, the MCP
server's default scope and `list_sessions`) asks `in_project`. A SQL `LIKE 'dir%'` was
used before and forgot neighbours: `_` and `%` are wildcards to LIKE and it ignores ASCII
case, so `/a/my_app` also matched `/a/myXapp` and `/a/MY_APP`, and `/a/%` matched
everything. Paths compare exactly, case-sensitively, wildcards literal; only paths that
look like Windows paths (`C:\\`, `\\\\server`) compare as Windows does, either separator,
any case.
"""

from __future__ import annotations

import re

_WINDOWS = re.compile(r"^(?:[A-Za-z]:[\\/]|\\\\)")


def is_windows_path(path: str) -> bool:
    """True for a path that looks like a Windows one (`C:\\`, `c:/`, `\\\\server`): it
    names the same folder in any case and with either separator."""
    return bool(_WINDOWS.match(path))


def normalise_project(path: str) -> str:
    """`path` without trailing separators (`/` stays `/`), the way cwd values are stored."""
    stripped = path.rstrip("/\\")
    if not stripped:
        return path[:1] or path
    if is_windows_path(path) and len(stripped) == 2 and stripped[1] == ":":
        return stripped + "\\"
    return stripped


def in_project(cwd: str | None, project: str) -> bool:
    """True when `cwd` is `project` or lies below it."""
    if cwd is None:
        return False
    root = normalise_project(project)
    if is_windows_path(root) or is_windows_path(cwd):
        root, cwd = root.replace("\\", "/").casefold(), cwd.replace("\\", "/").casefold()
    if root in ("/", ""):
        return cwd.startswith("/") or root == ""
    root = root.rstrip("/")
    return cwd == root or cwd.startswith(root + "/")


__all__ = ["in_project", "is_windows_path", "normalise_project"]
