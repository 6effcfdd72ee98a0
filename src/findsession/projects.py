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

import posixpath
import re

from findsession.errors import OutOfScope

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


def bounded(project: str | None, boundary: str | None) -> str | None:
    """The project a call may reach under `boundary` (None: no boundary, every project).

    `project` itself when it is the boundary or lies below it; the boundary when the call
    names no project; `OutOfScope` when it reaches outside (`/`, a neighbour, a `..` out).
    An interface started for one project (the MCP server) passes its project as the
    boundary on every call, so no argument of the call can widen it.
    """
    if boundary is None:
        return project
    if not project:
        return boundary
    if not is_windows_path(project):
        project = posixpath.normpath(project)
    if in_project(normalise_project(project), boundary):
        return project
    raise OutOfScope(
        f"{project} is outside {boundary}, the project findsession answers for here: only"
        " it and the folders below it can be reached (the person can open every project"
        " in findsession's config, [mcp] all_projects = true)"
    )


def within(cwd: str | None, boundary: str | None) -> bool:
    """Whether a session that ran in `cwd` may be reached under `boundary`."""
    return boundary is None or in_project(cwd, boundary)


__all__ = ["bounded", "in_project", "is_windows_path", "normalise_project", "within"]
