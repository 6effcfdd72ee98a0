"""OpenCode and Kilo Code: where their sessions are, and the `Source` that reads them.

OpenCode keeps its data in `$XDG_DATA_HOME/opencode` (`~/.local/share/opencode` on
every OS): since 1.2 every session is in the SQLite store `opencode.db`, written in
place while the agent runs; before, in a JSON tree under `storage/` (`opencode_tree`),
which 1.2 copies into the store and leaves behind. Kilo Code's CLI (1.0 and later, built
on OpenCode) keeps the same store as `~/.local/share/kilo/kilo.db`; it is a source of its
own, so `--source kilo-code` names it apart from OpenCode.

The store holds many sessions, each indexed as `<file id>:<ses_…>`: one aggregate query
gives each session a change token, and only the sessions whose token moved are read
again, each whole (`opencode_db`, `foreign_db`). A tree session is indexed under the
same id, so the database, when it holds the session too, replaces it (see
`opencode_tree`). Subagents are sessions with a `parent_id`.

OpenCode's first generation (the Go program Crush grew from) kept each project's
sessions in `<project>/.opencode/opencode.db` instead, in the schema Crush has: such a
store (told apart by its tables, not its name) is read by Crush's reader
(`project_db`), found in the folders of indexed projects and in folders named for this
source, and indexed as OpenCode's, the agent people ran.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from findsession.domain import Problem, Resume, Session
from findsession.sources import foreign_db, opencode_db, opencode_tree, project_db
from findsession.sources.base import Skip, Source, SourceFile, store_id, texts_by_line
from findsession.sources.cursor import Cursor, Reading, Record
from findsession.sources.opencode_records import SessionInfo, session_records
from findsession.sources.places.projects import OPENCODE_FIRST, ProjectStore
from findsession.sources.registry import SourceKind
from findsession.sources.resuming import option, resume_in_cwd

#: How today's OpenCode (and Kilo Code) start a session id.
_SESSION_PREFIX = "ses_"


class OpenCodeSource(Source):
    """OpenCode's `opencode.db` and the older `storage/` tree beside it."""

    kind: str = SourceKind.OPENCODE
    #: The data folder's name, the store's stem and the command that resumes.
    app = "opencode"
    #: A commit waiting in `<db>-wal` is a change of the store.
    companions = foreign_db.COMPANIONS
    #: 2: a subagent's session keeps the title OpenCode gave it (its parent link had
    #: taken the title's place).
    #: 3: a command that exited non-zero (`state.metadata.exit`, its status `completed`)
    #: is a failed call; a subagent of the first OpenCode's store keeps its own title.
    reads = 3
    #: The store the first OpenCode (Go, before the rewrite) kept in each project, in
    #: the schema Crush has; None for an agent that never had one.
    first_generation: ProjectStore | None = OPENCODE_FIRST

    @property
    def store_name(self) -> str:
        return f"{self.app}.db"

    def kept_in_project(self, path: Path) -> bool:
        """The first OpenCode's `.opencode/opencode.db`; not the data folder's store."""
        first = self.first_generation
        return first is not None and (path.parent.name, path.name) == (first.folder, first.db_name)

    def discover(self, root: Path, skip: Skip) -> Iterator[Path]:
        """The store in the data folder `root`, then each session file of its tree (or
        `root` itself, when it is the store or a session file). A folder that is no data
        folder (a project, a folder of projects) is walked for the first OpenCode's
        `.opencode/opencode.db`."""
        if root.is_file():
            if root.name == self.store_name or opencode_tree.is_session_file(root.name):
                yield root
            return
        store = root / self.store_name
        if store.is_file():
            yield store
        if (root / "storage").is_dir():
            yield from opencode_tree.discover(root / "storage", skip)
        elif not store.is_file() and self.first_generation is not None:
            yield from project_db.walk(root, self.first_generation, skip)

    def stamp_paths(self, path: Path) -> list[str]:
        """Beside a tree session's own file, the folders its messages and parts are
        added to (see `opencode_tree.stamp_paths`); the store has its `companions`."""
        return [] if path.name == self.store_name else opencode_tree.stamp_paths(path)

    def describe(self, path: Path) -> SourceFile:
        if path.name == self.store_name:
            return SourceFile(path, self.kind, file_id(self.kind, path), sibling_sessions=True)
        owner = file_id(self.kind, self._store_beside(path))
        parent = opencode_tree.parent_of(path)
        return SourceFile(
            path,
            self.kind,
            f"{owner}:{path.stem}",
            is_subagent=parent is not None,
            parent_id=f"{owner}:{parent}" if parent else None,
        )

    def read(self, sf: SourceFile, fh: IO[bytes], cursor: Cursor | None) -> Reading:
        if sf.path.name == self.store_name:
            first = self._first_generation(sf.path)
            if first is not None:
                return project_db.read(sf.path, fh, cursor, first, first.project_of(sf.path))
            return read_store(sf.path, cursor, self.kind)
        fh.seek(0)
        return opencode_tree.read_session(sf.path, fh.read(), cursor, self._store_beside(sf.path))

    def read_back(self, path: Path, lines: set[int]) -> dict[tuple[int, int], str]:
        """Each wanted message as the store (or the tree) holds it now."""
        if path.name != self.store_name:
            return texts_by_line(opencode_tree.records_of(path), lines)
        if self._first_generation(path) is not None:
            return project_db.read_back(path, lines)
        texts: dict[tuple[int, int], str] = {}
        with foreign_db.reading(path) as conn:
            for rank in sorted({foreign_db.position_of(line)[0] for line in lines}):
                row = opencode_db.session_at(conn, rank)
                if row is not None:
                    texts |= texts_by_line(_session_rows(conn, row, [])[0], lines)
        return texts

    def resume(self, session: Session) -> Resume:
        """`opencode --session <id>` (`kilo --session <id>`): the agent's documented way
        into a session by its `ses_…` id, run in the session's directory, the project
        OpenCode files it under.

        A session of the first OpenCode (its ids are UUIDs, never `ses_…`) has no such
        option: that `opencode` takes no session, only the folder it runs in, whose
        `.opencode/` it opens; its session list (Ctrl+S) leads to the session."""
        agent_id = foreign_db.agent_id(session.id)
        if self.first_generation is None or agent_id.startswith(_SESSION_PREFIX):
            return resume_in_cwd(session, self.app, *option("--session", agent_id))
        title = f" “{session.title}”" if session.title else ""
        note = (
            "the first OpenCode (the Go program, now Crush) opens a project's sessions"
            f" with no way to name one: press Ctrl+S and pick the session{title}; today's"
            " opencode does not read this store"
        )
        return resume_in_cwd(session, self.app, note=note)

    def title_line(self, sf: SourceFile, title: str) -> bytes | None:
        """None: the sessions are rows of the agent's own database, never written here."""
        return None

    def _first_generation(self, store: Path) -> ProjectStore | None:
        """The first OpenCode's layout when the store at `store` is one of its (Crush's
        schema: `sessions` and `messages`, no `part`), else None."""
        first = self.first_generation
        return first if first is not None and project_db.is_one(store) else None

    def _store_beside(self, session_file: Path) -> Path:
        """The store of the data folder a tree session file sits in."""
        return opencode_tree.storage_of(session_file).parent / self.store_name


