"""The tables both backends hold, described once: their columns, their key, and whose
rows they are.

What a backend adds to a table is its own (PostgreSQL: each row's `owner`, and on rows
read with a session `shared` and `audience`; the `tsvector` columns of `units`; the
vectors of `chunks`); everything else is here. A statement of `storage/sql/` takes its
conflict target from `key` (through the backend's `Dialect.key`), a new table's schema
step is made from its `Table` by each backend's `ddl.py`, and a column added here is
added to the file and the server by one `add_column` step each. The first tables were
created by schema steps written out in each backend's SQL before this module; a test
holds both backends' tables to what is described here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

#: Whose rows a table holds. `SESSION` and `UNIT`: a session's content, read with its
#: session (or its unit's) by whoever may read that; `OWNER`: its writer's alone (their
#: machine's files, runs, terminals, audit); `INDEX`: the index's own (settings).
SESSION, UNIT, OWNER, INDEX = "session", "unit", "owner", "index"
#: The types a column may have, as both backends spell them.
TYPES = {
    "text": ("TEXT", "text"),
    "int": ("INTEGER", "bigint"),
    "bool": ("INTEGER", "boolean"),
    "real": ("REAL", "real"),
    "bytes": ("BLOB", "bytea"),
}


@dataclass(frozen=True, slots=True)
class Column:
    name: str
    type: str = "text"
    #: NOT NULL unless a value may be missing.
    required: bool = False
    #: A default in SQL both backends read alike (`''`, `0`, `false`), or None.
    default: str | None = None
    #: Added by a later schema step (each backend's `add_column`), not with the table:
    #: a step that has shipped is never edited, so a table's creation makes only the
    #: columns it first had.
    later: bool = False

    def __post_init__(self) -> None:
        if self.type not in TYPES:
            raise ValueError(f"column {self.name}: no type {self.type!r}")


@dataclass(frozen=True, slots=True)
class Table:
    name: str
    columns: tuple[Column, ...]
    belongs: str
    #: The columns that name one row (unique), or () for none.
    key: tuple[str, ...] = ()
    #: A row id both backends number (`id`), beside the key.
    numbered: bool = False
    #: Columns looked up by, each tuple one index.
    lookups: tuple[tuple[str, ...], ...] = ()
    #: Whether the key holds among one owner's rows (False: across the whole server,
    #: as a session's id does).
    key_per_owner: bool = True
    #: Whether a row goes when its session does (`session_id`); a session's content
    #: always does.
    with_session: bool = False

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.columns)

    @property
    def first_columns(self) -> tuple[Column, ...]:
        """The columns the table is created with."""
        return tuple(c for c in self.columns if not c.later)

    @property
    def goes_with_session(self) -> bool:
        return self.with_session or (self.belongs == SESSION and self.name != "sessions")

    def column(self, name: str) -> Column:
        return next(c for c in self.columns if c.name == name)


def _text(*names: str, required: bool = False) -> tuple[Column, ...]:
    return tuple(Column(n, required=required) for n in names)


FILES = Table(
    "files",
    (
        Column("path", required=True),
        Column("source", required=True),
        *_text("root", "session_id"),
        *(Column(n, "int", True, "0") for n in ("size", "mtime_ns", "read_offset", "lines")),
        Column("tail_hash"),
        Column("status", required=True, default="'ok'"),
        *_text("error", "indexed_at"),
    ),
    OWNER,
    key=("path",),
)
SESSIONS = Table(
    "sessions",
    (
        Column("id", required=True),
        Column("source", required=True),
        *_text("file_path", "parent_id"),
        Column("is_subagent", "bool", True, "false"),
        *_text("agent_type", "agent_description", "cwd", "git_branch", "version"),
        *_text("first_ts", "last_ts", "title"),
        Column("n_messages", "int", True, "0"),
        Column("n_turns", "int", True, "0"),
        Column("missing", "bool", True, "false"),
    ),
    SESSION,
    key=("id",),
    key_per_owner=False,
)
MESSAGES = Table(
    "messages",
    (
        *_text("session_id", "file_path", required=True),
        Column("line", "int", True),
        Column("part", "int", True),
        *_text("uuid", "parent_uuid", "message_id"),
        *_text("kind", "text", required=True),
        *_text("ts", "tool_name", "tool_id", "files"),
        Column("is_error", "bool", True, "false"),
        *_text("cwd", "git_branch", "version", "heading"),
    ),
    SESSION,
    key=("file_path", "line", "part"),
    numbered=True,
)
SESSION_META = Table(
    "session_meta",
    (
        *_text("session_id", "file_path", required=True),
        Column("line", "int", True),
        *_text("kind", "value", required=True),
        Column("leaf_uuid"),
    ),
    SESSION,
    key=("file_path", "line"),
)
UNITS = Table(
    "units",
    (
        *_text("session_id", "kind", required=True),
        Column("ordinal", "int", True),
        Column("source", required=True),
        Column("ts"),
        *(Column(n, required=True, default="''") for n in ("title", "prompt", "reply", "tools")),
        *_text("tool_names", "files"),
        Column("hash", required=True),
    ),
    SESSION,
    key=("session_id", "kind", "ordinal"),
    numbered=True,
)
CHUNKS = Table(
    "chunks",
    (
        Column("unit_id", "int", True),
        Column("field", required=True),
        Column("span_start", "int", True),
        Column("span_end", "int", True),
        Column("scale", "real", True),
        Column("vec", "bytes", True),
        Column("code", "bytes", True),
        Column("text_hash", "bytes"),
    ),
    UNIT,
    numbered=True,
)
EMBEDDED = Table(
    "embedded",
    (Column("unit_id", "int", True), Column("chunks", "int", True)),
    UNIT,
    key=("unit_id",),
)
PROBLEMS = Table(
    "problems",
    (
        Column("file_path", required=True),
        Column("line", "int", True),
        Column("reason", required=True),
        Column("detail"),
    ),
    OWNER,
    key=("file_path", "line"),
)
RUNS = Table(
    "runs",
    (
        Column("started_at", required=True),
        *_text("finished_at", "roots"),
        *(Column(n, "int") for n in ("files_seen", "files_read", "bytes_read", "lines_read")),
        *(Column(n, "int") for n in ("sessions", "problems")),
        Column("interrupted", "bool", True, "false"),
    ),
    OWNER,
    numbered=True,
)
#: Secrets redacted, counted per record's line and session: a line read again states
#: its count anew, and a session dropped or forgotten takes its counts with it.
REDACTIONS = Table(
    "redactions",
    (
        *_text("file_path", "session_id", required=True),
        Column("line", "int", True),
        Column("kind", required=True),
        Column("n", "int", True),
    ),
    OWNER,
    key=("file_path", "session_id", "line", "kind"),
    lookups=(("session_id",),),
    with_session=True,
)
PRIVATE_SESSIONS = Table(
    "private_sessions", (Column("id", required=True), Column("marked_at")), OWNER, key=("id",)
)
REPLAYS = Table(
    "replays",
    _text("file_path", "source_path", required=True),
    OWNER,
    key=("file_path", "source_path"),
)
LAST_RESULTS = Table(
    "last_results",
    (
        Column("terminal", required=True),
        Column("rank", "int", True),
        *_text("session_id", "shown_at", required=True),
    ),
    OWNER,
    key=("terminal", "rank"),
)
TITLE_WRITES = Table(
    "title_writes",
    (
        *_text("session_id", "file_path", required=True),
        Column("line_offset", "int"),
        Column("line", "bytes"),
        *_text("title", "written_at", required=True),
    ),
    SESSION,
    key=("file_path", "line_offset"),
    numbered=True,
)
AUDIT = Table(
    "audit",
    (
        *_text("at", "connection", "tool", required=True),
        Column("query_digest"),
        Column("filters", required=True),
        *_text("strategy", "confidence"),
        *_text("results", "excluded", required=True),
        Column("held_back", "int", True, "0"),
    ),
    OWNER,
    numbered=True,
)
#: One row per file a session's tool call wrote (`storage/writes.py`, for blame): derived
#: from the session's stored messages, so a person's own alone on a server (a pushed
#: session arrives without its messages). SQLite's step 12 and the server's step 9.
FILE_WRITES = Table(
    "file_writes",
    (
        Column("session_id", required=True),
        Column("turn", "int", True),
        Column("seq", "int", True),
        *_text("ts"),
        *_text("tool", "op", "path", required=True),
        *_text("abs_path"),
        Column("name", required=True),
        Column("cwd"),
        *_text("text", "removed", required=True),
        Column("truncated", "bool", True),
    ),
    OWNER,
    numbered=True,
    lookups=(("name",), ("session_id",)),
    with_session=True,
)
#: The sessions indexed before `file_writes` existed, whose writes are still to derive.
FILE_WRITES_BACKLOG = Table(
    "file_writes_backlog",
    (Column("session_id", required=True),),
    OWNER,
    lookups=(("session_id",),),
    with_session=True,
)
SETTINGS = Table(
    "settings", (Column("key", required=True), Column("value", required=True)), INDEX, key=("key",)
)

#: Every table both backends hold, by name.
TABLES = {
    t.name: t
    for t in (
        FILES,
        SESSIONS,
        MESSAGES,
        SESSION_META,
        UNITS,
        CHUNKS,
        EMBEDDED,
        PROBLEMS,
        RUNS,
        REDACTIONS,
        PRIVATE_SESSIONS,
        REPLAYS,
        LAST_RESULTS,
        TITLE_WRITES,
        AUDIT,
        FILE_WRITES,
        FILE_WRITES_BACKLOG,
        SETTINGS,
    )
}


#: A schema step: run on a connection of the backend's driver inside the migration.
Step = Callable[[Any], None]


def schema_step(name: str, statements: Callable[[Any], Iterable[str]]) -> Step:
    """A step that runs `statements(db)` one by one, named for the migration's list."""

    def step(db: Any) -> None:
        for statement in statements(db):
            db.execute(statement)

    step.__name__ = step.__qualname__ = name
    return step


def added_column(table: str, column: str) -> Column:
    """The description of a column a later step adds (`later=True`): one that may be
    added to a table already holding rows."""
    described = TABLES[table].column(column)
    if not described.later:
        raise ValueError(f"{table}.{column} is made with its table, not added later")
    if described.required and described.default is None:
        raise ValueError(f"{table}.{column}: a column added later needs a default")
    return described
