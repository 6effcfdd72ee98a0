"""The file of a chat app's export that holds its conversations, opened for reading
where it lies: the file itself, or its member in the zip as downloaded, read in place
and never unpacked. A zip is bounded as every compressed file is (a member that
expands past `budget.expanded_bytes` of its packed size ends there) and one that
cannot be read (cut short before its directory, a version `zipfile` does not know) is
an `OSError` that says so, which the indexer names for the file and reads again on the
next run.
"""

from __future__ import annotations

import zipfile
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, Protocol

from findsession.sources import budget


class Export(Protocol):
    """What this needs of an app's export: its name and its conversations' file."""

    app: str
    document: str

    def is_document(self, path: str) -> bool: ...


@contextmanager
def document(fh: IO[bytes], fmt: Export) -> Iterator[tuple[IO[bytes] | None, str | None]]:
    """The bytes of the conversations' file: the file itself, or its member in a zip;
    None and why when a zip holds none. A zip that cannot be read is an `OSError`."""
    fh.seek(0)
    if not zipfile.is_zipfile(fh):
        fh.seek(0)
        if fh.read(4) == b"PK\x03\x04":
            # A zip's members come first and its directory last: a download cut short
            # has no directory, and no member can be found without it.
            raise OSError("a zip that breaks off before its end (a download cut short?)")
        fh.seek(0)
        yield fh, None
        return
    try:
        archive = zipfile.ZipFile(fh)
        # A name `zipfile` read as "" (a zero byte where it began) is no file to read.
        members = [m for m in archive.infolist() if m.filename and not m.is_dir()]
    except (zipfile.BadZipFile, zlib.error, EOFError, ValueError, NotImplementedError) as exc:
        raise OSError(f"not a readable zip archive ({exc})") from exc
    found = sorted(
        (m for m in members if fmt.is_document(m.filename)),
        key=lambda m: (m.filename.count("/"), m.filename),
    )
    if not found:
        yield None, f"holds no {fmt.document}: not a {fmt.app} export"
        return
    try:
        member = archive.open(found[0])
    except (zipfile.BadZipFile, NotImplementedError, RuntimeError, zlib.error) as exc:
        raise OSError(f"cannot read {found[0].filename} in the zip ({exc})") from exc
    with member:
        yield _Bounded(member, found[0]), None


class _Bounded:
    """A zip member's bytes, as many as a compressed file of its packed size may give
    (`budget.expanded_bytes`: a real export deflates ten times over, a bomb thousands):
    a member that expands past that, or whose bytes break off (a download cut short),
    ends there, and the file's read says why."""

    def __init__(self, raw: IO[bytes], member: zipfile.ZipInfo) -> None:
        self.raw, self.name, self.packed = raw, member.filename, member.compress_size
        self.limit = self.left = budget.expanded_bytes(member.compress_size)

    def read(self, size: int = -1) -> bytes:
        if self.left <= 0:
            budget.current().stop(
                f"{self.name} expands past {self.limit / 1e6:,.1f} MB,"
                f" {budget.MAX_EXPANSION} times its {self.packed / 1e3:,.1f} KB in the zip"
            )
            return b""
        want = self.left if size < 0 else min(size, self.left)
        try:
            chunk = self.raw.read(want)
        except (zipfile.BadZipFile, zlib.error, EOFError, OSError) as exc:
            budget.current().stop(f"{self.name} breaks off in the zip ({exc})")
            return b""
        self.left -= len(chunk)
        return chunk
