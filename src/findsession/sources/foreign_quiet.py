"""Reading another tool's SQLite store without writing beside it while its agent is not
running.

A read-only SQLite connection to a WAL database still writes: it creates `-wal` and
`-shm` beside a store that has none, and writes its read marks (or a whole rebuilt index)
into `-shm`. While the agent runs those files are its own and a reader is one more
client of them; when it does not, they would be findsession's writing. So a store is
first asked whether it is *quiet*, without writing anything:

- no process holds any of SQLite's locks on the database file: every open connection
  to a WAL database holds a shared lock for its whole life, and a writer to a
  rollback-journal database holds one while it writes. The question is asked of the
  kernel's list of locks (`/proc/locks`) before the file is even opened (closing a
  file drops every POSIX lock the process holds on it: an agent's connection living in
  our own process would lose its locks), then of the open file itself with an
  open-file-description lock query (`F_OFD_GETLK`); neither takes nor writes anything.
  Both exist on Linux only: elsewhere every store is read the ordinary way.
- then findsession takes a read lock of its own on the last of SQLite's shared-lock
  bytes (`_OURS`): a rollback-journal writer, or a WAL writer's checkpoint on close,
  needs every shared byte exclusively and waits until the read is done. The probe
  leaves that byte out, so two findsession reads of one store do not take each other
  for the agent.

A quiet store whose `-wal` and `-journal` are absent or empty holds all it has in the
database file: it is read in place with `immutable=1`, which opens no side file and
takes no lock. One with a non-empty `-wal` (an agent that stopped without a checkpoint,
or a store copied with its log) or a hot `-journal` is copied with those files into a
private folder and read there, where SQLite may replay them. After the read, the store
must still be quiet and its files as they were (an agent that started meanwhile and
checkpointed could have changed pages under the read): otherwise the read is refused
with an `OSError`, and the next run reads it again.
"""

from __future__ import annotations

import os
import shutil
import struct
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]

#: SQLite's lock bytes in every database file (os_unix.c): the pending byte, the
#: reserved byte, then 510 shared bytes.
_PENDING = 0x40000000
_SHARED_FIRST = _PENDING + 2
_SHARED_SIZE = 510
#: The byte findsession holds a read lock on while it reads a quiet store.
_OURS = _SHARED_FIRST + _SHARED_SIZE - 1
#: Bytes of store and log copied at most to replay a log privately; a bigger store with
#: commits in its log is read the ordinary way.
COPY_LIMIT = 512 << 20
#: Files SQLite keeps beside a database; their state is part of the store's.
_SIDES = ("-wal", "-shm", "-journal")
#: `struct flock` on 64-bit Linux: type, whence, start, length, pid.
_FLOCK = "hhqqi"
_SUPPORTED = (
    sys.platform.startswith("linux")
    and fcntl is not None
    and hasattr(fcntl, "F_OFD_GETLK")
    and struct.calcsize("P") == 8
)


@dataclass(frozen=True, slots=True)
class Quiet:
    """A quiet store being read: the file to open (the store itself, or a private copy
    of it) and whether it is the store itself (then opened `immutable=1`)."""

    target: Path
    in_place: bool


@contextmanager
def quiet(path: Path) -> Iterator[Quiet | None]:
    """A quiet store's file to read without writing beside the store, or None when its
    agent holds it (or this system cannot tell): then it is read the ordinary way.

    Raises `OSError` on leaving when the store stopped being quiet during the read."""
    fd = _open_quiet(path)
    before = _state(fd, path) if fd is not None else {}
    logs = sum(size for size, _ in (before[s] for s in ("-wal", "-journal") if before.get(s)))
    if fd is not None and logs and before[""][1] + logs > COPY_LIMIT:  # type: ignore[index]
        os.close(fd)  # too big to copy: read the ordinary way (docs/sources.md says so)
        fd = None
    if fd is None:
        yield None
        return
    try:
        if not logs:
            yield Quiet(path, in_place=True)
        else:
            with _copied(path) as copy:
                yield Quiet(copy, in_place=False)
        if _held_by_others(fd) or _state(fd, path) != before:
            raise OSError(
                "the database changed while it was read (its agent started); read again"
                " on the next run"
            )
    finally:
        os.close(fd)  # our lock goes with it


