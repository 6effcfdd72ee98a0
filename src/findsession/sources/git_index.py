"""Whether a file is tracked by git, read from the repository's index file, never by
running git.

A store an agent keeps inside a project (`.opencode/opencode.db`, `.crush/crush.db`,
SpecStory's `.specstory/history/`) can come with a cloned repository: committed by
someone else, it holds their sessions, or sessions written to be found. Whether a file
is tracked is what git's index file (`.git/index`) lists. Git itself is not run: in a
folder someone else made, its configuration may name a program git runs on the way
(`core.fsmonitor`), and starting it costs more than reading the file. The index is read
as git documents it (`gitformat-index`): versions 2 to 4, SHA-1 or SHA-256 object names,
a sparse index's folder entries, a split index's shared part; a file that cannot be read
or parsed tracks nothing. Each index is parsed once while it stays the same size and time.
"""

from __future__ import annotations

import os
import stat
import struct
from dataclasses import dataclass
from pathlib import Path

_HEADER = struct.Struct(">4sII")
#: An index file larger than this is not read (one of 100,000 files is about 10 MB).
MAX_INDEX_BYTES = 256 << 20
#: ctime, mtime (seconds and nanoseconds each), dev, ino, mode, uid, gid, size.
_STAT = 40


@dataclass(frozen=True, slots=True)
class _Listed:
    """What one index file lists: tracked paths, and the folders a sparse index keeps
    whole (every path below one is tracked)."""

    paths: frozenset[bytes]
    folders: tuple[bytes, ...]

    def holds(self, relative: str) -> bool:
        name = relative.encode("utf-8", "surrogateescape")
        return name in self.paths or any(name.startswith(f) for f in self.folders)


_parsed: dict[str, tuple[int, int, _Listed]] = {}


def tracked(path: Path) -> Path | None:
    """The work tree of the git repository whose index lists `path` (as git names it,
    relative to that tree), or None: in no repository, or not tracked there."""
    found = _repository(path.parent)
    if found is None:
        return None
    tree, git_dir = found
    try:
        relative = path.relative_to(tree).as_posix()
    except ValueError:
        return None
    listed = _listed(git_dir)
    return tree if listed is not None and listed.holds(relative) else None


def _repository(folder: Path) -> tuple[Path, Path] | None:
    """The nearest work tree at or above `folder` and its git folder (a `.git` folder,
    or the one a `.git` file names: a worktree's, a submodule's)."""
    for tree in (folder, *folder.parents):
        marker = tree / ".git"
        try:
            mode = os.lstat(marker).st_mode
        except OSError:
            continue
        if stat.S_ISDIR(mode):
            return tree, marker
        if stat.S_ISREG(mode):
            named = _named_git_dir(marker)
            return (tree, named) if named is not None else None
        return None
    return None


def _named_git_dir(marker: Path) -> Path | None:
    try:
        text = marker.read_text("utf-8", "replace")[:4096]
    except OSError:
        return None
    if not text.startswith("gitdir:"):
        return None
    named = Path(text[len("gitdir:") :].strip())
    return named if named.is_absolute() else marker.parent / named


def _listed(git_dir: Path) -> _Listed | None:
    index = git_dir / "index"
    try:
        st = os.stat(index)
    except OSError:
        return None
    key = str(index)
    kept = _parsed.get(key)
    if kept and kept[:2] == (st.st_mtime_ns, st.st_size):
        return kept[2]
    listed = _read(index, _hash_size(git_dir))
    if listed is not None:
        _parsed[key] = (st.st_mtime_ns, st.st_size, listed)
    return listed


def _hash_size(git_dir: Path) -> int:
    """20 bytes for SHA-1 object names; 32 when the repository says SHA-256."""
    common = git_dir
    try:
        pointer = (git_dir / "commondir").read_text("utf-8").strip()
        common = Path(pointer) if Path(pointer).is_absolute() else git_dir / pointer
    except OSError:
        pass
    try:
        config = (common / "config").read_text("utf-8", "replace").lower()
    except OSError:
        return 20
    squeezed = "".join(config.split())
    return 32 if "objectformat=sha256" in squeezed else 20


def _read(index: Path, hash_size: int, shared_part: bool = False) -> _Listed | None:
    """What the index file lists; a shared part's own `link` is not followed (git never
    writes one, and one naming itself would never end)."""
    try:
        if os.stat(index).st_size > MAX_INDEX_BYTES:
            return None
        data = index.read_bytes()
    except OSError:
        return None
    try:
        paths, folders, end = _entries(data, hash_size)
    except (struct.error, ValueError, IndexError):
        return None
    shared = None if shared_part else _shared_index(data, end, hash_size, index.parent)
    if shared is not None:
        paths |= shared.paths
        folders += shared.folders
    return _Listed(frozenset(paths), tuple(folders))


def _entries(data: bytes, hash_size: int) -> tuple[set[bytes], tuple[bytes, ...], int]:
    """Every entry's path, the sparse folders, and where the extensions start."""
    signature, version, count = _HEADER.unpack_from(data, 0)
    if signature != b"DIRC" or version not in (2, 3, 4):
        raise ValueError("not a git index")
    at, previous = _HEADER.size, b""
    paths: set[bytes] = set()
    folders: list[bytes] = []
    flags_at = _STAT + hash_size
    find = data.index
    for _ in range(count):
        start = at
        mode = int.from_bytes(data[at + 24 : at + 28], "big")
        at += flags_at + 2
        if version >= 3 and data[at - 2] & 0x40:  # the extended flag: two more bytes
            at += 2
        if version == 4:
            strip, at = _varint(data, at)
            end = find(b"\0", at)
            name = previous[: len(previous) - strip] + data[at:end]
            at = end + 1
            previous = name
        else:
            end = find(b"\0", at)
            name = data[at:end]
            at = start + ((end - start) // 8 + 1) * 8  # padded with 1 to 8 NULs
        if mode & 0o170000 == 0o040000 and name.endswith(b"/"):
            folders.append(name)
        else:
            paths.add(name)
    return paths, tuple(folders), at


def _varint(data: bytes, at: int) -> tuple[int, int]:
    """Git's offset varint (`varint.c`): 7 bits a byte, each continuation adding one."""
    byte = data[at]
    value = byte & 0x7F
    at += 1
    while byte & 0x80:
        byte = data[at]
        value = ((value + 1) << 7) | (byte & 0x7F)
        at += 1
    return value, at


def _shared_index(data: bytes, at: int, hash_size: int, git_dir: Path) -> _Listed | None:
    """The shared part a split index names in its `link` extension, if it does."""
    while at + 8 <= len(data) - hash_size:
        signature = data[at : at + 4]
        (size,) = struct.unpack_from(">I", data, at + 4)
        if signature == b"link":
            name = data[at + 8 : at + 8 + hash_size].hex()
            return _read(git_dir / f"sharedindex.{name}", hash_size, shared_part=True)
        at += 8 + size
    return None
