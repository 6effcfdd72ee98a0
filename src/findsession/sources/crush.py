"""Crush: where its databases are, and the `Source` that reads them.

Crush has no global store: each project keeps its sessions in `<project>/.crush/crush.db`
(SQLite, written in place while Crush runs). It records every project it has data for in
`projects.json` (`{projects: [{path, data_dir, last_accessed}]}`) in its data folder:
`$CRUSH_GLOBAL_DATA`, else `$XDG_DATA_HOME/crush`, else `%LOCALAPPDATA%\\crush` on Windows
and `~/.local/share/crush` elsewhere. That list is where findsession looks with no
configuration; a project the index knows from another agent's sessions is looked at too
(`project_root`), and a folder the person names is walked for `.crush/crush.db`.

One database holds many sessions, each indexed as `<file id>:<Crush's session id>`; only
the sessions whose change token moved are read again (`foreign_db`). Crush's own
title-making sessions (`title-<id>`) are never indexed; a sub-agent's session is linked to
the session whose tool call started it.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from findsession.domain import Message, Problem, Resume, Session, SourceKind
from findsession.sources import crush_db, foreign_db
from findsession.sources.base import Skip, SourceFile
from findsession.sources.crush_records import session_records
from findsession.sources.cursor import Cursor, Reading, Record
from findsession.sources.opening import open_regular
from findsession.sources.resuming import option, resume_in_cwd

KIND = SourceKind.CRUSH
DATA_FOLDER = ".crush"
DB_NAME = "crush.db"
PROJECTS = "projects.json"
#: Folders a walk for `.crush/` never enters: too big, and no project's own.
_HEAVY = frozenset(
    {"node_modules", "__pycache__", "venv", "site-packages", "dist-packages", "target"}
)
_LIST_BYTES = 16 << 20


def data_home() -> Path:
    """Crush's data folder, where `projects.json` is, as Crush itself finds it."""
    for name, tail in (("CRUSH_GLOBAL_DATA", ()), ("XDG_DATA_HOME", ("crush",))):
        value = os.environ.get(name)
        if value:
            return Path(value).expanduser().joinpath(*tail)
    if sys.platform == "win32":
        local = os.environ.get("LOCALAPPDATA") or str(Path.home() / "AppData" / "Local")
        return Path(local) / "crush"
    return Path.home() / ".local" / "share" / "crush"


def listed_projects(home: Path | None = None) -> list[tuple[str, Path]]:
    """`(project folder, data folder)` of each project `projects.json` names."""
    try:
        with open_regular(str((home or data_home()) / PROJECTS)) as fh:
            doc = json.loads(fh.read(_LIST_BYTES).decode("utf-8", "replace"))
    except (OSError, ValueError, RecursionError):
        return []
    entries = doc.get("projects") if isinstance(doc, dict) else None
    found = []
    for entry in entries if isinstance(entries, list) else []:
        if not isinstance(entry, dict):
            continue
        path, data = entry.get("path"), entry.get("data_dir")
        if isinstance(path, str) and path and "\x00" not in path:
            data = data if isinstance(data, str) and data else os.path.join(path, DATA_FOLDER)
            if "\x00" not in data:
                found.append((path, Path(data)))
    return found


def file_id(path: Path) -> str:
    """`crush-` and a hash of the database's path: its sessions are `<file id>:<id>`."""
    return "crush-" + hashlib.blake2b(str(path).encode(), digest_size=4).hexdigest()