class KiloCodeSource(OpenCodeSource):
    """Kilo Code's `kilo.db` (its CLI is built on OpenCode: the same store and tree)."""

    kind: str = SourceKind.KILO_CODE
    app = "kilo"
    first_generation = None


def file_id(kind: str, path: Path) -> str:
    """The store's id: its sessions are `<file id>:<session id>`."""
    return store_id(kind, path)


def read_store(path: Path, cursor: Cursor | None, kind: str) -> Reading:
    """The sessions whose change token moved since `cursor`, each read whole."""
    size = path.stat().st_size
    return foreign_db.read_changed(path, size, cursor, lambda conn: _survey(conn, kind))


def _survey(conn: foreign_db.Conn, kind: str) -> foreign_db.Survey | Problem:
    """The sessions of an `opencode.db`, by id, each read with its messages and parts."""
    gaps = opencode_db.missing(conn)
    if gaps:
        return Problem(0, f"not a {kind} store this reader knows", "it lacks " + ", ".join(gaps))
    tokens = opencode_db.session_tokens(conn)
    problems: list[Problem] = []
    tally = foreign_db.Tally()

    def records(todo: set[str]) -> list[Record]:
        read: list[Record] = []
        for row in opencode_db.sessions(conn, [key for key in tokens if key in todo]):
            session, n, nbytes = _session_rows(conn, row, problems)
            read += session
            tally.rows, tally.bytes = tally.rows + n, tally.bytes + nbytes
        return read

    # No ranks: a line is read back by its session's row id (`OpenCodeSource.read_back`).
    return foreign_db.Survey(tokens, {}, records, problems, tally)


def _session_rows(
    conn: Any, row: opencode_db.SessionRow, problems: list[Problem]
) -> tuple[list[Record], int, int]:
    """One session's records, with the rows and bytes read for them (`conn`: a
    `foreign_db.reading` of the store)."""
    messages = opencode_db.messages(conn, row.id)
    parts = opencode_db.parts(conn, row.id)
    info = SessionInfo(
        id=row.id,
        rank=row.rank,
        title=row.title,
        parent_id=row.parent_id,
        cwd=row.directory,
        created_ms=row.time_created,
    )
    records = session_records(info, messages, parts, problems, row.id)
    nbytes = sum(len(m[2]) for m in messages) + sum(len(p[2]) for p in parts)
    return records, 1 + len(messages) + len(parts), nbytes
