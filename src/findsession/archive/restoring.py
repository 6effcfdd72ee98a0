"""Writing an archived transcript back where its agent looks for it, and nowhere else.

The target must lie inside the agent's folder (the source's own place, or one the
config names for it), reached from there through real folders only: each folder below
it is opened with `O_NOFOLLOW` (a symbolic link planted inside the agent's folder could
send the write anywhere), and a missing one is made (0700). The agent's folder itself
may be a link (a dotfiles set-up links `~/.claude`): the person put it there. Nothing is
written over a file, nor over anything else at that name.

The bytes go to a private temporary file beside the target, are checked against the
archive's checksums as they come (`frames.contents`), and only when every frame passed is
the file given its name, with `link`, which fails rather than replace a file that
appeared meanwhile. The restored file is dated now, so the agent's own clean-up leaves
it for another period.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from collections.abc import Iterable
from pathlib import Path

from findsession.archive.folder import ArchiveError

_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
_NEW = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)


class RestoreRefused(ArchiveError):
    """A transcript is not written back: the target is taken, outside the agent's folder,
    or under a symbolic link."""


def inside(target: str, folder: Path) -> list[str] | None:
    """The names from `folder` down to `target`, when `target` lies inside it as written
    (no `..` may leave it); else None."""
    if not os.path.isabs(target):
        return None
    base = os.path.normpath(str(folder))
    path = os.path.normpath(target)
    if os.path.commonpath([base, path]) != base or path == base:
        return None
    return os.path.relpath(path, base).split(os.sep)


def write_back(chunks: Iterable[bytes], target: str, folder: Path) -> int:
    """Write `chunks` (checked as they come) to `target` inside `folder`; the bytes
    written. `RestoreRefused` when the target may not be written, with why."""
    names = inside(target, folder)
    if names is None:
        raise RestoreRefused(f"{target} is not inside {folder}, where its agent looks")
    try:
        here = os.open(os.path.realpath(folder), _DIRECTORY)
    except OSError as exc:
        raise RestoreRefused(f"cannot open the agent's folder {folder} ({_why(exc)})") from exc
    try:
        for name in names[:-1]:
            below = _down(here, name, target)
            os.close(here)
            here = below
        return _write(here, names[-1], chunks, target)
    finally:
        os.close(here)


def _down(here: int, name: str, target: str) -> int:
    """The folder `name` inside `here`, made if missing, never a link."""
    try:
        try:
            below = os.open(name, _DIRECTORY, dir_fd=here)
        except FileNotFoundError:
            with contextlib.suppress(FileExistsError):
                os.mkdir(name, 0o700, dir_fd=here)
            below = os.open(name, _DIRECTORY, dir_fd=here)
    except OSError as exc:
        if _is_link(here, name):
            raise RestoreRefused(
                f"{target} lies under a symbolic link ({name}): nothing is written through one"
            ) from exc
        raise RestoreRefused(f"cannot reach the folder of {target} ({_why(exc)})") from exc
    return below


def _write(here: int, name: str, chunks: Iterable[bytes], target: str) -> int:
    try:
        os.stat(name, dir_fd=here, follow_symlinks=False)
    except FileNotFoundError:
        pass
    else:
        raise RestoreRefused(f"{target} exists: nothing is written over it")
    scratch = f".{name}.restoring-{secrets.token_hex(4)}"
    try:
        out = os.open(scratch, _NEW, 0o600, dir_fd=here)
    except OSError as exc:
        raise RestoreRefused(f"cannot write in the folder of {target} ({_why(exc)})") from exc
    try:
        written = 0
        with os.fdopen(out, "wb") as fh:
            for chunk in chunks:
                fh.write(chunk)
                written += len(chunk)
            fh.flush()
            os.fsync(fh.fileno())
        _name(here, scratch, name, target)
        return written
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(scratch, dir_fd=here)


def _name(here: int, scratch: str, name: str, target: str) -> None:
    """Give the finished file its name, never replacing one that appeared meanwhile."""
    try:
        os.link(scratch, name, src_dir_fd=here, dst_dir_fd=here, follow_symlinks=False)
        return
    except FileExistsError as exc:
        raise RestoreRefused(f"{target} appeared meanwhile: nothing is written over it") from exc
    except OSError:
        pass  # no hard links on this file system: copy into a name made only if free
    try:
        out = os.open(name, _NEW, 0o600, dir_fd=here)
    except FileExistsError as exc:
        raise RestoreRefused(f"{target} appeared meanwhile: nothing is written over it") from exc
    with os.fdopen(out, "wb") as fh, open(os.open(scratch, os.O_RDONLY, dir_fd=here), "rb") as src:
        while block := src.read(1 << 20):
            fh.write(block)
        fh.flush()
        os.fsync(fh.fileno())


def _is_link(here: int, name: str) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=here, follow_symlinks=False).st_mode)
    except OSError:
        return False


def _why(exc: OSError) -> str:
    return exc.strerror or str(exc)
