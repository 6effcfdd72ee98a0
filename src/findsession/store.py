"""The one SQLite file: text, keyword index and (later) vectors, kept consistent together.

Opened through apsw because it can load SQLite extensions on every platform and ships a
recent SQLite with FTS5. WAL mode lets searches read while an index run writes. Only
this module and `migrations` write SQL that changes data.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import stat
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import apsw

from findsession.errors import DatabaseError, IndexBusy
from findsession.migrations import SCHEMA_VERSION, migrate, write_cjk
from findsession.model import Message, MessageKind, MetaEvent, MetaKind, Problem, Session
from findsession.projects import in_project

#: How long a writer or reader waits for another writer before giving up.
BUSY_TIMEOUT_MS = 30_000


#: Columns of `sessions` that are fields of `Session`, under the same names.
_SESSION_COLUMNS = (
    "id",
    "source",
    "file_path",
    "cwd",
    "title",
    "first_ts",
    "last_ts",
    "git_branch",
    "version",
    "parent_id",
    "is_subagent",
    "agent_type",
    "n_turns",
    "n_messages",
    "missing",
)


@dataclass(slots=True)
class FileState:
    """What the index remembers of one transcript file, to read only what changed."""

    path: str
    source: str
    root: str | None
    session_id: str | None
    size: int
    mtime_ns: int
    offset: int
    lines: int
    tail_hash: str | None
    status: str = "ok"
    error: str | None = None


@dataclass(frozen=True, slots=True)
class UnitRow:
    """A searchable unit as the store keeps it."""

    kind: str
    ordinal: int
    source: str
    ts: str | None
    title: str
    prompt: str
    reply: str
    tools: str
    tool_names: list[str]
    files: list[str]

    def digest(self) -> str:
        payload = json.dumps(
            [self.ts, self.title, self.prompt, self.reply, self.tools, self.tool_names, self.files],
            ensure_ascii=False,
        )
        return hashlib.blake2b(payload.encode("utf-8"), digest_size=16).hexdigest()


class Store:
    """A findsession index database. Use `Store.open`; close it when done."""

    def __init__(self, db: apsw.Connection, path: Path) -> None:
        self.db = db
        self.path = path
        #: Opened read-only: the file, its folder or its mount cannot be written.
        self.read_only = False

    @classmethod
    def open(cls, path: Path) -> Store:
        """Open or create the index at `path`, upgrading its schema if it is older.

        An index that cannot be written (a read-only file, folder or mount) is opened
        read-only: search, read and status work, and anything that writes says why not.
        """
        path = path.expanduser()
        _prepare_path(path)
        read_only = not _writable(path)
        try:
            db = _connect(path, read_only)
            db.set_busy_timeout(BUSY_TIMEOUT_MS)
            if not read_only:
                _use_wal(db)
                db.execute("PRAGMA synchronous=NORMAL")
                # Deleted text (a session marked private, a forgotten one) is overwritten,
                # not left readable in free pages.
                db.execute("PRAGMA secure_delete=ON")
            db.execute("PRAGMA foreign_keys=ON")
            _register_functions(db)
            if read_only:
                _check_current(db, path)
            else:
                migrate(db)
        except (apsw.NotADBError, apsw.CorruptError) as exc:
            raise DatabaseError(
                f"{path} is not a findsession index (or is corrupt); it can be set aside and"
                " the index built again from the transcripts",
                cli_hint="run `findsession index --rebuild`, or pass another --db",
            ) from exc
        except (apsw.CantOpenError, apsw.ReadOnlyError, apsw.IOError) as exc:
            raise DatabaseError(
                f"cannot open the index at {path} ({exc}); use an index file that can be read",
                cli_hint=_PATH_HINT,
            ) from exc
        if not read_only:
            _make_private(path)
        store = cls(db, path)
        store.read_only = read_only
        return store

    @staticmethod
    def set_aside(path: Path) -> Path | None:
        """Move an index (and its WAL) out of the way, for a rebuild; return where to.

        Each set-aside file gets a name of its own: two rebuilds in one second once
        replaced the first set-aside index with the second (an empty one). A name is
        claimed with a hard link, which fails rather than overwrite.
        """
        path = path.expanduser()
        if not path.exists():
            return None
        stamp = time.strftime("%Y%m%d-%H%M%S")
        sides = [s for s in ("-wal", "-shm") if Path(f"{path}{s}").exists()]
        for n in itertools.count():
            target = path.with_name(f"{path.name}.broken-{stamp}" + (f"-{n}" if n else ""))
            taken = [Path(f"{target}{s}") for s in ("", "-wal", "-shm")]
            if any(t.exists() or t.is_symlink() for t in taken):
                continue
            try:
                _claim(path, target)
            except FileExistsError:
                continue
            break
        for side in sides:
            _claim(Path(f"{path}{side}"), Path(f"{target}{side}"))
        for side in sides:
            Path(f"{path}{side}").unlink(missing_ok=True)
        path.unlink(missing_ok=True)
        return target

    @staticmethod
    def forgotten_in(path: Path) -> list[str] | None:
        """The ids on the never-index-again list of another index file (one set aside
        by a rebuild), or None when that file cannot be read."""
        try:
            db = apsw.Connection(str(path), flags=apsw.SQLITE_OPEN_READONLY)
            try:
                return [r[0] for r in db.execute("SELECT id FROM private_sessions")]
            finally:
                db.close()
        except apsw.Error:
            return None

    def keep_forgotten(self, ids: Iterable[str]) -> None:
        """Put `ids` on the never-index-again list (carried over from a set-aside index)."""
        with self.transaction():
            self.db.executemany(
                "INSERT OR IGNORE INTO private_sessions (id, marked_at)"
                " VALUES (?, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))",
                [(i,) for i in ids],
            )

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """All or nothing: a crash inside leaves the database as it was before.

        The outermost transaction takes the write lock up front (BEGIN IMMEDIATE). A
        deferred one that read first and then wrote would fail at once with "database is
        locked" when another process (the MCP server's indexer, say) had committed in
        between: SQLite cannot wait that conflict out, but it can wait for the lock.
        """
        if self.db.in_transaction:
            with self.db:  # nested: a savepoint inside the outer transaction
                yield
            return
        self.begin()
        try:
            yield
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    def begin(self) -> None:
        """Take the write lock (BEGIN IMMEDIATE), waiting up to the busy timeout for it."""
        self.require_writable()
        try:
            self.db.execute("BEGIN IMMEDIATE")
        except apsw.BusyError as exc:
            raise IndexBusy(
                f"the index stayed locked by another findsession process for"
                f" {BUSY_TIMEOUT_MS // 1000} s; try again when it is done"
            ) from exc

    def commit(self) -> None:
        self.db.execute("COMMIT")

    def require_writable(self) -> None:
        """Raise a message that says what to do when this index cannot be written."""
        if self.read_only:
            raise DatabaseError(
                f"the index at {self.path} is read-only (the file, its folder or its disk"
                " cannot be written): searching works; to change it, make it writable or"
                " use another index file"
            )

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """Several reads that see one state of the database, without taking the write lock."""
        if self.db.in_transaction:
            yield
            return
        self.db.execute("BEGIN")
        try:
            yield
        finally:
            self.db.execute("COMMIT")

    def query(self, sql: str, params: Any = ()) -> list[tuple[Any, ...]]:
        return list(self.db.execute(sql, params))

    def scalar(self, sql: str, params: Any = ()) -> Any:
        row = self.db.execute(sql, params).fetchone()
        return row[0] if row else None

    # -- files --------------------------------------------------------------------------

    def file_states(self) -> dict[str, FileState]:
        rows = self.db.execute(
            "SELECT path, source, root, session_id, size, mtime_ns, offset, lines, tail_hash,"
            " status, error FROM files"
        )
        return {row[0]: FileState(*row) for row in rows}

    def save_file(self, state: FileState) -> None:
        self.db.execute(
            "INSERT OR REPLACE INTO files (path, source, root, session_id, size, mtime_ns,"
            " offset, lines, tail_hash, status, error, indexed_at)"
            " VALUES (?,?,?,?,?,?,?,?,?,?,?, strftime('%Y-%m-%dT%H:%M:%SZ','now'))",
            (
                state.path,
                state.source,
                state.root,
                state.session_id,
                state.size,
                state.mtime_ns,
                state.offset,
                state.lines,
                state.tail_hash,
                state.status,
                state.error,
            ),
        )

    def set_file_status(self, path: str, status: str, error: str | None = None) -> None:
        self.db.execute(
            "UPDATE files SET status = ?, error = ? WHERE path = ?", (status, error, path)
        )
        self.db.execute(
            "UPDATE sessions SET missing = ? WHERE file_path = ?", (int(status == "missing"), path)
        )

    def forget_file_content(self, path: str) -> list[str]:
        """Drop what was read from `path` (before a full re-read); return its sessions."""
        sessions = [
            r[0]
            for r in self.db.execute(
                "SELECT DISTINCT session_id FROM messages WHERE file_path = ?"
                " UNION SELECT DISTINCT session_id FROM session_meta WHERE file_path = ?",
                (path, path),
            )
        ]
        self.db.execute("DELETE FROM messages WHERE file_path = ?", (path,))
        self.db.execute("DELETE FROM session_meta WHERE file_path = ?", (path,))
        self.db.execute("DELETE FROM problems WHERE file_path = ?", (path,))
        self.db.execute("DELETE FROM redactions WHERE file_path = ?", (path,))
        self.db.execute("DELETE FROM replays WHERE file_path = ?", (path,))
        return sessions

    def scrub_wal(self) -> None:
        """Fold the write-ahead log into the file and empty it: old page images in it
        still hold text that was since deleted. Best effort while others read."""
        if self.read_only:
            return
        with suppress(apsw.BusyError, apsw.LockedError):
            self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def private_sessions(self) -> set[str]:
        return {r[0] for r in self.db.execute("SELECT id FROM private_sessions")}

    def mark_private(self, session_id: str) -> None:
        """Never index this session again, and drop what was stored of it."""
        self.db.execute(
            "INSERT OR IGNORE INTO private_sessions (id, marked_at)"
            " VALUES (?, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))",
            (session_id,),
        )
        self.drop_session_content(session_id)
        children = [
            r[0]
            for r in self.db.execute("SELECT id FROM sessions WHERE parent_id = ?", (session_id,))
        ]
        for child in children:  # its subagents, indexed before the marker was typed
            self.db.execute(
                "INSERT OR IGNORE INTO private_sessions (id, marked_at)"
                " VALUES (?, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))",
                (child,),
            )
            self.delete_session(child)

    def drop_session_content(self, session_id: str) -> None:
        """Delete what was stored of a session's records; its next rebuild removes it."""
        self.db.execute("DELETE FROM messages WHERE session_id = ?", (session_id,))
        self.db.execute("DELETE FROM session_meta WHERE session_id = ?", (session_id,))

    def forget(self, session_ids: list[str]) -> None:
        """Delete sessions (and their subagents) for good: later runs skip them too.

        Skipped-line previews of their files go too: they quote the transcript.
        """
        for sid in session_ids:
            files = [
                r[0]
                for r in self.db.execute(
                    "SELECT file_path FROM sessions WHERE id = ? OR parent_id = ?"
                    " UNION SELECT file_path FROM messages WHERE session_id = ?",
                    (sid, sid, sid),
                )
            ]
            self.db.executemany(
                "UPDATE problems SET detail = NULL WHERE file_path = ?", [(f,) for f in files]
            )
            self.mark_private(sid)
            self.delete_session(sid)

    def reclaim_space(self) -> None:
        """Give the pages freed by deletions back to the file system."""
        self.scrub_wal()
        self.db.execute("VACUUM")
        self.scrub_wal()

    def add_redactions(self, path: str, counts: dict[str, int]) -> None:
        self.db.executemany(
            "INSERT INTO redactions (file_path, kind, n) VALUES (?, ?, ?)"
            " ON CONFLICT(file_path, kind) DO UPDATE SET n = n + excluded.n",
            [(path, kind, n) for kind, n in counts.items()],
        )

    def remove_file(self, path: str) -> None:
        """Remove a file and every session it holds from the index (`--prune`)."""
        sessions = self.forget_file_content(path)
        sessions += [
            r[0] for r in self.db.execute("SELECT id FROM sessions WHERE file_path = ?", (path,))
        ]
        for sid in set(sessions):
            self.delete_session(sid)
        self.db.execute("DELETE FROM files WHERE path = ?", (path,))
        self.db.execute("DELETE FROM replays WHERE file_path = ? OR source_path = ?", (path, path))

    def add_replays(self, path: str, sources: Iterable[str]) -> None:
        """Remember that `path` repeated lines first read from each of `sources`."""
        self.db.executemany(
            "INSERT OR IGNORE INTO replays (file_path, source_path) VALUES (?, ?)",
            [(path, src) for src in sources],
        )

    def replaying_files(self, source_path: str) -> list[str]:
        """Files whose lines were skipped as replays of lines of `source_path`."""
        return [
            r[0]
            for r in self.db.execute(
                "SELECT file_path FROM replays WHERE source_path = ?", (source_path,)
            )
        ]

    def read_again(self, path: str) -> None:
        """Make the next read of `path` start from scratch and claim its session id anew."""
        self.db.execute(
            "UPDATE files SET status = 'stale', session_id = NULL, tail_hash = NULL WHERE path = ?",
            (path,),
        )

    # -- messages and meta ---------------------------------------------------------------

    def uuid_owners(self, uuids: Iterable[str]) -> dict[str, tuple[str, int]]:
        """For already indexed message uuids, the `(file, line)` that holds each."""
        found: dict[str, tuple[str, int]] = {}
        batch = list(uuids)
        for start in range(0, len(batch), 500):
            chunk = batch[start : start + 500]
            marks = ",".join("?" * len(chunk))
            for uuid, path, line in self.db.execute(
                f"SELECT uuid, file_path, min(line) FROM messages WHERE uuid IN ({marks})"
                " GROUP BY uuid",
                chunk,
            ):
                found[uuid] = (path, line)
        return found

    def add_records(
        self, file_path: str, rows: Iterable[tuple[str, int, Message | MetaEvent]]
    ) -> None:
        """Store `(session_id, part, record)` rows; a line read twice replaces itself."""
        for session_id, part, rec in rows:
            if isinstance(rec, MetaEvent):
                self.db.execute(
                    "INSERT OR REPLACE INTO session_meta (session_id, file_path, line, kind, value,"
                    " leaf_uuid) VALUES (?,?,?,?,?,?)",
                    (session_id, file_path, rec.line, rec.kind.value, rec.value, rec.leaf_uuid),
                )
                continue
            self.db.execute(
                "INSERT OR REPLACE INTO messages (session_id, file_path, line, part, uuid,"
                " parent_uuid, message_id, kind, text, ts, tool_name, tool_id, files, is_error,"
                " cwd, git_branch, version) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (
                    session_id,
                    file_path,
                    rec.line,
                    part,
                    rec.uuid,
                    rec.parent_uuid,
                    rec.message_id,
                    rec.kind.value,
                    rec.text,
                    rec.timestamp,
                    rec.tool_name,
                    rec.tool_id,
                    json.dumps(list(rec.files)) if rec.files else None,
                    int(rec.is_error),
                    rec.cwd,
                    rec.git_branch,
                    rec.version,
                ),
            )

    def add_problems(self, file_path: str, problems: Iterable[Problem]) -> None:
        self.db.executemany(
            "INSERT OR REPLACE INTO problems (file_path, line, reason, detail) VALUES (?,?,?,?)",
            [(file_path, p.line, p.reason, p.detail) for p in problems],
        )

    def session_messages(self, session_id: str) -> list[Message]:
        """The session's messages in file order (a subagent's own file comes first)."""
        rows = self.db.execute(
            "SELECT kind, text, line, uuid, parent_uuid, message_id, ts, tool_name, tool_id,"
            " files, is_error, cwd, git_branch, version FROM messages WHERE session_id = ?"
            " ORDER BY line, part",
            (session_id,),
        )
        return [
            Message(
                kind=MessageKind(r[0]),
                text=r[1],
                line=r[2],
                uuid=r[3],
                parent_uuid=r[4],
                message_id=r[5],
                timestamp=r[6],
                tool_name=r[7],
                tool_id=r[8],
                files=tuple(json.loads(r[9])) if r[9] else (),
                is_error=bool(r[10]),
                cwd=r[11],
                git_branch=r[12],
                version=r[13],
            )
            for r in rows
        ]

    def message_sources(self, session_id: str) -> list[tuple[str, int, int]]:
        """(file, line, part) of each of the session's messages, in `session_messages` order."""
        return self.query(
            "SELECT file_path, line, part FROM messages WHERE session_id = ? ORDER BY line, part",
            (session_id,),
        )

    def session_meta(self, session_id: str) -> list[MetaEvent]:
        rows = self.db.execute(
            "SELECT kind, value, line, leaf_uuid FROM session_meta WHERE session_id = ?"
            " ORDER BY file_path, line",
            (session_id,),
        )
        return [MetaEvent(MetaKind(r[0]), r[1], r[2], leaf_uuid=r[3]) for r in rows]

    # -- sessions and units --------------------------------------------------------------

    def save_session(self, s: Session, agent_description: str | None = None) -> None:
        values = [getattr(s, name) for name in _SESSION_COLUMNS]
        columns = ", ".join(_SESSION_COLUMNS)
        marks = ",".join("?" * (len(values) + 1))
        self.db.execute(
            f"INSERT OR REPLACE INTO sessions ({columns}, agent_description) VALUES ({marks})",
            [*values, agent_description],
        )

    def delete_session(self, session_id: str) -> None:
        self.db.execute(
            "DELETE FROM cjk_fts WHERE rowid IN (SELECT id FROM units WHERE session_id = ?)",
            (session_id,),
        )
        self.db.execute("DELETE FROM units WHERE session_id = ?", (session_id,))
        self.db.execute("DELETE FROM messages WHERE session_id = ?", (session_id,))
        self.db.execute("DELETE FROM session_meta WHERE session_id = ?", (session_id,))
        self.db.execute("DELETE FROM sessions WHERE id = ?", (session_id,))

    def sync_units(self, session_id: str, units: list[UnitRow]) -> int:
        """Make the session's units exactly `units`, touching only rows that changed.

        Unchanged rows keep their id (and so their keyword entries and vectors). Returns
        how many rows were written.
        """
        existing = {
            (r[0], r[1]): (r[2], r[3])
            for r in self.db.execute(
                "SELECT kind, ordinal, id, hash FROM units WHERE session_id = ?", (session_id,)
            )
        }
        written = 0
        for unit in units:
            digest = unit.digest()
            old = existing.pop((unit.kind, unit.ordinal), None)
            if old and old[1] == digest:
                continue
            values = (
                unit.source,
                unit.ts,
                unit.title,
                unit.prompt,
                unit.reply,
                unit.tools,
                json.dumps(unit.tool_names),
                json.dumps(unit.files),
                digest,
            )
            if old:
                unit_id = old[0]
                self.db.execute(
                    "UPDATE units SET source=?, ts=?, title=?, prompt=?, reply=?, tools=?,"
                    " tool_names=?, files=?, hash=? WHERE id = ?",
                    (*values, unit_id),
                )
            else:
                unit_id = self.db.execute(
                    "INSERT INTO units (session_id, kind, ordinal, source, ts, title, prompt,"
                    " reply, tools, tool_names, files, hash) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)"
                    " RETURNING id",
                    (session_id, unit.kind, unit.ordinal, *values),
                ).fetchone()[0]
            write_cjk(self.db, unit_id, [unit.title, unit.prompt, unit.reply, unit.tools])
            written += 1
        for unit_id, _ in existing.values():
            self.db.execute("DELETE FROM units WHERE id = ?", (unit_id,))
            self.db.execute("DELETE FROM cjk_fts WHERE rowid = ?", (unit_id,))
            written += 1
        return written

    def recent_sessions(
        self, project: str | None, after: str | None, before: str | None, limit: int
    ) -> list[Session]:
        """Main sessions active in [after, before), most recent first; `project` keeps
        that directory and those below it (None or `/`: every project)."""
        clauses, params = ["NOT is_subagent"], []
        if project and project.strip("/\\"):
            clauses.append("in_project(cwd, ?)")
            params.append(str(Path(project).expanduser()))
        if after:
            clauses.append("last_ts >= ?")
            params.append(after)
        if before:
            clauses.append("last_ts < ?")
            params.append(before)
        return self.sessions_where(" AND ".join(clauses), params, "last_ts DESC", limit)

    def first_prompt(self, session_id: str) -> str:
        """What the person typed first in a session, or ''."""
        first = self.scalar(
            "SELECT prompt FROM units WHERE session_id = ? AND kind = 'turn'"
            " ORDER BY ordinal LIMIT 1",
            (session_id,),
        )
        return first or ""

    def get_session(self, session_id: str) -> Session | None:
        rows = self.sessions_where("id = ?", (session_id,))
        return rows[0] if rows else None

    def sessions_where(
        self, where: str, params: Any = (), order: str = "id", limit: int = -1
    ) -> list[Session]:
        rows = self.db.execute(
            f"SELECT {', '.join(_SESSION_COLUMNS)} FROM sessions WHERE {where}"
            f" ORDER BY {order} LIMIT {int(limit)}",
            params,
        )
        sessions = []
        for row in rows:
            session = Session(**dict(zip(_SESSION_COLUMNS, row, strict=True)))
            session.is_subagent, session.missing = bool(session.is_subagent), bool(session.missing)
            sessions.append(session)
        return sessions

    # -- embedding vectors ----------------------------------------------------------------

    def setting(self, key: str) -> str | None:
        return self.scalar("SELECT value FROM settings WHERE key = ?", (key,))

    def set_setting(self, key: str, value: str) -> None:
        self.db.execute("INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)", (key, value))

    def clear_vectors(self) -> None:
        """Drop every vector: they belong to a model that is no longer the configured one."""
        self.db.execute("DELETE FROM chunks")
        self.db.execute("DELETE FROM embedded")
        self.db.execute("DELETE FROM settings WHERE key LIKE 'embedding_%'")
        self.bump_vector_generation()

    def pending_units(self) -> list[int]:
        """Units without vectors, newest first: recent sessions are the likeliest asked about."""
        if self.scalar("SELECT count(*) FROM units") == self.scalar(
            "SELECT count(*) FROM embedded"
        ):
            return []  # the common case, answered from two counts instead of a join
        return [
            r[0]
            for r in self.db.execute(
                "SELECT u.id FROM units u LEFT JOIN embedded e ON e.unit_id = u.id"
                " WHERE e.unit_id IS NULL ORDER BY u.ts DESC, u.id DESC"
            )
        ]

    def unit_texts(self, unit_ids: list[int]) -> list[tuple[Any, ...]]:
        """(id, hash, session_id, kind, ordinal, title, prompt, reply) of units that exist."""
        marks = ",".join("?" * len(unit_ids))
        return self.query(
            "SELECT id, hash, session_id, kind, ordinal, title, prompt, reply FROM units"
            f" WHERE id IN ({marks})",
            unit_ids,
        )

    def turn_texts(self, session_id: str, ordinals: list[int]) -> dict[int, tuple[str, str]]:
        """(prompt, reply) of some turns of a session, by turn number."""
        marks = ",".join("?" * len(ordinals))
        rows = self.query(
            "SELECT ordinal, prompt, reply FROM units WHERE session_id = ? AND kind = 'turn'"
            f" AND ordinal IN ({marks})",
            [session_id, *ordinals],
        )
        return {r[0]: (r[1], r[2]) for r in rows}

    def save_vectors(
        self, unit_id: int, unit_hash: str, chunks: list[tuple[str, int, int, float, bytes, bytes]]
    ) -> bool:
        """Store a unit's (field, start, end, scale, vec, code) chunks and mark it done.

        Refused (False) when the unit changed or vanished since its text was read: a
        concurrent index run rewrote it, and these vectors describe the old text.
        """
        if self.scalar("SELECT hash FROM units WHERE id = ?", (unit_id,)) != unit_hash:
            return False
        self.db.execute("DELETE FROM chunks WHERE unit_id = ?", (unit_id,))
        self.db.executemany(
            "INSERT INTO chunks (unit_id, field, start, end, scale, vec, code)"
            " VALUES (?,?,?,?,?,?,?)",
            [(unit_id, *c) for c in chunks],
        )
        self.db.execute(
            "INSERT OR REPLACE INTO embedded (unit_id, chunks) VALUES (?, ?)",
            (unit_id, len(chunks)),
        )
        return True

    def bump_vector_generation(self) -> None:
        """Tell long-lived searchers (the MCP server) that their vector matrix is stale."""
        self.db.execute(
            "INSERT OR REPLACE INTO settings (key, value)"
            " VALUES ('vector_generation', lower(hex(randomblob(8))))"
        )

    def schema_version(self) -> int:
        return int(self.scalar("PRAGMA user_version"))


