"""Whether a stored write is of the file asked about, as the session saw the path.

A session names a file absolutely, or relative to the directory it worked in (the index
resolved that when it stored the write), and a project moves: the clone in
`~/code/shop` is the same project as the one a session edited in `/old/disk/shop`. So a
write matches the file when its absolute path is the file's (`exact`), when its path
below its session's directory, with that directory's own name, ends the file's path
(`moved`: `shop/src/app.py` below any `…/shop`), or, for a relative path with no
directory known, when that path of two parts or more ends the file's (`relative`).
A bare name (`README.md`) below an unknown directory matches nothing: every project
has one.
"""

from __future__ import annotations

import os
import posixpath
from dataclasses import dataclass

from findsession.errors import FindsessionError
from findsession.storage.base import WriteMatch


@dataclass(frozen=True, slots=True)
class Target:
    """The file asked about, in the forms a session may have seen it."""

    #: Its absolute path as given, and with links resolved.
    forms: frozenset[str]
    name: str
    #: `/folder/name`: what every path that can match ends with (an exact path, a moved
    #: project's, a relative path of two parts or more), for the index to narrow by.
    tail: str

    @classmethod
    def of(cls, path: str) -> Target:
        if "\x00" in path:
            raise FindsessionError(f"{path!r} is no path: a file's name never holds a NUL")
        given = posixpath.normpath(os.path.abspath(os.path.expanduser(path)))
        forms = {given, posixpath.normpath(os.path.realpath(given))}
        folder, name = posixpath.split(given)
        tail = f"/{posixpath.basename(folder)}/{name}" if posixpath.basename(folder) else "/" + name
        return cls(frozenset(forms), name, tail)


def match(write: WriteMatch, target: Target) -> str | None:
    """`exact`, `moved`, `relative`, or None when the write is of another file."""
    absolute = write.abs_path
    if absolute is None and write.path.startswith("~"):
        absolute = posixpath.normpath(os.path.expanduser(write.path))
    if absolute is not None and absolute in target.forms:
        return "exact"
    if absolute is not None:
        for root in (write.session_cwd, write.cwd):
            below = _below(absolute, root)
            if below and any(form.endswith("/" + below) for form in target.forms):
                return "moved"
        return None
    relative = posixpath.normpath(write.path.replace("\\", "/")).lstrip("/")
    known = "/" in relative and not relative.startswith("..")
    if known and any(form.endswith("/" + relative) for form in target.forms):
        return "relative"
    return None


def _below(path: str, root: str | None) -> str | None:
    """`path` below `root`, led by the root's own folder name (`shop/src/app.py`)."""
    if not root:
        return None
    root = posixpath.normpath(root.replace("\\", "/"))
    if root == "/" or not path.startswith(root + "/"):
        return None
    return posixpath.basename(root) + path[len(root) :]
