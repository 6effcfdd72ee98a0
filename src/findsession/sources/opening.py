"""Opening a transcript for reading, safely: never blocking, never anything but a file.

A FIFO named `*.jsonl` hung every index run (opening it blocks until a writer comes),
and `read --raw` opens the recorded file again later, when it may have been replaced.
Both open through here.
"""

from __future__ import annotations

import os
import stat
from typing import BinaryIO


def file_type(mode: int) -> str:
    for test, name in (
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
    ):
        if test(mode):
            return name
    return "not a file"


class NotRegular(OSError):
    """The path turned into something other than a regular file after it was listed."""


def open_regular(path: str) -> BinaryIO:
    """Open for reading without blocking (a FIFO would) and only if it is a regular file.

    A name read out of a record (a NUL byte in it, a lone surrogate) that no file can have
    is an OSError like any other unreadable path, not a ValueError that ends the run."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(path, flags)
    except ValueError as exc:  # UnicodeEncodeError is one too
        raise NotRegular("a name no file can have; not read") from exc
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegular(f"not a regular file ({file_type(mode)}); not read")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
