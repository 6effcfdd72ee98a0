"""Zed's agent threads: where they are, and the `Source` that reads them.

Zed keeps every thread of its agent panel in one SQLite database, `threads/threads.db`
in its data folder: `~/Library/Application Support/Zed` on macOS, `%LOCALAPPDATA%\\Zed`
on Windows, and elsewhere `$FLATPAK_XDG_DATA_HOME/zed` inside Zed's Flatpak, else
`$XDG_DATA_HOME/zed`, else `~/.local/share/zed` (`paths::data_dir` in Zed's source). A
thread is saved whole, as one row, after each change, and deleted when the person
deletes it in Zed; Zed deletes nothing on its own. A thread is indexed as
`<file id>:<Zed's thread id>` and read again whole when its row's token moved
(`zed_db`, `foreign_db`); a subagent's thread is linked to the thread that started it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from findsession.domain import Problem, Resume, Session
from findsession.sources import foreign_db, zed_db
from findsession.sources.base import Skip, Source, SourceFile, store_id
from findsession.sources.cursor import Cursor, Reading, Record
from findsession.sources.registry import SourceKind
from findsession.sources.resuming import no_resume
from findsession.sources.walking import walk
from findsession.sources.zed_records import thread_records

KIND = SourceKind.ZED
DB_NAME = "threads.db"
_NO_RESUME = (
    "Zed has no command that opens an agent thread by its id: open the project in Zed "
    "and pick the thread from the agent panel's history."
)


def file_id(path: Path) -> str:
    """`zed-` and a hash of the database's path: its threads are `<file id>:<id>`."""
    return store_id("zed", path)


class ZedSource(Source):
    """Zed's `threads/threads.db`."""

    kind = KIND
    companions = foreign_db.COMPANIONS
    #: 2: a thread whose row has no folder columns takes its folder and branch from the
    #: project snapshot its document keeps.
    #: 3: a subagent's thread keeps its own title (its parent link had taken the
    #: title's line in the index).
    reads = 3

    def discover(self, root: Path, skip: Skip) -> Iterator[Path]:
        """Every `threads.db` under `root` (the threads folder, a copy of it, or the
        database named itself)."""
        if root.is_file():
            yield root
            return
        for folder, _dirs, names in walk(root, skip):
            if DB_NAME in names:
                yield folder / DB_NAME

    def describe(self, path: Path) -> SourceFile:
        return SourceFile(path=path, source=KIND, session_id=file_id(path), sibling_sessions=True)

    def read(self, sf: SourceFile, fh: IO[bytes], cursor: Cursor | None) -> Reading:
        """The threads whose token moved since `cursor`, each whole."""
        size = os.fstat(fh.fileno()).st_size
        return foreign_db.read_changed(sf.path, size, cursor, _survey)

    def read_back(self, path: Path, lines: set[int]) -> dict[tuple[int, int], str]:
        """Each wanted message as the database holds it now, numbered as `read` did."""
        return foreign_db.read_back(path, lines, _survey)

    def resume(self, session: Session) -> Resume:
        """None: Zed has no command that opens a thread (`zed` opens paths only)."""
        return no_resume(_NO_RESUME)

    def title_line(self, sf: SourceFile, title: str) -> bytes | None:
        """None: a title lives in Zed's database, which findsession never writes."""
        return None


def _survey(conn: foreign_db.Conn) -> foreign_db.Survey | Problem:
    """The threads of a `threads.db`, by id, each read as its one row's document."""
    why = zed_db.missing_table(conn)
    if why is not None:
        return Problem(0, "not a Zed threads store", why)
    found = zed_db.threads(conn)
    problems: list[Problem] = []
    tally = foreign_db.Tally()

    def records(todo: set[str]) -> list[Record]:
        read: list[Record] = []
        for thread in found:
            if thread.key in todo:
                kind, data = zed_db.data(conn, thread.rank)
                tally.rows += 1
                tally.bytes += len(data) if isinstance(data, str | bytes) else 0
                read += thread_records(thread, kind, data, problems)
        return read

    tokens = {t.key: t.token for t in found}
    return foreign_db.Survey(tokens, {t.key: t.rank for t in found}, records, problems, tally)
