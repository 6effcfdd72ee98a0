"""A value read from a transcript, used as the name of a file or folder beside it.

Some stores name their files by the ids their records hold (OpenCode's tree keeps a
session's messages in `message/<session id>/`, a Cursor chat names its workspace's
folder). A record is data from anywhere: its id may be `..`, hold a separator or a NUL,
or a lone surrogate no file system can spell. Such a value never becomes a path: the
reader asks `entry_name` first and goes on without it, so the file is read (or its
problem reported), never raised out of.
"""

from __future__ import annotations

import os

#: The longest name most file systems take (bytes); a longer one cannot be there.
_NAME_MAX = 255


def entry_name(value: object) -> str | None:
    """`value` when it can name one entry of a folder on this system, else None: a
    non-empty string, not `.` or `..`, without a separator or NUL, that the OS can
    encode in at most 255 bytes."""
    if not isinstance(value, str) or value in ("", ".", ".."):
        return None
    if "/" in value or "\\" in value or "\0" in value or (os.altsep and os.altsep in value):
        return None
    try:
        encoded = os.fsencode(value)
    except UnicodeError:
        return None
    return value if len(encoded) <= _NAME_MAX else None
