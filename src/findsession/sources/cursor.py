"""Where the last read of a file stopped, in the two kinds a format needs.

An append-only file (a JSON-lines transcript) is read on from a byte offset once the
bytes before it are found unchanged (`jsonl.read_appended`). A file rewritten in place (a
single-JSON chat file, a task file, a Markdown note) has no offset worth keeping: it is
read whole again when its content hash changed (`read_whole`). Both kinds fit the same
three numbers, so the indexer stores a cursor without knowing which kind it holds.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import IO

from findsession.domain import Message, MetaEvent, Problem

#: Bytes at the start of a file that decide whether it looks binary.
HEAD = 4096

Record = Message | MetaEvent


@dataclass(frozen=True, slots=True)
class Cursor:
    """What a source read of a file last time: bytes and lines consumed, and a digest
    that tells whether those bytes are still the same. Opaque outside the source that
    made it; the indexer keeps it in the file's row."""

    offset: int = 0
    lines: int = 0
    digest: str | None = None


@dataclass
class Reading:
    """What one read of a file gave.

    `fresh` means it was read from the start, so whatever it gave before is to be
    forgotten; `unchanged` means there was nothing new to read (a new mtime over the same
    content); `binary` says why the file was taken for a binary one (no part of it was a
    record and it does not look like text), or is None. `replaced` names the sessions
    (`Message.session_key`s of a file of sibling sessions) this reading gives whole
    again: what they gave before is forgotten first, the file's other sessions stay (a
    database store reads again only the sessions that changed). `more`: see below.
    """

    records: list[Record]
    cursor: Cursor
    fresh: bool
    unchanged: bool = False
    binary: str | None = None
    bytes_read: int = 0
    lines_read: int = 0
    problems: list[Problem] = field(default_factory=list)
    replaced: frozenset[str] = frozenset()
    #: The read stopped early to bound its memory: read on from `cursor` (the indexer
    #: does, in the same transaction, until a reading says no more).
    more: bool = False


def looks_binary(head: bytes) -> bool:
    """A NUL byte near the start: a binary file, if no part of it turns out to be a record.

    Only a hint: one NUL byte in a real transcript costs its own line, not the file.
    """
    return b"\x00" in head


#: Turns a whole file's bytes into records; problems found on the way go to the list.
ParseWhole = Callable[[bytes, list[Problem]], Iterable[Record]]


def read_whole(fh: IO[bytes], cursor: Cursor | None, parse: ParseWhole) -> Reading:
    """Read a file that is rewritten in place, unless its content hash is the cursor's.

    A rewrite may change any byte, so there is nothing to resume: the whole file is
    parsed again and replaces what it gave before.
    """
    fh.seek(0)
    data = fh.read()
    digest = "blake2b:" + hashlib.blake2b(data, digest_size=16).hexdigest()
    now = Cursor(offset=len(data), lines=0, digest=digest)
    if cursor is not None and cursor.digest == digest:
        return Reading([], now, fresh=False, unchanged=True)
    problems: list[Problem] = []
    records = list(parse(data, problems))
    binary = (
        "binary: no part of it is a record" if not records and looks_binary(data[:HEAD]) else None
    )
    return Reading(records, now, fresh=True, binary=binary, bytes_read=len(data), problems=problems)