class CrushSource:
    """Crush's per-project `crush.db` stores."""

    kind = KIND
    companions = foreign_db.COMPANIONS

    def default_roots(self) -> list[Path]:
        """The data folder (its `projects.json` lists the projects), then each listed
        project's own data folder, so a change in one is seen where it happens."""
        home = data_home()
        listed = [data for _, data in listed_projects(home) if data.is_dir()]
        return [home, *dict.fromkeys(listed)]

    def project_root(self, project: Path) -> Path | None:
        """A project's own Crush data folder, when it has a database."""
        folder = project / DATA_FOLDER
        return folder if (folder / DB_NAME).is_file() else None

    def discover(self, root: Path, skip: Skip) -> Iterator[Path]:
        """The databases `projects.json` lists (at Crush's data folder), or every
        `.crush/crush.db` under `root`; a database named as a root is taken as it is."""
        if root.is_file():
            yield root
            return
        if (root / PROJECTS).is_file():
            for _, data in listed_projects(root):
                if (data / DB_NAME).is_file():
                    yield data / DB_NAME
            return

        def unreadable(exc: OSError) -> None:
            if exc.filename:
                skip(Path(exc.filename), f"cannot read the folder: {exc.strerror or exc}")

        for folder, dirs, names in os.walk(root, onerror=unreadable, followlinks=False):
            if os.path.basename(folder) == DATA_FOLDER:
                dirs[:] = []
                if DB_NAME in names:
                    yield Path(folder) / DB_NAME
                continue
            dirs[:] = sorted(
                d for d in dirs if d == DATA_FOLDER or not (d.startswith(".") or d in _HEAVY)
            )

    def describe(self, path: Path) -> SourceFile:
        return SourceFile(path=path, source=KIND, session_id=file_id(path), sibling_sessions=True)

    def read(self, sf: SourceFile, fh: IO[bytes], cursor: Cursor | None) -> Reading:
        """The sessions whose token moved since `cursor`, each whole (`fh` is not read:
        the database is opened read-only by path)."""
        size = os.fstat(fh.fileno()).st_size
        cwd = project_of(sf.path)
        with foreign_db.reading(sf.path) as conn:
            why = crush_db.missing_tables(conn)
            if why is not None:
                return Reading(
                    [], Cursor(size, 0, foreign_db.encode({})), fresh=False,
                    problems=[Problem(0, "unknown database", why)],
                )  # fmt: skip
            rows = crush_db.sessions(conn)
            tokens = {row.id: row.token for row in rows}
            now = Cursor(offset=size, lines=len(rows), digest=foreign_db.encode(tokens))
            old = foreign_db.decode(cursor.digest if cursor else None)
            todo = set(foreign_db.changed(old, tokens))
            if not todo:
                return Reading([], now, fresh=False, unchanged=True)
            records: list[Record] = []
            problems: list[Problem] = []
            read_bytes = read_rows = 0
            for row in rows:
                if row.id not in todo:
                    continue
                messages = crush_db.messages(conn, row.id)
                read_rows += len(messages)
                read_bytes += sum(len(m.parts) for m in messages if isinstance(m.parts, str))
                parent = row.parent or crush_db.parent_by_call(conn, row.id)
                records += session_records(row, messages, parent, cwd, problems)
        return Reading(
            records,
            now,
            fresh=False,
            replaced=frozenset(todo),
            bytes_read=read_bytes,
            lines_read=read_rows,
            problems=problems,
        )

    def read_back(self, path: Path, lines: set[int]) -> dict[tuple[int, int], str]:
        """Each wanted message as the database holds it now, numbered as `read` did."""
        ranks = {foreign_db.position_of(line)[0] for line in lines}
        texts: dict[tuple[int, int], str] = {}
        with foreign_db.reading(path) as conn:
            if crush_db.missing_tables(conn) is not None:
                return texts
            for row in crush_db.sessions(conn):
                if row.rank not in ranks:
                    continue
                records = session_records(row, crush_db.messages(conn, row.id), None, None, [])
                parts: dict[int, int] = {}
                for rec in records:  # numbered as the indexer numbers a line's records
                    part = parts.get(rec.line, 0)
                    parts[rec.line] = part + 1
                    if isinstance(rec, Message) and rec.line in lines:
                        texts[(rec.line, part)] = rec.text
        return texts

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
    for project, data in listed_projects():
        if os.path.abspath(data) == folder:
            return project
    return str(db.parent.parent) if db.parent.name == DATA_FOLDER else str(db.parent)