# -- opening the file ------------------------------------------------------------------

_PATH_HINT = "pass --db PATH (or set FINDSESSION_DB) to an index file in a folder you can write"


def _prepare_path(path: Path) -> None:
    """Refuse paths that cannot hold an index, with what to do; create a missing folder."""
    if path.exists() and not path.is_file():
        raise DatabaseError(
            f"{path} is not a regular file, so it cannot hold the index", cli_hint=_PATH_HINT
        )
    parent = path.parent
    if parent.exists() and not parent.is_dir():
        raise DatabaseError(
            f"{parent} is not a folder, so {path} cannot be created", cli_hint=_PATH_HINT
        )
    if not parent.exists():
        try:
            parent.mkdir(parents=True, mode=0o700, exist_ok=True)
        except OSError as exc:
            reason = exc.strerror or str(exc)
            raise DatabaseError(
                f"cannot create the folder {parent} for the index ({reason})",
                cli_hint=_PATH_HINT,
            ) from exc
    if not path.exists() and os.access(parent, os.W_OK):
        # Created here, mode 0600, so SQLite's -wal and -shm files (which copy the main
        # file's mode) are private from their first byte. An empty file is a new database.
        with suppress(FileExistsError):
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))


def _writable(path: Path) -> bool:
    """True when SQLite can write the index: the file, and the folder for -wal/-shm."""
    if path.exists() and not os.access(path, os.W_OK):
        return False
    sides = [Path(f"{path}{s}") for s in ("-wal", "-shm")]
    folder_ok = os.access(path.parent, os.W_OK)
    return folder_ok or all(s.exists() and os.access(s, os.W_OK) for s in sides)


