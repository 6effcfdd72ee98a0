"""What is on disk under the roots: the files each source finds, which of them may be
read (regular files, links only inside the roots), and what became of files that went."""

from __future__ import annotations

import os
import stat
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from findsession.domain import Root
from findsession.indexing.failures import failure_reason
from findsession.indexing.report import IndexReport
from findsession.sources import SOURCES, Skip, main_file
from findsession.sources.git_index import tracked
from findsession.sources.opening import file_type
from findsession.storage.base import FileState
from findsession.storage.views import IndexStore

if TYPE_CHECKING:
    from findsession.archive.keeper import Archive


@dataclass(frozen=True, slots=True)
class Found:
    """A file a source found that may be read, with its root and stat."""

    path: Path
    source: str
    root: str
    stat: os.stat_result


def scan(
    roots: list[Root],
    report: IndexReport,
    seen: set[str],
    unwalked: set[str] | None = None,
    committed: Committed | None = None,
) -> list[Found]:
    """Every readable file the roots' sources find, each once; `seen` gets every path
    found (readable or not) and what is left out goes to the report's `skipped`.

    A source that fails while walking a root costs that root's walk, not the run: it is
    reported, the files found before go on, and the root goes to `unwalked` (what was
    not seen there did not vanish). A store kept inside a project that git tracks there
    (it came with the repository) is left out unless `committed` reads such stores."""
    committed = committed or Committed()
    inside = _Inside(roots)
    found: list[Found] = []

    def skip(path: Path, reason: str) -> None:
        report.skipped.append((shown(str(path)), reason))

    for root in roots:
        try:
            for path in SOURCES[root.source].discover(root.path, skip):
                key = str(path)
                if key in seen:
                    continue
                seen.add(key)
                report.files_seen += 1
                if not _utf8(key):
                    # Written under another locale; the index keeps paths as UTF-8 text.
                    skip(path, "its name is not valid UTF-8; rename it to index it")
                    continue
                st = _regular_file(path, inside, skip)
                if st is not None and not committed.left_out(root.source, path, skip):
                    found.append(Found(path, root.source, str(root.path), st))
        except Exception as exc:  # noqa: BLE001 - one root's walk must not end the run
            reason = f"{failure_reason(exc)}; its folder was not walked to the end"
            report.errors.append((shown(str(root.path)), reason))
            if unwalked is not None:
                unwalked.add(str(root.path))
    return found


@dataclass
class Committed:
    """Stores kept inside a project that its git repository tracks: committed, so they
    came with a clone as readily as from this machine's agent, holding someone else's
    sessions as "yours" (`[privacy] committed_stores`). Left out unless `read`; those
    left out are named, and gathered in `paths` so what they gave before goes."""

    read: bool = False
    paths: set[str] = field(default_factory=set)

    def left_out(self, source: str, path: Path, skip: Skip) -> bool:
        if self.read or not SOURCES[source].kept_in_project(path):
            return False
        repository = tracked(path)
        if repository is None:
            return False
        self.paths.add(str(path))
        skip(
            path,
            f"left out: committed to the git repository at {shown(str(repository))}, so it"
            " may hold someone else's sessions ([privacy] committed_stores = \"index\" reads it)",
        )
        return True


def _utf8(path: str) -> bool:
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def shown(path: str) -> str:
    """A path as text that can be printed and stored: undecodable bytes as `\\xe9`."""
    return path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


class _Inside:
    """Whether a path lies inside one of the run's roots, links resolved."""

    def __init__(self, roots: list[Root]) -> None:
        self.roots = [os.path.realpath(r.path) for r in roots]

    def __call__(self, path: str) -> bool:
        real = os.path.realpath(path)
        return any(real == r or real.startswith(r.rstrip(os.sep) + os.sep) for r in self.roots)


def _regular_file(path: Path, inside: _Inside, skip: Skip) -> os.stat_result | None:
    """The file's stat when it may be read; else None, and `skip` says why.

    A FIFO named `*.jsonl` hung every run (opening it blocks until a writer comes); a
    link to `/etc/passwd` was followed and stored. Only regular files are read, and a
    link only when it leads to one inside the indexed folders.
    """
    try:
        lst = os.lstat(path)
        st = os.stat(path) if stat.S_ISLNK(lst.st_mode) else lst
    except FileNotFoundError:
        gone = "a symbolic link to nothing" if os.path.islink(path) else "vanished"
        skip(path, gone)
        return None
    except OSError as exc:
        skip(path, os_error(exc))
        return None
    if stat.S_ISLNK(lst.st_mode) and not inside(str(path)):
        skip(path, "a symbolic link to a file outside the indexed folders; not followed")
        return None
    if not stat.S_ISREG(st.st_mode):
        skip(path, f"not a regular file ({file_type(st.st_mode)}); not read")
        return None
    return st


