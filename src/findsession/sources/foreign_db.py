"""Another tool's own SQLite database, read the one way findsession may: read-only.

OpenCode, Goose, Crush, Kiro and the Cursor IDE keep every session in one SQLite file
that their agent holds open and writes while it runs. This module is the only way a
source opens one:

- while its agent is not running (no process holds SQLite's locks on it), without
  writing a byte beside it: in place with `immutable=1`, or from a private copy when
  commits wait in its `-wal` (`foreign_quiet`).
- while its agent runs, read-only through a `mode=ro` URI, with a busy timeout, in one
  short read transaction (a consistent snapshot; in WAL mode a reader never blocks the
  agent's writer, and in rollback-journal mode the shared lock is held for
  milliseconds). Such a reader is one more client of the agent's `-shm`: it writes its
  read mark there, as every reader of a WAL database does. When even that cannot open
  (a read-only folder beside a WAL file), `immutable=1`: no lock and no journal is
  touched. Nothing here writes the database: `query_only` is set on every connection.
- a database that is locked past the timeout, corrupt or not a database at all becomes
  an `OSError` with one line that says so: the indexer reports it, keeps the file's old
  cursor, and reads it on the next run.
- changes are found by session, not by file: a store's source computes a change token
  per session with one aggregate query (`tokens`), and only the sessions whose token
  moved are read again, each as a whole (`Reading.replaced`). The tokens are the
  state of the file's cursor (`cursor`, `tokens`), so the indexer keeps them without
  knowing them. A reader of a store says what it holds as a `Survey` (the tokens,
  and how to read some sessions, counting what that read in a `Tally`) and leaves the
  rest to `read_changed` (`changed_since` when it opened the store itself) and
  `read_back`: the cursor's shape and the problem's are then one store's as another's.
- in WAL mode the agent's commits land in `<db>-wal` until a checkpoint, leaving the
  database file's size and time unchanged; a source that reads a store sets
  `companions = COMPANIONS`, so a change there counts as the database's
  (`sources.file_stamp`), and the watcher's event on it as one on the database.

Message line numbers must be unique in the file and ordered within a session:
`line_of(rank, position)` packs a session's stable rank (its row id) and the message's
position in it; `position_of` takes them apart again for `read --raw`.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from findsession.domain import Message, MessageKind, Problem
from findsession.sources.base import Source, SourceFile, store_id, texts_by_line
from findsession.sources.cursor import Cursor, Reading, Record
from findsession.sources.foreign_quiet import Quiet, quiet
from findsession.sources.jsonl import cap, clean_text

#: Files beside a database whose changes are the database's (WAL mode).
COMPANIONS = ("-wal",)
#: How long a read waits for the agent's writer to let go.
BUSY_SECONDS = 2.0
#: Messages a session may hold before its line numbers would run into the next one's.
_POSITIONS = 1 << 24
_ONE_AT_A_TIME = threading.RLock()
#: The connection `reading` gives, named for the sources that may not import the driver.
Conn = sqlite3.Connection


@contextmanager
def reading(path: Path) -> Iterator[sqlite3.Connection]:
    """A read-only connection inside one read transaction, closed on leaving.

    Raises `OSError` with the reason when the database cannot be read now.
    """
    # One read at a time in this process: a quiet read closes its own descriptor of the
    # file at the end, which would drop the locks of another read's SQLite connection.
    with _ONE_AT_A_TIME, quiet(path) as still:
        conn = _connect(path) if still is None else _connect_quiet(still)
        try:
            conn.execute("BEGIN")
            yield conn
        except sqlite3.Error as exc:
            raise OSError(_reason(exc)) from exc
        finally:
            try:
                conn.rollback()
            finally:
                conn.close()


def _connect_quiet(still: Quiet) -> sqlite3.Connection:
    """The quiet store itself, `immutable=1` (no side file, no lock); or our private
    copy of it, writable so SQLite can replay its log there."""
    uri = still.target.resolve().as_uri() + ("?mode=ro&immutable=1" if still.in_place else "")
    try:
        conn = sqlite3.connect(uri, uri=True, timeout=BUSY_SECONDS, isolation_level=None)
        conn.text_factory = _text
        conn.execute("PRAGMA query_only = 1")
        conn.execute("PRAGMA schema_version").fetchone()
    except sqlite3.Error as exc:
        raise OSError(_reason(exc)) from exc
    return conn


def _connect(path: Path) -> sqlite3.Connection:
    uri = path.resolve().as_uri()
    last: sqlite3.Error | None = None
    for options in ("?mode=ro", "?mode=ro&immutable=1"):
        conn = None
        try:
            conn = sqlite3.connect(
                uri + options, uri=True, timeout=BUSY_SECONDS, isolation_level=None
            )
            conn.text_factory = _text
            conn.execute("PRAGMA query_only = 1")
            conn.execute("PRAGMA schema_version").fetchone()  # opens the file for real
            return conn
        except sqlite3.Error as exc:
            last = exc
            if conn is not None:
                conn.close()
            if "locked" in str(exc) or "busy" in str(exc):
                break  # immutable would read past the agent's lock: wait for the next run
    raise OSError(_reason(last))


def _text(value: bytes) -> str:
    """A text value as the store holds it, bytes that are not UTF-8 replaced (as in a
    transcript's lines): one such value must not make every row unreadable."""
    return value.decode("utf-8", "replace")


def _reason(exc: BaseException | None) -> str:
    text = str(exc) if exc else "cannot be opened"
    if "locked" in text or "busy" in text:
        return "the database is locked by its agent; read again on the next run"
    if "not a database" in text or "malformed" in text:
        return f"not a readable SQLite database ({text})"
    return f"cannot read the database: {text}"


def columns(conn: sqlite3.Connection, table: str) -> set[str]:
    """The columns `table` has (empty when there is no such table): a store's schema
    changes between its agent's versions, and a source reads what is there."""
    try:
        return {row[1] for row in conn.execute(f"PRAGMA table_info({_quoted(table)})")}
    except sqlite3.Error:
        return set()


def picker(have: Collection[str], prefix: str = "") -> Callable[[str], str]:
    """`pick(name)`: the column `name` as a query names it (after `prefix`, a table's
    alias and a dot) when it is among the table's columns `have`, else NULL. A store's
    schema changes between its agent's versions: a column the file lacks is asked for as
    NULL, so each row keeps its shape and the caller reads None there."""

    def pick(name: str) -> str:
        return f"{prefix}{name}" if name in have else "NULL"

    return pick


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def cursor(size: int, sessions: int, tokens: dict[str, str]) -> Cursor:
    """A store's cursor: its size, how many sessions it holds, and each session's
    change token as the cursor's state, which the indexer stores as it is."""
    return Cursor(size, sessions, None, dict(tokens))


def tokens(cursor: Cursor | None) -> dict[str, str]:
    """The tokens a store's cursor keeps; empty for no cursor (the store is then read
    whole)."""
    if cursor is None or not cursor.state:
        return {}
    return {key: str(token) for key, token in cursor.state.items()}


def changed(old: dict[str, str], new: dict[str, str]) -> list[str]:
    """The sessions to read again: new ones and those whose token moved. A session
    that went from the store stays in the index, as a transcript whose file went does."""
    return [key for key, token in new.items() if old.get(key) != token]


@dataclass
class Tally:
    """What reading a store's changed sessions cost, counted by the source's `records` as
    it reads: the bytes of the values it made records of, and the rows it read. They are
    the index run's `bytes_read` and `lines_read`, which `status` shows."""

    bytes: int = 0
    rows: int = 0


@dataclass
class Survey:
    """What a store holds, as its source found it on an open connection: each session's
    change token and rank, by session key, and how to read the records of some of them
    (on that connection), problems found on the way going to `problems`. `tally`, when
    given, is what `records` read; without it each session read counts as one row."""

    tokens: dict[str, str]
    ranks: dict[str, int]
    records: Callable[[set[str]], list[Record]]
    problems: list[Problem] = field(default_factory=list)
    tally: Tally | None = None


#: A source's look at its store: a `Survey`, or the problem that makes it no store of its.
Surveyor = Callable[[sqlite3.Connection], "Survey | Problem"]


def read_changed(path: Path, size: int, old: Cursor | None, survey: Surveyor) -> Reading:
    """The sessions whose token moved since the cursor `old`, each whole (`size` is the
    file's, for the new cursor)."""
    with reading(path) as conn:
        return changed_since(survey(conn), size, old)


def changed_since(found: Survey | Problem, size: int, old: Cursor | None) -> Reading:
    """What a survey taken on the still open connection gives as the store's reading: what
    every store reader does around its own queries, written once so that no reader's
    cursor or early return drifts from the others'. A survey's problem (the file lacks
    the agent's tables) is the reading's one problem, under an empty cursor; else the
    cursor keeps each session's token, nothing more is read when none moved since `old`,
    and the sessions whose token moved are read whole. `size` is the file's. `read_changed`
    opens the store and calls this; a reader that must look at the store before it knows
    how to survey it (a store of an older layout) calls it on the connection it opened."""
    if isinstance(found, Problem):
        return Reading([], cursor(size, 0, {}), fresh=False, problems=[found])
    now = cursor(size, len(found.tokens), found.tokens)
    todo = set(changed(tokens(old), found.tokens))
    if not todo:
        return Reading([], now, fresh=False, unchanged=True)
    records = found.records(todo)
    # A session's records may name sessions of their own, keyed under it (a subagent
    # whose messages its parent's row holds): those are read again with it.
    owned = {k for r in records if (k := getattr(r, "session_key", None)) and k not in todo}
    tally = found.tally
    return Reading(
        records,
        now,
        fresh=False,
        replaced=frozenset(todo | owned),
        bytes_read=tally.bytes if tally else 0,
        lines_read=tally.rows if tally else len(todo),
        problems=found.problems,
    )


def read_back(path: Path, lines: set[int], survey: Surveyor) -> dict[tuple[int, int], str]:
    """`Source.read_back` for a store: the sessions holding the wanted lines read again."""
    ranks = {position_of(line)[0] for line in lines}
    with reading(path) as conn:
        found = survey(conn)
        if isinstance(found, Problem):
            return {}
        records = found.records({key for key, rank in found.ranks.items() if rank in ranks})
    return texts_by_line(records, lines)


class OneStoreSource(Source):
    """A `Source` whose sessions all live in one SQLite store of the agent's, each read
    again whole when its change token moved (Hermes, llm, Devin CLI, Grok CLI, Forge).
    How such a store is described, read and read back is written here once; each source
    names its sessions' prefix and gives `survey`, its queries."""

    companions = COMPANIONS
    #: The store's sessions are kept as `<prefix>-<hash of its path>:<their id>`.
    prefix: str

    def survey(self, conn: sqlite3.Connection) -> Survey | Problem:
        """The store's sessions, their change tokens and a reader (`Survey`)."""
        raise NotImplementedError

    def describe(self, path: Path) -> SourceFile:
        sid = store_id(self.prefix, path)
        return SourceFile(path=path, source=self.kind, session_id=sid, sibling_sessions=True)

    def read(self, sf: SourceFile, fh: IO[bytes], cursor: Cursor | None) -> Reading:
        """The sessions whose token moved since `cursor`, each whole."""
        return read_changed(sf.path, os.fstat(fh.fileno()).st_size, cursor, self.survey)

    def read_back(self, path: Path, lines: set[int]) -> dict[tuple[int, int], str]:
        """Each wanted message as the store holds it now, numbered as `read` did."""
        return read_back(path, lines, self.survey)


def line_of(rank: int, position: int) -> int:
    """A message's line number: its session's rank, then its position in the session."""
    return rank * _POSITIONS + min(position, _POSITIONS - 1)


def parent_line(rank: int) -> int:
    """The line a session's link to its parent is kept on. The index keeps one metadata
    record a line, and the title takes the session's first (position 0): a parent kept
    there too replaced a titled subagent's title. No message's metadata takes position 1."""
    return line_of(rank, 1)


def position_of(line: int) -> tuple[int, int]:
    """The session rank and position `line_of` packed into `line`."""
    return divmod(line, _POSITIONS)


class Lines:
    """Numbers each message of one session of a store in turn (`line_of`), under its
    `session_key`; a message with no text is none (a tool call without arguments is
    one)."""

    def __init__(self, rank: int, key: str) -> None:
        self.rank = rank
        self.key = key
        self.position = 0

    def message(self, kind: MessageKind, text: str, limit: int, **fields: Any) -> Message | None:
        text = clean_text(text).strip()
        if not text and kind is not MessageKind.TOOL_CALL:
            return None
        self.position += 1
        line = line_of(self.rank, self.position)
        return Message(kind, cap(text, limit), line, session_key=self.key, **fields)

    def json_object(
        self, text: str | None, problems: list[Problem], what: str
    ) -> dict[str, Any] | None:
        """A cell's JSON object (a message, a conversation), or None with a problem on
        the line the next message would take, naming `what` held it: one bad cell costs
        itself, never its session."""
        try:
            data = json.loads(text) if text is not None else None
        except (ValueError, RecursionError):
            data = None
        if isinstance(data, dict):
            return data
        line = line_of(self.rank, self.position + 1)
        problems.append(Problem(line, "malformed JSON", f"{what} of session {self.key}"))
        return None


def text_digest(text: object) -> str:
    """A short hash of a text for a session's change token, so the token moves when the
    text does without holding it (the index keeps tokens as they are, and a title may
    quote a secret)."""
    raw = text.encode("utf-8", "replace") if isinstance(text, str) else b"\x00"
    return hashlib.blake2b(raw, digest_size=6).hexdigest()


def agent_id(session_id: str) -> str:
    """The agent's own id of an indexed session: a store's sessions are indexed as
    `<file id>:<agent's id>` (one file holds many), and its agent resumes by its own."""
    return session_id.split(":", 1)[1] if ":" in session_id else session_id
