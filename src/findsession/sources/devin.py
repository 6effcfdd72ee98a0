"""Devin CLI (Cognition's `devin`, "Devin for Terminal"): where its store is, and the
`Source` that reads it.

The CLI runs a local agent in the terminal (since April 2026) and keeps every local
session in one SQLite file, `cli/sessions.db` in its data folder: `$XDG_DATA_HOME/devin`
when that is set, else `~/.local/share/devin`; macOS `~/Library/Application
Support/devin` is looked at too. Nothing documented moves it. A session sent to the
cloud (`devin --cloud`) lives in Devin's cloud, not here.

One store holds many sessions, each indexed as `<file id>:<Devin's session id>` (ids
such as `victorious-bead`), read again whole when its change token moved (`devin_db`
for the queries, `devin_records` for the chain the person saw). A hidden session
(`hidden = 1`) is read too: it is still the person's history, kept by the CLI. Each
subagent, whose messages Devin keeps among its parent's, is a session of its own,
`<file id>:<session id>/<subagent id>`, linked to its parent and read with it.

`cli/transcripts/<id>.json` beside the store is an export of part of a session in the
Agent Trajectory Interchange Format (`--export`, each turn): it holds nothing the store
lacks but token counts and costs, and is not read. The CLI is closed source: the format
comes only from other tools' readers of real stores (docs/sources.md, "Devin CLI").
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from findsession.domain import Problem, Resume, Session
from findsession.sources import devin_db, foreign_db
from findsession.sources.base import Skip, SourceFile, store_id
from findsession.sources.cursor import Record
from findsession.sources.devin_records import session_records
from findsession.sources.registry import SourceKind
from findsession.sources.resuming import option, resume_in_cwd

KIND = SourceKind.DEVIN
DB_NAME = "sessions.db"
CLI = "cli"


def file_id(path: Path) -> str:
    """`devin-` and a hash of the store's path: its sessions are `<file id>:<id>`."""
    return store_id("devin", path)


class DevinSource(foreign_db.OneStoreSource):
    """Devin CLI's `cli/sessions.db`."""

    kind = KIND
    prefix = "devin"
    #: 2: each subagent's chain, not read before, is a session linked to its parent.
    reads = 2

    def discover(self, root: Path, skip: Skip) -> Iterator[Path]:
        """`cli/sessions.db` in `root` (the data folder, or a copy of it), `sessions.db`
        in `root` (its `cli/` folder), or `root` itself when it names a file. Nothing
        deeper: the folder also holds the CLI's binaries, logs and credentials."""
        if root.is_file():
            yield root
        elif (root / CLI / DB_NAME).is_file():
            yield root / CLI / DB_NAME
        elif (root / DB_NAME).is_file():
            yield root / DB_NAME

    def survey(self, conn: devin_db.Conn) -> foreign_db.Survey | Problem:
        return _survey(conn)

    def resume(self, session: Session) -> Resume:
        """`devin --resume <id>` (the CLI's command reference: resume a session by its
        id), in the folder the session worked in, where the local agent works."""
        return resume_in_cwd(session, "devin", *option("--resume", foreign_db.agent_id(session.id)))

    def title_line(self, sf: SourceFile, title: str) -> bytes | None:
        """None: a title lives in the session's row of Devin's store, which findsession
        never writes."""
        return None


def _survey(conn: devin_db.Conn) -> foreign_db.Survey | Problem:
    why = devin_db.missing_tables(conn)
    if why is not None:
        return Problem(0, "not a Devin CLI store", why)
    found = devin_db.sessions(conn)
    problems: list[Problem] = []

    def records(keys: set[str]) -> list[Record]:
        out: list[Record] = []
        for session in (s for s in found if s.id in keys):
            nodes = devin_db.nodes(conn, session.id)
            states = devin_db.tool_states(conn, session.id)
            heads = devin_db.subagent_heads(conn, session.id)
            out += session_records(session, nodes, states, problems, heads)
        return out

    tokens = {s.id: s.token for s in found}
    return foreign_db.Survey(tokens, {s.id: s.rank for s in found}, records, problems)
