"""RA.Aid (PyPI's `ra-aid`): where its stores are, and the `Source` that reads them.

RA.Aid has no global store: each project keeps its runs in `<project>/.ra-aid/pk.db`
(SQLite in WAL mode, written through peewee while RA.Aid runs), in the folder RA.Aid was
started in, or in the folder `--project-state-dir` names (no environment variable moves
it). Nothing lists the projects: findsession reads `~/.ra-aid/` when it holds a store,
a project the index knows from another agent's sessions (`project_root`), and every
`.ra-aid/pk.db` under a folder the person names (a `--project-state-dir` folder, or
the store itself, named as a root, is read as it is).

A run (`ra-aid -m ...`, `ra-aid --chat`) is a session, indexed as `<file id>:<run id>`,
read again whole when its token moved (`ra_aid_db` for the store, `ra_aid_records` for
what is a prompt and what a call). RA.Aid cannot go back into a run: each starts
afresh, with the notes and facts of the earlier runs of the project as context.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from findsession.domain import Problem, Resume, Session
from findsession.sources import foreign_db, project_db, ra_aid_db
from findsession.sources.base import Skip, Source, SourceFile, store_id
from findsession.sources.cursor import Cursor, Reading, Record
from findsession.sources.places.projects import RA_AID_STORE
from findsession.sources.ra_aid_records import run_records
from findsession.sources.registry import SourceKind
from findsession.sources.resuming import no_resume

KIND = SourceKind.RA_AID
STORE = RA_AID_STORE
_NO_RESUME = (
    "RA.Aid has no way back into a run: start `ra-aid` again in the project, which reads"
    " the notes and facts its earlier runs kept"
)


def file_id(path: Path) -> str:
    """`ra-aid-` and a hash of the store's path: its runs are `<file id>:<run id>`."""
    return store_id("ra-aid", path)


class RaAidSource(Source):
    """RA.Aid's per-project `.ra-aid/pk.db` stores."""

    kind = KIND
    companions = foreign_db.COMPANIONS

    def kept_in_project(self, path: Path) -> bool:
        """Every store of RA.Aid's: each is a project's `.ra-aid/pk.db`."""
        return True

    def discover(self, root: Path, skip: Skip) -> Iterator[Path]:
        """`root` itself when it names a file, its `pk.db` when it is a state folder, else
        every `.ra-aid/pk.db` under it."""
        if root.is_file():
            yield root
        elif (root / STORE.db_name).is_file():
            yield root / STORE.db_name
        else:
            yield from project_db.walk(root, STORE, skip)

    def describe(self, path: Path) -> SourceFile:
        return SourceFile(path=path, source=KIND, session_id=file_id(path), sibling_sessions=True)

    def read(self, sf: SourceFile, fh: IO[bytes], cursor: Cursor | None) -> Reading:
        """The runs whose token moved since `cursor`, each whole."""
        size = os.fstat(fh.fileno()).st_size
        return foreign_db.read_changed(sf.path, size, cursor, lambda c: _survey(c, sf.path))

    def read_back(self, path: Path, lines: set[int]) -> dict[tuple[int, int], str]:
        """Each wanted record as the store holds it now, numbered as `read` did."""
        return foreign_db.read_back(path, lines, lambda c: _survey(c, path))

    def resume(self, session: Session) -> Resume:
        """None: RA.Aid has no command that goes back into a run."""
        return no_resume(_NO_RESUME)

    def title_line(self, sf: SourceFile, title: str) -> bytes | None:
        """None: RA.Aid's store is never written by findsession."""
        return None


def project_of(db: Path) -> str | None:
    """The project a store belongs to: the folder holding its `.ra-aid/`; None for a
    `--project-state-dir` folder elsewhere, which says nothing of the project."""
    return str(db.parent.parent) if db.parent.name == STORE.folder else None


def _survey(conn: ra_aid_db.Conn, path: Path) -> foreign_db.Survey | Problem:
    store = ra_aid_db.shape(conn)
    if store is None and ra_aid_db.unborn(conn):
        return foreign_db.Survey({}, {}, lambda keys: [])
    if store is None:
        return Problem(0, "not an RA.Aid store", "no session, human_input and trajectory tables")
    runs = ra_aid_db.runs(conn, store)
    inputs = ra_aid_db.inputs(conn, store)
    owners = ra_aid_db.Owners(runs)
    held: dict[int, list[str]] = {}
    marks = [(row.session, row.when, f"i{row.id}") for row in inputs]
    for session, when, mark in marks + ra_aid_db.step_marks(conn, store):
        run = owners.of(when, session)
        if run is not None:
            held.setdefault(run, []).append(mark)
    # A run with nothing in it but its row (RA.Aid stopped before the task) is none.
    starts = {r.id: (r.start, r.version) for r in runs}
    tokens = {str(run): ra_aid_db.token(starts.get(run), *f) for run, f in held.items()}
    known = {r.id: r for r in runs}
    cwd = project_of(path)

    def records(keys: set[str]) -> list[Record]:
        wanted = {int(k) for k in keys}
        said: dict[int | None, list[ra_aid_db.Input]] = {}
        for row in inputs:
            said.setdefault(owners.of(row.when, row.session), []).append(row)
        done: dict[int | None, list[ra_aid_db.Step]] = {}
        for step in ra_aid_db.steps(conn, store, wanted):
            done.setdefault(owners.of(step.when, step.session), []).append(step)
        out: list[Record] = []
        for run in sorted(wanted):
            version = known[run].version if run in known else None
            out += run_records(run, str(run), version, said.get(run, []), done.get(run, []), cwd)
        return out

    return foreign_db.Survey(tokens, {key: int(key) for key in tokens}, records)
