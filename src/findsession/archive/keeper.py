"""The archive of one index: what the indexer, `open`, `read --raw`, `forget` and
`status` ask of it, over its folder (`folder`), its format (`frames`), the appending
(`keeping`) and the writing back (`restoring`)."""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path

from findsession.archive import frames, keeping
from findsession.archive.folder import ArchiveError, Folder, folder_of, key_of
from findsession.archive.restoring import write_back


class Archive:
    """The copies of the transcripts of the sources in `kinds`, beside the index at `index`."""

    def __init__(self, index: Path, kinds: frozenset[str]) -> None:
        self.folder = Folder(folder_of(index))
        self.kinds = kinds

    @property
    def path(self) -> Path:
        return self.folder.path

    def keeps(self, source: str) -> bool:
        return source in self.kinds

    def keep(self, path: str, source: str, fd: int, start: int, committed: int) -> int:
        """Add what a read of `path` covered (see `keeping.keep`); the bytes added to the
        archive. `ArchiveError` when it cannot be written: the index is not the worse."""
        if not self.keeps(source):
            return 0
        try:
            return keeping.keep(self.folder, path, source, fd, start, committed)
        except OSError as exc:
            raise ArchiveError(f"not archived: {exc.strerror or exc}") from exc

    def keys(self) -> set[str]:
        """The keys of every transcript held (a listing of the folder, no file opened)."""
        return set(self.folder.listing())

    def held(self, paths: Iterable[str]) -> set[str]:
        """Those of `paths` the archive holds a copy of."""
        keys = self.keys()
        return {p for p in paths if key_of(p) in keys}

    def size(self) -> tuple[int, int]:
        """(files, bytes) held."""
        listing = self.folder.listing()
        return len(listing), sum(listing.values())

    def forget(self, paths: Iterable[str]) -> int:
        """Remove the copies of `paths` for good (they held a forgotten session); how
        many there were."""
        return self.folder.forget(key_of(p) for p in paths)

    def drop(self, paths: Iterable[str]) -> None:
        """Remove the copies of transcripts the index no longer holds (`--prune`)."""
        self.folder.remove(key_of(p) for p in paths)

    def contents(self, path: str) -> Iterator[bytes]:
        """The archived bytes of `path`, each frame checked before it is given; an
        `ArchiveError` that says what is wrong with a copy that fails a check."""
        with self.folder.opened(key_of(path), create=False) as fd:
            if fd is None:
                raise ArchiveError(f"the archive holds no copy of {path}")
            try:
                layout = frames.scan(fd)
                if layout is None or layout.path != path:
                    raise frames.Damaged("it is not the copy of this transcript")
                yield from frames.contents(fd, layout)
            except frames.Damaged as exc:
                raise ArchiveError(
                    f"the archived copy of {path} is damaged ({exc}): it cannot be used"
                ) from None
            except OSError as exc:
                raise ArchiveError(f"cannot read the archived copy of {path} ({exc})") from exc

    def restore(self, path: str, folder: Path) -> int:
        """Write the archived `path` back where it was, inside its agent's `folder`; the
        bytes written (see `restoring`)."""
        return write_back(self.contents(path), path, folder)

    @contextlib.contextmanager
    def copy(self, path: str, names: list[str]) -> Iterator[Path | None]:
        """The archived `path` as a private temporary file, under the same last `names`
        (a source reads what a file is from its place: `subagents/`, a session folder);
        None when the archive holds no usable copy. Removed afterwards."""
        if not self.folder.file(key_of(path)).is_file():
            yield None
            return
        scratch = Path(tempfile.mkdtemp(prefix=".reading-", dir=self.folder.path))
        try:
            target = scratch.joinpath(*names)
            target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            try:
                with open(
                    os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "wb"
                ) as out:
                    for chunk in self.contents(path):
                        out.write(chunk)
            except ArchiveError:
                yield None
                return
            yield target
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
