"""Warp's agent conversations: where they are, and the `Source` that reads them.

Warp keeps its state in one SQLite store, `warp.sqlite` (WAL mode), in its state folder
(`warp_core::paths` and `app/src/persistence/sqlite.rs` in warpdotdev/warp): on Linux
`$XDG_STATE_HOME/warp-terminal` (`warp-terminal-preview` for the Preview build), else
`~/.local/state/warp-terminal`; on macOS its App Group container, `~/Library/Group
Containers/2BBY89MBSN.dev.warp/Library/Application Support/dev.warp.Warp-Stable` (else
`~/Library/Application Support/dev.warp.Warp-Stable`); on Windows
`%LOCALAPPDATA%\\warp\\Warp\\data`. Its terminal front-end keeps its own under `tui/`.
The agent's conversations are two tables of it (`warp_db`), each conversation's
messages in its tasks' protocol buffers (`warp_records`). A conversation is indexed as
`<file id>:<conversation id>` and read again whole when its token moved. Warp keeps at
most 200 conversations, deleting the oldest (with their child agents) as new ones come.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from findsession.domain import Problem, Resume, Session
from findsession.sources import foreign_db, warp_db, warp_queries
from findsession.sources.base import Skip, Source, SourceFile, store_id, texts_by_line
from findsession.sources.cursor import Cursor, Reading, Record
from findsession.sources.registry import SourceKind
from findsession.sources.resuming import no_resume
from findsession.sources.walking import walk
from findsession.sources.warp_records import Found, conversation_records

KIND = SourceKind.WARP
DB_NAME = "warp.sqlite"
_NO_RESUME = (
    "Warp has no command that opens an agent conversation by its id: open Warp and pick "
    "the conversation from its conversation history."
)


def file_id(path: Path) -> str:
    """`warp-` and a hash of the store's path: its conversations are `<file id>:<id>`."""
    return store_id("warp", path)


class WarpSource(Source):
    """Warp's `warp.sqlite`: the agent's conversations in it."""

    kind = KIND
    companions = foreign_db.COMPANIONS
    #: 2: a store from before Warp's agent kept conversations gives its exchanges.
    reads = 2

    def discover(self, root: Path, skip: Skip) -> Iterator[Path]:
        """`warp.sqlite` in `root` and in its `tui/` (or a copy named itself)."""
        if root.is_file():
            yield root
            return
        for folder, dirs, names in walk(root, skip):
            if DB_NAME in names:
                yield folder / DB_NAME
            dirs[:] = [d for d in dirs if d == "tui" and folder == root]

    def describe(self, path: Path) -> SourceFile:
        return SourceFile(path=path, source=KIND, session_id=file_id(path), sibling_sessions=True)

    def read(self, sf: SourceFile, fh: IO[bytes], cursor: Cursor | None) -> Reading:
        """The conversations whose token moved since `cursor`, each whole."""
        size = os.fstat(fh.fileno()).st_size
        with foreign_db.reading(sf.path) as conn:
            if warp_db.missing_table(conn) is not None and warp_db.is_older_store(conn):
                return _read_older(conn, size, cursor)
            return foreign_db.changed_since(_survey(conn), size, cursor)

    def read_back(self, path: Path, lines: set[int]) -> dict[tuple[int, int], str]:
        """Each wanted message as the store holds it now, numbered as `read` did."""
        ranks = {foreign_db.position_of(line)[0] for line in lines}
        with foreign_db.reading(path) as conn:
            if warp_db.missing_table(conn) is not None:
                if not warp_db.is_older_store(conn):
                    return {}
                found = warp_db.exchanges(conn)
                records = [r for key, rows in found.rows.items()
                           if int(rows[0][0]) in ranks
                           for r in warp_queries.exchange_records(key, rows, {})]  # fmt: skip
                return texts_by_line(records, lines)
            wanted = [c for c in warp_db.conversations(conn) if c.rank in ranks]
            records, _seen, _size = _read(conn, wanted)
        return texts_by_line(records, lines)

    def resume(self, session: Session) -> Resume:
        """None: Warp has no command that opens a conversation by its id."""
        return no_resume(_NO_RESUME)

    def title_line(self, sf: SourceFile, title: str) -> bytes | None:
        """None: a title lives in Warp's store, which findsession never writes."""
        return None


def _survey(conn: foreign_db.Conn) -> foreign_db.Survey | Problem:
    """The conversations of a store with agent conversations, by id, each read with its
    tasks; what was found on the way is told once they are read."""
    why = warp_db.missing_table(conn)
    if why is not None:
        return Problem(0, "not a Warp store with agent conversations", why)
    found = warp_db.conversations(conn)
    problems: list[Problem] = []
    tally = foreign_db.Tally()

    def records(todo: set[str]) -> list[Record]:
        read, seen, tally.bytes = _read(conn, [c for c in found if c.key in todo])
        tally.rows = len(todo)
        problems.extend(seen.problems)
        problems.extend(
            Problem(0, "unknown message kind", f"field {kind} ({n} message{'s' * (n != 1)})")
            for kind, n in sorted(seen.unknown.items())
        )
        return read

    tokens = {c.key: c.token for c in found}
    return foreign_db.Survey(tokens, {c.key: c.rank for c in found}, records, problems, tally)


def _read(conn: Any, wanted: list[warp_db.Conversation]) -> tuple[list[Record], Found, int]:
    """The records of each wanted conversation (through `conn`, the store's read-only
    connection), what was found on the way, and the bytes of protocol buffers read."""
    records: list[Record] = []
    seen = Found()
    size = 0
    for conversation in wanted:
        rows = warp_db.tasks(conn, conversation.key)
        size += sum(len(blob) for _id, blob in rows if isinstance(blob, bytes))
        data = warp_db.data(conn, conversation.rank)
        records += conversation_records(conversation.key, conversation.rank, data, rows, seen)
    return records, seen, size


def _read_older(conn: Any, size: int, cursor: Cursor | None) -> Reading:
    """A store from before Warp's agent kept conversations (`warp_queries`): the
    conversations whose exchanges changed, each whole."""
    found = warp_db.exchanges(conn)
    now = foreign_db.cursor(size, len(found.tokens), found.tokens)
    todo = set(foreign_db.changed(foreign_db.tokens(cursor), found.tokens))
    if not todo:
        return Reading([], now, fresh=False, unchanged=True)
    unknown: dict[str, int] = {}
    records: list[Record] = []
    for key in sorted(todo, key=lambda k: int(found.rows[k][0][0])):
        records += warp_queries.exchange_records(key, found.rows[key], unknown)
    problems = [
        Problem(0, "unknown answer item", f"{kind} ({n} item{'s' * (n != 1)})")
        for kind, n in sorted(unknown.items())
    ]
    # Read from the start, the reading is the whole file's: what an earlier release said
    # of it (that it was no Warp store) goes with what it gave.
    return Reading(records, now, fresh=cursor is None, replaced=frozenset(todo),
                   lines_read=len(todo), problems=problems)  # fmt: skip
