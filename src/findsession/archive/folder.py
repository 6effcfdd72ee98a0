"""The archive's folder beside the index: one file per transcript, private to its owner.

`<index>.archive/` (mode 0700) holds `<key>.zst` for each transcript kept, the key a
digest of the transcript's path (so a listing names no project), each file 0600 and
locked while it is written or read; and `forgotten`, the keys of transcripts that held
a forgotten session, never kept again.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path

from findsession.errors import FindsessionError

SUFFIX = ".zst"
FORGOTTEN = "forgotten"


class ArchiveError(FindsessionError):
    """The archive cannot be written or read, or a copy in it is damaged."""


def folder_of(index: Path) -> Path:
    """Where the archive of the index at `index` lives: beside it, `<index>.archive`."""
    return index.with_name(index.name + ".archive")


def key_of(path: str) -> str:
    return hashlib.sha256(path.encode("utf-8", "surrogateescape")).hexdigest()[:32]


class Folder:
    """The archive's folder: made on the first write, never by a reader."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._forgotten: set[str] | None = None

    def file(self, key: str) -> Path:
        return self.path / (key + SUFFIX)

    def exists(self) -> bool:
        return self.path.is_dir()

    def make(self) -> None:
        """The folder, 0700, made if missing; one others may enter is closed to them."""
        try:
            info = os.lstat(self.path)
        except FileNotFoundError:
            try:
                os.mkdir(self.path, 0o700)
            except OSError as exc:
                raise ArchiveError(f"cannot create the archive {self.path} ({_why(exc)})") from exc
            return
        except OSError as exc:
            raise ArchiveError(f"cannot reach the archive {self.path} ({_why(exc)})") from exc
        if not stat.S_ISDIR(info.st_mode):
            raise ArchiveError(f"the archive {self.path} is not a folder: move it away")
        if stat.S_IMODE(info.st_mode) & 0o077:
            try:
                os.chmod(self.path, 0o700)
            except OSError as exc:
                raise ArchiveError(
                    f"cannot make the archive {self.path} private ({_why(exc)})"
                ) from exc

    @contextlib.contextmanager
    def opened(self, key: str, create: bool) -> Iterator[int | None]:
        """The file of `key` open for reading and writing under an exclusive lock; None
        when it does not exist and `create` is false."""
        if create:
            self.make()
        flags = os.O_RDWR | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
        try:
            fd = os.open(self.file(key), flags | (os.O_CREAT if create else 0), 0o600)
        except FileNotFoundError:
            if create:
                raise
            yield None
            return
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise ArchiveError(f"{self.file(key)} is not a regular file")
            yield fd
        finally:
            os.close(fd)

    def listing(self) -> dict[str, int]:
        """Every kept file's key and size in bytes."""
        kept: dict[str, int] = {}
        gone = (FileNotFoundError, NotADirectoryError)
        with contextlib.suppress(*gone), os.scandir(self.path) as it:
            for entry in it:
                if entry.name.endswith(SUFFIX) and entry.is_file(follow_symlinks=False):
                    kept[entry.name[: -len(SUFFIX)]] = entry.stat(follow_symlinks=False).st_size
        return kept

    def forgotten(self) -> set[str]:
        """The keys never to keep again."""
        if self._forgotten is None:
            try:
                text = (self.path / FORGOTTEN).read_text(encoding="ascii")
            except (FileNotFoundError, NotADirectoryError):
                text = ""
            except (OSError, UnicodeDecodeError) as exc:
                raise ArchiveError(f"cannot read {self.path / FORGOTTEN} ({exc})") from exc
            self._forgotten = set(text.split())
        return self._forgotten

    def forget(self, keys: Iterable[str]) -> int:
        """Remove the files of `keys` and keep none of them again; how many were held."""
        keys = sorted(set(keys))
        if not keys:
            return 0
        self.make()
        new = [k for k in keys if k not in self.forgotten()]
        if new:
            fd = os.open(
                self.path / FORGOTTEN, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW, 0o600
            )
            with os.fdopen(fd, "a", encoding="ascii") as out:
                out.write("".join(k + "\n" for k in new))
            self.forgotten().update(new)
        removed = 0
        for key in keys:
            with contextlib.suppress(FileNotFoundError):
                self.file(key).unlink()
                removed += 1
        return removed

    def remove(self, keys: Iterable[str]) -> None:
        """Remove the files of `keys` (the index dropped their transcripts), keeping them
        again should the index read them again. Best effort: an index run must not fail
        on its archive."""
        for key in set(keys):
            with contextlib.suppress(OSError):
                self.file(key).unlink()


def _why(exc: OSError) -> str:
    return exc.strerror or str(exc)
