"""Walking a source's folders the one way every source does.

Each agent's layout decides which files are transcripts; how a folder tree is walked is
the same for all of them: links to folders are not followed (a loop under a root must not
hang the walk, and a link must not lead out of it), a folder that cannot be read goes to
`skip` with the reason rather than being dropped silently, and names come in sorted order
so runs are repeatable.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

from findsession.sources.base import Skip


def walk(root: Path, skip: Skip | None) -> Iterator[tuple[Path, list[str], list[str]]]:
    """Each folder under `root` with its subfolders and files, both sorted. The caller
    may prune the subfolders in place (`dirs[:] = ...`) to keep the walk out of them."""

    def unreadable(exc: OSError) -> None:
        if skip is not None and exc.filename:
            skip(Path(exc.filename), f"cannot read the folder: {exc.strerror or exc}")

    for folder, dirs, files in os.walk(root, onerror=unreadable, followlinks=False):
        dirs.sort()
        yield Path(folder), dirs, sorted(files)


def files_ending(root: Path, skip: Skip | None, suffix: str) -> Iterator[Path]:
    """Every file under `root` whose name ends with `suffix`; a file named as the root
    is taken whatever its folder."""
    if root.is_file():
        if root.name.endswith(suffix):
            yield root
        return
    for folder, _dirs, files in walk(root, skip):
        for name in files:
            if name.endswith(suffix):
                yield folder / name


def top_files(root: Path, skip: Skip, wanted: Callable[[str], bool]) -> Iterator[Path]:
    """The files at `root`'s top (not below) whose names `wanted` takes, sorted; `root`
    itself when it is such a file. The sources whose files all lie in one folder
    (Auggie, Continue, Kiro CLI: its store and its JSON-lines sessions) list it alike: a
    missing folder holds nothing, one that cannot be read goes to `skip`, a link is not
    followed."""
    if root.is_file():
        if wanted(root.name):
            yield root
        return
    try:
        names = sorted(e.name for e in os.scandir(root) if e.is_file(follow_symlinks=False))
    except FileNotFoundError:
        return
    except OSError as exc:
        skip(root, f"cannot read the folder: {exc.strerror or exc}")
        return
    yield from (root / name for name in names if wanted(name))
