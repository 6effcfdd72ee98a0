"""Walking a source's folders the one way every source does.

Each agent's layout decides which files are transcripts; how a folder tree is walked is
the same for all of them: links to folders are not followed (a loop under a root must not
hang the walk, and a link must not lead out of it), a folder that cannot be read goes to
`skip` with the reason rather than being dropped silently, and names come in sorted order
so runs are repeatable.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
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
