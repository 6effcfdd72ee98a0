"""Where a service for one index keeps its socket, lock, log and "wanted" mark.

One service per index (and config file): its files are named by a digest of both, in
the user's runtime folder, which only the user may enter. A folder anyone else owns or
can enter is refused: whoever controls the folder could put their own socket in our
place and read every query. So is a folder on the way to it that another user may write
(a shared `XDG_RUNTIME_DIR` without the sticky bit): they could rename ours away and put
a link to their own in its place between our check and our connecting. The client also
checks who answers (`peer`), so a swap that wins that race still gets no query.
"""

from __future__ import annotations

import hashlib
import os
import stat
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from findsession.paths import APP, config_path, db_path


class NoPlace(Exception):
    """The service cannot run here (no Unix sockets, or no private runtime folder)."""


def runtime_dir() -> Path:
    """`$XDG_RUNTIME_DIR/findsession` (per login, cleared at logout), else a folder of
    ours under the temporary folder (per user on macOS, shared /tmp elsewhere)."""
    xdg = os.environ.get("XDG_RUNTIME_DIR")
    if xdg and os.path.isdir(xdg):
        return Path(xdg) / APP
    return Path(tempfile.gettempdir()) / f"{APP}-{os.getuid()}"


def private_dir(path: Path) -> Path:
    """Create `path` as 0700 if needed; refuse one another user owns or can enter, or
    one in a folder another user could swap it out of."""
    safe_way(path.parent)
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        st = path.lstat()
    except OSError as exc:
        raise NoPlace(f"cannot create the service folder {path}: {exc.strerror}") from None
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid():
        raise NoPlace(f"the service folder {path} is not a folder of this user's")
    if st.st_mode & 0o077:
        raise NoPlace(
            f"the service folder {path} is open to other users (mode {st.st_mode & 0o777:o})"
        )
    return path


def safe_way(folder: Path) -> None:
    """Refuse `folder` when it, or any folder above it, belongs to another user than us
    or root, or may be written by others without the sticky bit (`/tmp` has it: there
    nobody renames what is not theirs). Both the path as given and where its links lead."""
    me = os.getuid()
    given = Path(os.path.abspath(folder))
    real = Path(os.path.realpath(folder))
    for way in dict.fromkeys([*reversed(given.parents), given, *reversed(real.parents), real]):
        try:
            st = way.stat()
        except FileNotFoundError:
            continue  # created below, 0700, by us
        except OSError as exc:
            raise NoPlace(f"cannot check the folder {way}: {exc.strerror}") from None
        if st.st_uid not in (0, me):
            raise NoPlace(
                f"the folder {way} on the way to the service's belongs to another user"
                f" (uid {st.st_uid}), who could put their own service in its place"
            )
        if st.st_mode & 0o022 and not st.st_mode & stat.S_ISVTX:
            raise NoPlace(
                f"the folder {way} on the way to the service's may be written by other"
                f" users (mode {st.st_mode & 0o7777:o}, no sticky bit): one of them could"
                " swap the service's folder for their own"
            )


@dataclass(frozen=True)
class Place:
    """The service's files for one index."""

    folder: Path
    key: str
    db: Path
    config: Path

    @classmethod
    def for_index(cls, db: str | Path | None = None) -> Place:
        if sys.platform == "win32" or not hasattr(os, "getuid"):
            raise NoPlace("the service needs Unix sockets; searches run in-process here")
        index = db_path(str(db) if db is not None else None).resolve()
        conf = config_path()
        key = hashlib.sha256(f"{index}\0{conf}".encode()).hexdigest()[:16]
        return cls(private_dir(runtime_dir()), key, index, conf)

    def _file(self, suffix: str) -> Path:
        return self.folder / f"{self.key}.{suffix}"

    @property
    def socket(self) -> Path:
        return self._file("sock")

    @property
    def lock(self) -> Path:
        """Held (flock) by the running service for its whole life."""
        return self._file("lock")

    @property
    def wanted(self) -> Path:
        """Present from `service start` to `service stop`: a client that finds the
        service gone starts a new one only then, never for someone who did not ask."""
        return self._file("wanted")

    @property
    def log(self) -> Path:
        return self._file("log")
