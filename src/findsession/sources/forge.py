"""Forge (antinomyhq's open-source terminal agent, "ForgeCode", its command `forge`):
where its store is, and the `Source` that reads it.

Forge keeps every conversation, of its interactive shell and its `forge -p` runs
alike, in one SQLite file, `.forge.db` in its folder: `$FORGE_CONFIG` when that is set,
else `~/forge` when that folder exists (the place it used before), else `~/.forge`
(its `forge_config` crate's `base_path`, its `Environment::database_path`). Both home
folders are looked in: one moved by hand may leave the other.

One store holds many conversations, each indexed as `<file id>:<Forge's conversation
id>` (a UUID, as `forge --conversation-id` takes it), read again whole when its change
token moved (`forge_db` for the queries, `forge_records` for the records). The rest of
the folder (its settings and credentials, `.forge_history` of the lines typed, logs,
`snapshots/` of files before an edit) is not read.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from findsession.domain import Problem, Resume, Session
from findsession.sources import foreign_db, forge_db
from findsession.sources.base import Skip, SourceFile, store_id
from findsession.sources.cursor import Record
from findsession.sources.forge_records import conversation_records
from findsession.sources.registry import SourceKind
from findsession.sources.resuming import option, resume_in_cwd

KIND = SourceKind.FORGE
DB_NAME = ".forge.db"


def file_id(path: Path) -> str:
    """`forge-` and a hash of the store's path: its sessions are `<file id>:<id>`."""
    return store_id("forge", path)


class ForgeSource(foreign_db.OneStoreSource):
    """Forge's `.forge.db`."""

    kind = KIND
    prefix = "forge"

    def discover(self, root: Path, skip: Skip) -> Iterator[Path]:
        """`.forge.db` in `root` (Forge's folder, or a copy of it), or `root` itself when
        it names a file. Nothing deeper: the folder also holds Forge's credentials."""
        if root.is_file():
            yield root
        elif (root / DB_NAME).is_file():
            yield root / DB_NAME

    def survey(self, conn: forge_db.Conn) -> foreign_db.Survey | Problem:
        return _survey(conn)

    def resume(self, session: Session) -> Resume:
        """`forge --conversation-id <id>` in the conversation's folder: Forge finds a
        conversation by its id from any folder, but works where it is started."""
        cid = foreign_db.agent_id(session.id)
        return resume_in_cwd(session, "forge", *option("--conversation-id", cid))

    def title_line(self, sf: SourceFile, title: str) -> bytes | None:
        """None: a title lives in the conversation's row of Forge's store, which
        findsession never writes."""
        return None


def _survey(conn: forge_db.Conn) -> foreign_db.Survey | Problem:
    why = forge_db.missing_tables(conn)
    if why is not None:
        return Problem(0, "not a Forge store", why)
    found = forge_db.conversations(conn)
    problems: list[Problem] = []

    def records(keys: set[str]) -> list[Record]:
        out: list[Record] = []
        for row in (r for r in found if r.id in keys):
            context, metrics = forge_db.context(conn, row.id)
            out += conversation_records(row, context, metrics, problems)
        return out

    tokens = {r.id: r.token for r in found}
    return foreign_db.Survey(tokens, {r.id: r.rank for r in found}, records, problems)