def _open_quiet(path: Path) -> int | None:
    """A descriptor of the store holding our read lock, when it is quiet; else None
    (held by anyone, this process included; or it cannot be told, or opened: the
    ordinary read then says why)."""
    if not _SUPPORTED:
        return None
    try:
        if _listed(os.stat(path).st_ino) is not False:
            return None
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    # A holder that came after the list was read; or between the question and our lock.
    if _held_by_others(fd) or not _lock(fd) or _held_by_others(fd):
        os.close(fd)
        return None
    return fd


def _flock(kind: int, start: int, length: int) -> bytes:
    return struct.pack(_FLOCK, kind, os.SEEK_SET, start, length, 0)


def _listed(inode: int) -> bool | None:
    """Whether the kernel lists a lock on SQLite's lock bytes of a file with this inode
    number (None when the list cannot be read). Matched on the inode alone: the device
    numbers the list shows are not always those `stat` gives (btrfs subvolumes, overlay
    mounts), and a lock on another device's file of the same number only sends the read
    the ordinary way."""
    try:
        with open("/proc/locks", encoding="ascii", errors="replace") as fh:
            listing = fh.read()
    except OSError:
        return None
    for line in listing.splitlines():
        # `1: POSIX  ADVISORY  READ 4242 08:02:131100 1073741826 1073742335`; a waiter's
        # line has `->` after the number.
        fields = [f for f in line.split() if f != "->"]
        if len(fields) < 8 or not fields[5].endswith(f":{inode}"):
            continue
        try:
            start = int(fields[6])
            end = _PENDING + 1024 if fields[7] == "EOF" else int(fields[7])
        except ValueError:
            return None
        if fields[1] == "OFDLCK" and start == end == _OURS:
            continue  # another findsession read of the same store
        if start <= _OURS and end >= _PENDING:
            return True
    return False


def _held_by_others(fd: int) -> bool:
    """Whether another process (or another open file) holds any of SQLite's locks on
    the database: asked without taking or writing anything."""
    answer = fcntl.fcntl(fd, fcntl.F_OFD_GETLK, _flock(fcntl.F_WRLCK, _PENDING, _OURS - _PENDING))
    return struct.unpack(_FLOCK, answer[: struct.calcsize(_FLOCK)])[0] != fcntl.F_UNLCK


def _lock(fd: int) -> bool:
    """Our read lock on `_OURS`, without waiting; False when a writer holds it."""
    try:
        fcntl.fcntl(fd, fcntl.F_OFD_SETLK, _flock(fcntl.F_RDLCK, _OURS, 1))
    except OSError:
        return False
    return True


def _state(fd: int, path: Path) -> dict[str, tuple[int, int] | None]:
    """The database's identity and each side file's size and time: a change to any
    means someone wrote the store."""
    st = os.fstat(fd)
    state: dict[str, tuple[int, int] | None] = {
        "": (st.st_ino, st.st_size),
        "times": (st.st_mtime_ns, st.st_ctime_ns),
    }
    for suffix in _SIDES:
        try:
            side = os.stat(f"{path}{suffix}")
        except OSError:
            state[suffix] = None
        else:
            state[suffix] = (side.st_size, side.st_mtime_ns)
    return state


@contextmanager
def _copied(path: Path) -> Iterator[Path]:
    """The database and its non-empty `-wal`/`-journal`, copied into a folder only the
    user can enter and removed after: SQLite replays them into the copy, not the store."""
    folder = Path(tempfile.mkdtemp(prefix="findsession-store-"))
    try:
        copy = folder / path.name
        shutil.copyfile(path, copy)
        for suffix in ("-wal", "-journal"):
            side = Path(f"{path}{suffix}")
            if side.is_file() and side.stat().st_size:
                shutil.copyfile(side, f"{copy}{suffix}")
        yield copy
    finally:
        shutil.rmtree(folder, ignore_errors=True)
