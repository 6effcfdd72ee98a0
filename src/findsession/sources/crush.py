"""Crush: where its databases are, and the `Source` that reads them.

Crush has no global store: each project keeps its sessions in `<project>/.crush/crush.db`
(SQLite, written in place while Crush runs). It records every project it has data for in
`projects.json` (`{projects: [{path, data_dir, last_accessed}]}`) in its data folder:
`$CRUSH_GLOBAL_DATA`, else `$XDG_DATA_HOME/crush`, else `%LOCALAPPDATA%\\crush` on Windows
and `~/.local/share/crush` elsewhere. That list is where findsession looks with no
configuration; a project the index knows from another agent's sessions is looked at too
(`project_root`), and a folder the person names is walked for `.crush/crush.db`.

One database holds many sessions, each indexed as `<file id>:<Crush's session id>`; only
the sessions whose change token moved are read again (`project_db`, which reads the first
OpenCode's stores too, and `foreign_db`). Crush's own title-making sessions (`title-<id>`)
are never indexed; a sub-agent's session is linked to the session whose tool call
started it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from findsession.domain import Resume, Session
from findsession.sources import foreign_db, project_db
from findsession.sources.base import Skip, Source, SourceFile, store_id
from findsession.sources.cursor import Cursor, Reading
from findsession.sources.places.data import CRUSH_PROJECTS, crush_projects
from findsession.sources.places.projects import CRUSH_STORE
from findsession.sources.registry import SourceKind
from findsession.sources.resuming import option, resume_in_cwd

KIND = SourceKind.CRUSH
STORE = CRUSH_STORE
DB_NAME = STORE.db_name


def file_id(path: Path) -> str:
    """`crush-` and a hash of the database's path: its sessions are `<file id>:<id>`."""
    return store_id("crush", path)


class CrushSource(Source):
    """Crush's per-project `crush.db` stores (read by `project_db`, shared with the
    first OpenCode's)."""

    kind = KIND
    companions = foreign_db.COMPANIONS
    #: 2: a subagent's session keeps its own title (its parent link had taken the title's
    #: line in the index).
    reads = 2

    def kept_in_project(self, path: Path) -> bool:
        """Every database of Crush's: each is a project's `.crush/crush.db`."""
        return True

    def discover(self, root: Path, skip: Skip) -> Iterator[Path]:
        """The databases `projects.json` lists (at Crush's data folder), or every
        `.crush/crush.db` under `root`; a database named as a root is taken as it is."""
        if root.is_file():
            yield root
            return
        if (root / CRUSH_PROJECTS).is_file():
            for _, data in crush_projects(root):
                if (data / DB_NAME).is_file():
                    yield data / DB_NAME
            return
        yield from project_db.walk(root, STORE, skip)

    def describe(self, path: Path) -> SourceFile:
        return SourceFile(path=path, source=KIND, session_id=file_id(path), sibling_sessions=True)

    def read(self, sf: SourceFile, fh: IO[bytes], cursor: Cursor | None) -> Reading:
        """The sessions whose token moved since `cursor`, each whole."""
        return project_db.read(sf.path, fh, cursor, STORE, project_of(sf.path))

    def read_back(self, path: Path, lines: set[int]) -> dict[tuple[int, int], str]:
        """Each wanted message as the database holds it now, numbered as `read` did."""
        return project_db.read_back(path, lines)

    def resume(self, session: Session) -> Resume:
        """`crush --session <id>`, Crush's own way back into a session, in the project
        whose `.crush/` holds it (Crush opens the database of the folder it runs in)."""
        return resume_in_cwd(
            session, "crush", *option("--session", foreign_db.agent_id(session.id))
        )

    def title_line(self, sf: SourceFile, title: str) -> bytes | None:
        """None: a title lives in Crush's database, which findsession never writes."""
        return None


def project_of(db: Path) -> str | None:
    """The project a database belongs to: as `projects.json` lists it, else the folder
    that holds its `.crush/`."""
    folder = os.path.abspath(db.parent)
    for project, data in crush_projects():
        if os.path.abspath(data) == folder:
            return project
    return STORE.project_of(db)