def _connect(path: Path, read_only: bool) -> apsw.Connection:
    if not read_only:
        return apsw.Connection(str(path))
    if not path.exists():
        raise DatabaseError(
            f"there is no index at {path} and its folder cannot be written",
            cli_hint=_PATH_HINT,
        )
    flags = apsw.SQLITE_OPEN_READONLY | apsw.SQLITE_OPEN_URI
    try:
        db = apsw.Connection(f"file:{path}?mode=ro", flags=flags)
        db.execute("SELECT count(*) FROM sqlite_schema").fetchone()
        return db
    except apsw.CantOpenError:
        # A WAL index whose -shm cannot be created: read the main file as it stands.
        return apsw.Connection(f"file:{path}?immutable=1", flags=flags)


def _use_wal(db: apsw.Connection) -> None:
    """Switch a new index to WAL (the mode is stored in the file, so once is enough).

    The switch needs every other connection gone and SQLite does not wait for that with
    the busy timeout: two processes opening a brand-new index at once saw "database is
    locked". It is retried here for as long as the busy timeout would wait.
    """
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            if db.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                db.execute("PRAGMA journal_mode=WAL")
            return
        except apsw.BusyError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def _check_current(db: apsw.Connection, path: Path) -> None:
    version = db.execute("PRAGMA user_version").fetchone()[0]
    if version != SCHEMA_VERSION:
        raise DatabaseError(
            f"the index at {path} is read-only and was written by another findsession"
            f" version (schema {version}, this one uses {SCHEMA_VERSION}): make it"
            " writable once so it can be upgraded"
        )


def _make_private(path: Path) -> None:
    """The index and its side files are readable by their owner alone."""
    for suffix in ("", "-wal", "-shm"):
        side = Path(f"{path}{suffix}")
        with suppress(OSError):
            if side.exists() and stat.S_IMODE(side.stat().st_mode) != 0o600:
                os.chmod(side, 0o600)


def _claim(source: Path, target: Path) -> None:
    """Give `source` the name `target` too, failing (never replacing) if it is taken."""
    try:
        os.link(source, target)
    except FileExistsError:
        raise
    except OSError:
        # No hard links on this file system: rename, after checking the name is free.
        if target.exists():
            raise FileExistsError(target) from None
        source.rename(target)


def _register_functions(db: apsw.Connection) -> None:
    """SQL functions every query may use: `in_project(cwd, project)` (see projects.py)."""
    db.create_scalar_function(
        "in_project", lambda cwd, root: int(in_project(cwd, root)), 2, deterministic=True
    )
