"""Where the last read of a file stopped, in the two kinds a format needs, and what a
source keeps of its own between two reads.

An append-only file (a JSON-lines transcript) is read on from a byte offset once the
bytes before it are found unchanged (`jsonl.read_appended`). A file rewritten in place (a
single-JSON chat file, a task file, a Markdown note) has no offset worth keeping: it is
read whole again when its content hash changed (`read_whole`). Both kinds fit the same
three values, so the indexer stores a cursor without knowing which kind it holds. What
else a source needs on the next read (the mode its parser was in, a change token per
session of a database, which copy of a chat it indexed) goes in the cursor's `state`,
under the source's own names, never folded into the digest.

The index keeps a cursor as its offset, its line count and one text (`stored`): the
digest alone when there is no state, as it always was, else a JSON object of both.
Indexes written before cursors had a state hold the older strings `cursor_legacy`
reads, so a file goes on from where it stopped rather than being read again.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import IO

from findsession.domain import Message, MetaEvent, Problem
from findsession.sources.cursor_legacy import digest_and_state

#: Bytes at the start of a file that decide whether it looks binary.
HEAD = 4096

Record = Message | MetaEvent

#: What a source keeps in a cursor of its own, by names it chooses: plain values, as JSON
#: holds them (a flag is a `bool`, which is an `int`).
State = Mapping[str, str | int]


@dataclass(frozen=True, slots=True)
class Cursor:
    """What a source read of a file last time: bytes and lines consumed, a digest that
    tells whether those bytes are still the same, and the source's own `state` for its
    next read (None: it keeps none). Opaque outside the source that made it; the indexer
    keeps it in the file's row (`stored`, `restored`)."""

    offset: int = 0
    lines: int = 0
    digest: str | None = None
    state: State | None = None

    def stored(self) -> str | None:
        """The text the index keeps beside the offset and the line count: the digest as
        it is when there is no state (no digest starts with `{`), else a JSON object."""
        if self.state is None and not (self.digest or "").startswith("{"):
            return self.digest
        kept = {"digest": self.digest, "state": None if self.state is None else dict(self.state)}
        return json.dumps(kept, separators=(",", ":"), sort_keys=True)

    @classmethod
    def restored(cls, offset: int, lines: int, text: str | None) -> Cursor:
        """The cursor `stored` gave `text` for, or one an older release stored (see
        `cursor_legacy`). A text that does not parse keeps no digest and no state: the
        source then reads the file as if for the first time."""
        if text is None or not text.startswith("{"):
            digest, state = digest_and_state(text)
            return cls(offset, lines, digest, state)
        try:
            kept = json.loads(text)
        except (ValueError, RecursionError):
            return cls(offset, lines)
        if not isinstance(kept, dict):
            return cls(offset, lines)
        digest = kept.get("digest")
        state = kept.get("state")
        return cls(
            offset,
            lines,
            digest if isinstance(digest, str) else None,
            _plain(state) if isinstance(state, dict) else None,
        )


def in_store(size: int) -> Cursor:
    """The cursor of a file that gave nothing because its agent's own store holds its
    session (Goose imported it, OpenCode copied it, Kiro moved it): the state says so,
    and with no digest, a change to the file has it read from the start and checked
    again."""
    return Cursor(size, 0, None, {"in_store": True})


def _plain(state: dict[object, object]) -> dict[str, str | int]:
    """The entries of a state read back whose values a source may have kept."""
    return {str(k): v for k, v in state.items() if isinstance(v, str | int)}


@dataclass
class Reading:
    """What one read of a file gave.

    `fresh` means it was read from the start, so whatever it gave before is to be
    forgotten; `unchanged` means there was nothing new to read (a new mtime over the same
    content); `binary` says why the file was taken for a binary one (no part of it was a
    record and it does not look like text), or is None. `replaced` names the sessions
    (`Message.session_key`s of a file of sibling sessions) this reading gives whole
    again: what they gave before is forgotten first, the file's other sessions stay (a
    database store reads again only the sessions that changed). `kept` (with `fresh`
    False): a document read whole whose records carry on after the lines the index
    holds up to this one, which stay; what the file gave past it is forgotten first (an
    agent that rewrites its session without the messages it compacted). `more`: see
    below.
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
    kept: int | None = None
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