def os_error(exc: OSError) -> str:
    return exc.strerror or str(exc)


def handle_vanished(
    store: IndexStore,
    roots: list[Root],
    known: dict[str, FileState],
    seen: set[str],
    prune: bool,
    report: IndexReport,
    archive: Archive | None = None,
) -> set[str]:
    """Keep sessions whose file is gone (marked missing) unless asked to prune them
    (then their copies in `archive` go too: the person asked for them to be gone).

    A pruned file's lines may live on in another file that repeated them (a copy in an
    archive root, a project folder moved within a root, a resumed session): those lines
    were skipped as replays, so each such file is read again, and the session stays
    while any indexed file still holds it. Returns the files to read again.
    """
    root_keys = {str(r.path) for r in roots}
    reread: set[str] = set()
    for path, state in known.items():
        if path in seen or state.root not in root_keys or os.path.exists(path):
            continue
        with store.transaction():
            if prune:
                replaying = store.replaying_files(path)
                store.remove_file(path)
                report.files_pruned += 1
                if archive is not None:
                    archive.drop([path])
                for other in replaying:
                    if other in known and other != path:
                        store.read_again(other)
                        reread.add(other)
            elif state.status != "missing":
                store.set_file_status(path, "missing")
                report.files_missing += 1
    return reread


def known_changes(
    store: IndexStore, roots: list[Root], paths: Collection[str]
) -> tuple[list[Found], dict[str, FileState]] | None:
    """`paths` as scan results with their stored states, when each is a regular file the
    index already reads under one of `roots`; None when any is new, gone or no longer a
    regular file, so only a full scan can say what it is. A new path that no source of
    its root would read (an agent writes logs and caches beside its transcripts) is
    passed over: it must not cost a walk of every root each time the agent writes one."""
    root_keys = {str(r.path) for r in roots}
    mains = {p: main_file(p) for p in paths}
    known = store.file_states([*paths, *(m for m in mains.values() if m)])
    wanted: list[str] = []
    for path in paths:
        main = mains[path]
        # An agent writing its database changes the files beside it, not the database.
        owner = known[main].source if main in known and path not in known else None
        if owner in SOURCES and SOURCES[owner].companions:
            wanted.append(main)
        else:
            wanted.append(path)
    meant: list[str] = []
    for path in dict.fromkeys(wanted):
        if path in known:
            meant.append(path)
            continue
        about = _changed_file(path, roots)
        if about == path:
            return None  # it may be a new transcript: only a walk says
        if about is not None:
            meant.append(about)  # a file another transcript's stamp holds
    known.update(store.file_states([p for p in meant if p not in known]))
    found: list[Found] = []
    for path in dict.fromkeys(meant):
        state = known.get(path)
        if state is None:
            return None
        if state.root not in root_keys or state.source not in SOURCES:
            return None
        try:
            st = os.stat(path, follow_symlinks=False)
        except OSError:
            return None
        if not stat.S_ISREG(st.st_mode):
            return None
        found.append(Found(Path(path), state.source, state.root, st))
    return found, known


def _changed_file(path: str, roots: list[Root]) -> str | None:
    """What a changed path the index does not know is about: itself when it may be a
    new transcript (a new folder, or a file a source of a root holding it may read:
    `Source.changed_file`), another transcript whose stamp holds it, or None: gone
    again, outside every root, or nothing any source there reads."""
    holders = [r for r in roots if path.startswith(str(r.path).rstrip(os.sep) + os.sep)]
    if not holders:
        return None
    try:
        st = os.stat(path, follow_symlinks=False)
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode):
        return path  # a new folder (or link): only a walk says what is in it
    candidate = Path(path)
    try:
        meant = {SOURCES[r.source].changed_file(candidate) for r in holders if r.source in SOURCES}
    except Exception:  # noqa: BLE001 - the full scan says what failed, and goes on
        return path
    meant.discard(None)
    if candidate in meant or len(meant) > 1:
        return path
    return str(meant.pop()) if meant else None
