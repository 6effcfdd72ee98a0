"""The questions findsession asks RA.Aid's `.ra-aid/pk.db`, read-only, and nothing else.

RA.Aid (PyPI's `ra-aid`) writes, through peewee, a row per run in `session(id,
start_time, command_line, program_version, status, ...)`, what the person typed in
`human_input(id, created_at, content, source, session_id)` (`source` is `cli` for `-m`
or `--msg-file`, `chat` for `--chat` and its `ask_human` answers, `hil` for the answers
of `--hil`), and each step the agent took in `trajectory(id, created_at, session_id,
human_input_id, record_type, tool_name, tool_parameters, tool_result, step_data,
is_error, error_message, error_type, ...)`, its JSON in text columns. Its research
notes, key facts and snippets have tables of their own (`research_note`, `key_fact`,
`key_snippet`), which its garbage-collecting agents prune; the call that emitted each is
a trajectory row already, and they are not read. The schema grew by migrations
(`session_id` came in March 2025, `status` in April): each query names only the columns
the file has.

`ask_human` records an answer with no session (`session_id` NULL); such a row, and any
trajectory row without one, belongs to the run that had started when it was written
(`Owners`). The connection is the one `foreign_db.reading` opens.
"""

from __future__ import annotations

import hashlib
import sqlite3
from bisect import bisect_right
from dataclasses import dataclass
from typing import Any

from findsession.sources import foreign_db

Conn = sqlite3.Connection
#: Runs named in one query at most (older SQLite takes 999 values); past it, all rows.
_MARKS = 500
_TRAJECTORY_NEEDS = {"id", "record_type", "created_at"}
_INPUT_NEEDS = {"id", "content", "created_at"}
_STEP_COLUMNS = ("human_input_id", "tool_name", "tool_parameters", "tool_result", "step_data",
                 "is_error", "error_message", "error_type", "session_id")  # fmt: skip


@dataclass(frozen=True, slots=True)
class Store:
    """The columns the file's tables have."""

    session: frozenset[str]
    human_input: frozenset[str]
    trajectory: frozenset[str]


@dataclass(frozen=True, slots=True)
class Run:
    """One RA.Aid run (its `session` row): one findsession session."""

    id: int
    start: str
    version: str | None


@dataclass(frozen=True, slots=True)
class Input:
    id: int
    when: str
    content: str
    source: str | None
    session: int | None


@dataclass(frozen=True, slots=True)
class Step:
    id: int
    when: str
    record_type: str | None
    tool: str | None
    params: str | None
    result: str | None
    data: str | None
    is_error: bool
    error: str | None
    error_type: str | None
    human_input: int | None
    session: int | None


def shape(conn: Conn) -> Store | None:
    """The store's columns, or None when the file is not RA.Aid's store."""
    session = foreign_db.columns(conn, "session")
    human = foreign_db.columns(conn, "human_input")
    trajectory = foreign_db.columns(conn, "trajectory")
    if "id" not in session or not (trajectory >= _TRAJECTORY_NEEDS and human >= _INPUT_NEEDS):
        return None
    return Store(frozenset(session), frozenset(human), frozenset(trajectory))


def unborn(conn: Conn) -> bool:
    """True for a store RA.Aid made and stopped before its tables: its migrations' own
    table alone (RA.Aid stopped before the first run, a dependency missing)."""
    return bool(foreign_db.columns(conn, "migrationshistory")) and not foreign_db.columns(
        conn, "session"
    )


def runs(conn: Conn, store: Store) -> list[Run]:
    """Every run, in the order they started."""
    start = "coalesce(start_time, created_at)" if "start_time" in store.session else "created_at"
    version = "program_version" if "program_version" in store.session else "NULL"
    found = []
    for rid, when, ver in conn.execute(f"SELECT id, {start}, {version} FROM session ORDER BY id"):
        if isinstance(rid, int):
            found.append(Run(rid, when if isinstance(when, str) else "", _str(ver)))
    return sorted(found, key=lambda r: (r.start, r.id))


class Owners:
    """Which run a row belongs to: its own `session_id`, else the last run started by
    the time it was written (the first, for a row older than every run)."""

    def __init__(self, runs_by_start: list[Run]) -> None:
        self.starts = [r.start for r in runs_by_start]
        self.ids = [r.id for r in runs_by_start]

    def of(self, when: str, session: int | None) -> int | None:
        if session is not None or not self.ids:
            return session
        return self.ids[max(bisect_right(self.starts, when) - 1, 0)]


def inputs(conn: Conn, store: Store) -> list[Input]:
    """Every human input, oldest first (RA.Aid keeps the last hundred)."""
    source = "source" if "source" in store.human_input else "NULL"
    session = "session_id" if "session_id" in store.human_input else "NULL"
    found = []
    for iid, when, content, src, sid in conn.execute(
        f"SELECT id, created_at, content, {source}, {session} FROM human_input ORDER BY id"
    ):
        if isinstance(iid, int) and isinstance(content, str):
            found.append(Input(iid, _str(when) or "", content, _str(src), _int(sid)))
    return found


def step_marks(conn: Conn, store: Store) -> list[tuple[int | None, str, str]]:
    """Per run, its steps' count, last id and last change (`session_id`, `''`, facts); a
    step without a run by itself (its time, its facts), for `Owners` to place."""
    session = "session_id" if "session_id" in store.trajectory else "NULL"
    changed = "updated_at" if "updated_at" in store.trajectory else "created_at"
    marks: list[tuple[int | None, str, str]] = [
        (_int(sid), "", f"{count}:{last}:{latest}")
        for sid, count, last, latest in conn.execute(
            f"SELECT {session}, count(*), max(id), max({changed}) FROM trajectory"
            f" WHERE {session} IS NOT NULL GROUP BY 1"
        )
    ]
    marks += [
        (None, _str(when) or "", f"{sid}:{latest}")
        for sid, when, latest in conn.execute(
            f"SELECT id, created_at, {changed} FROM trajectory WHERE {session} IS NULL"
        )
    ]
    return marks


def steps(conn: Conn, store: Store, runs: set[int]) -> list[Step]:
    """The trajectory rows of `runs`, and every row linked to no run, oldest first."""
    have = store.trajectory
    cols = ", ".join(c if c in have else "NULL" for c in _STEP_COLUMNS)
    where, marks = "", tuple(sorted(runs))
    if "session_id" in have and len(marks) <= _MARKS:
        where = f" WHERE session_id IS NULL OR session_id IN ({','.join('?' * len(marks))})"
    found = []
    for row in conn.execute(
        f"SELECT id, created_at, record_type, {cols} FROM trajectory{where} ORDER BY id",
        marks if where else (),
    ):
        sid, when, kind, input_id, tool, params, result, data, failed, error, kind_of, session = row
        found.append(
            Step(
                int(sid), _str(when) or "", _str(kind), _str(tool) or None, _str(params),
                _str(result), _str(data), bool(failed), _str(error), _str(kind_of),
                _int(input_id), _int(session),
            )
        )  # fmt: skip
    return found


def token(*facts: Any) -> str:
    own = "|".join(str(f) for f in facts)
    return hashlib.blake2b(own.encode("utf-8", "replace"), digest_size=8).hexdigest()


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
