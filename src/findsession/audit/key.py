"""The audit's key: 32 random bytes in a file beside the index, readable by its owner alone.

The audit keeps a query only as HMAC-SHA256 under this key. Equal queries give equal
digests, so someone holding the key can check whether a given question was asked, while
the index file alone (copied, backed up, shared for a bug report) tells nothing about
what agents searched for: without the key a digest cannot be tested against guesses.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import stat
from pathlib import Path

from findsession.errors import FindsessionError

KEY_BYTES = 32


class AuditKeyError(FindsessionError):
    """The audit key file cannot be made, read or trusted."""


def key_path(index: Path) -> Path:
    """Where the key of the index at `index` lives: beside it, `<index>.audit-key`."""
    return index.with_name(index.name + ".audit-key")


def digest(key: bytes, query: str) -> str:
    """The query's keyed digest (hex): its words as given, whitespace runs as one space,
    so the same question typed again gives the same digest."""
    text = " ".join(query.split())
    return hmac.new(key, text.encode("utf-8"), hashlib.sha256).hexdigest()


def load_key(path: Path, create: bool = True) -> bytes:
    """The key in `path`, made (mode 0600) on first use when `create`; a key file others
    could read is refused, since anyone with it can test guesses against the digests."""
    if create and not _exists(path):
        _create(path)
    try:
        info = path.lstat()
    except FileNotFoundError:
        raise AuditKeyError(
            f"there is no audit key at {path}: no agent search has been recorded with this index"
        ) from None
    except OSError as exc:
        raise AuditKeyError(f"cannot read the audit key at {path} ({exc.strerror})") from None
    if not stat.S_ISREG(info.st_mode):
        raise AuditKeyError(
            f"the audit key at {path} is not a regular file: move it away so a new key is made"
            " (records made under the old key can then no longer be checked)"
        )
    if stat.S_IMODE(info.st_mode) & 0o077:
        raise AuditKeyError(
            f"the audit key at {path} can be read by other users (mode"
            f" {stat.S_IMODE(info.st_mode):o}): make it readable by its owner alone"
            f" (chmod 600 {path}), or delete it so a new one is made"
        )
    try:
        text = path.read_text(encoding="ascii").strip()
        key = bytes.fromhex(text)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise AuditKeyError(
            f"cannot read the audit key at {path} ({exc}): restore it, or delete it so a new"
            " one is made"
        ) from None
    if len(key) != KEY_BYTES:
        raise AuditKeyError(
            f"the audit key at {path} holds {len(key)} bytes, not {KEY_BYTES}: restore it, or"
            " delete it so a new one is made"
        )
    return key


def _exists(path: Path) -> bool:
    return path.exists() or path.is_symlink()


def _create(path: Path) -> None:
    """Write a new key under a temporary name, then link it into place: a second process
    making one at the same moment keeps whichever came first, and no reader ever sees a
    half-written key."""
    temporary = path.with_name(f"{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    try:
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.write(fd, (secrets.token_bytes(KEY_BYTES).hex() + "\n").encode("ascii"))
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            os.link(temporary, path)
        except FileExistsError:
            pass  # another process made it first: use theirs
        except OSError:  # no hard links on this file system: rename if the name is free
            if not _exists(path):
                temporary.rename(path)
    except OSError as exc:
        raise AuditKeyError(
            f"cannot make the audit key at {path} ({exc.strerror}): the index's folder must be"
            " writable"
        ) from None
    finally:
        temporary.unlink(missing_ok=True)
