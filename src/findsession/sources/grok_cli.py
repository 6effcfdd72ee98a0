"""Grok CLI (superagent-ai's open-source terminal agent for xAI's models, npm's
`grok-dev`, formerly `@vibe-kit/grok-cli`): where its store is, and the `Source` that
reads it.

Since its rewrite, 1.0 (March 2026), the CLI keeps every session, of its terminal UI,
its headless `-p` runs and its Telegram bridge alike, in one SQLite file, `grok.db` in
`~/.grok` (the user's home as the OS gives it; nothing moves it). The `@vibe-kit/grok-cli`
releases before it (0.0.x) kept a chat only in memory: nothing of theirs is on disk.

One store holds many sessions, each indexed as `<file id>:<Grok's session id>` (twelve
hex characters, as `grok --session` takes it), read again whole when its change token
moved (`grok_cli_db` for the queries, `grok_cli_records` for the records). The rest of
`~/.grok` (settings, `delegations/` of background tasks, generated media) is not read.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from findsession.domain import Problem, Resume, Session
from findsession.sources import foreign_db, grok_cli_db
from findsession.sources.base import Skip, SourceFile, store_id
from findsession.sources.cursor import Record
from findsession.sources.grok_cli_records import session_records
from findsession.sources.registry import SourceKind
from findsession.sources.resuming import option, resume_in_cwd

KIND = SourceKind.GROK_CLI
DB_NAME = "grok.db"


def file_id(path: Path) -> str:
    """`grok-` and a hash of the store's path: its sessions are `<file id>:<id>`."""
    return store_id("grok", path)


class GrokCliSource(foreign_db.OneStoreSource):
    """Grok CLI's `~/.grok/grok.db`."""

    kind = KIND
    prefix = "grok"

    def discover(self, root: Path, skip: Skip) -> Iterator[Path]:
        """`grok.db` in `root` (the CLI's folder, or a copy of it), or `root` itself when
        it names a file. Nothing deeper: the folder also holds the CLI's settings, with
        its API key."""
        if root.is_file():
            yield root
        elif (root / DB_NAME).is_file():
            yield root / DB_NAME

    def survey(self, conn: grok_cli_db.Conn) -> foreign_db.Survey | Problem:
        return _survey(conn)

    def resume(self, session: Session) -> Resume:
        """`grok --session <id>` in the session's folder: the CLI finds a session by its
        id from any folder, but runs its tools where it is started."""
        return resume_in_cwd(session, "grok", *option("--session", foreign_db.agent_id(session.id)))

    def title_line(self, sf: SourceFile, title: str) -> bytes | None:
        """None: a title lives in the session's row of Grok CLI's store, which
        findsession never writes."""
        return None


def _survey(conn: grok_cli_db.Conn) -> foreign_db.Survey | Problem:
    why = grok_cli_db.missing_tables(conn)
    if why is not None:
        return Problem(0, "not a Grok CLI store", why)
    found = grok_cli_db.sessions(conn)
    problems: list[Problem] = []

    def records(keys: set[str]) -> list[Record]:
        out: list[Record] = []
        for session in (s for s in found if s.id in keys):
            out += session_records(session, grok_cli_db.messages(conn, session.id), problems)
        return out

    tokens = {s.id: s.token for s in found}
    return foreign_db.Survey(tokens, {s.id: s.rank for s in found}, records, problems)
