"""Hermes Agent (Nous Research, PyPI's `hermes-agent`): where its store is, and the
`Source` that reads it.

Hermes keeps every session, of its terminal chat, its TUI and its messaging gateway
(Telegram, Discord, Slack, ...) and its scheduled jobs alike, in one SQLite file,
`state.db`, in its home: `$HERMES_HOME`, else `~/.hermes` (`%LOCALAPPDATA%\\hermes` on
Windows). A profile (`hermes -p NAME`, `hermes profile create`) is a home of its own under
the root's `profiles/NAME/`, with its own `state.db`; the root is `~/.hermes` even when
`$HERMES_HOME` names one of its profiles, and `$HERMES_HOME` itself when it lies elsewhere
(a container's `/opt/data`), as Hermes finds it (`hermes_constants.get_default_hermes_root`).

The database is the whole record: the `sessions/session_<id>.json` snapshots (always
written before 0.16, only with `sessions.write_json_snapshots` since) and the gateway's
`sessions/<id>.jsonl` transcripts of the older releases copy sessions the database
holds, and Hermes itself reads neither any more. They are not read.

A conversation is a session, indexed as `<file id>:<Hermes' session id>`, read again
whole when its token moved (`hermes_db` for the store, `hermes_records` for what is a
prompt).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

from findsession.domain import Problem, Resume, Session
from findsession.paths import expand
from findsession.sources import foreign_db, hermes_db
from findsession.sources.base import Skip, SourceFile, store_id
from findsession.sources.cursor import Record
from findsession.sources.hermes_records import conversation_records
from findsession.sources.places.clis import HERMES_PROFILES as PROFILES
from findsession.sources.places.clis import hermes_root
from findsession.sources.registry import SourceKind
from findsession.sources.resuming import option, resume_anywhere

KIND = SourceKind.HERMES
DB_NAME = "state.db"
#: A profile's name as `hermes -p` takes it (`hermes_cli.profiles`).
_PROFILE = re.compile(r"\A[a-z0-9][a-z0-9_-]{0,63}\Z")


def file_id(path: Path) -> str:
    """`hermes-` and a hash of the store's path: its sessions are `<file id>:<id>`."""
    return store_id("hermes", path)


class HermesSource(foreign_db.OneStoreSource):
    """Hermes Agent's `state.db`, the default home's and each profile's."""

    kind = KIND
    prefix = "hermes"
    #: 2: a continuation or branch keeps its own title (its parent link had taken the
    #: title's line in the index).
    reads = 2

    def discover(self, root: Path, skip: Skip) -> Iterator[Path]:
        """`state.db` in `root` and in each of its `profiles/*/`, or `root` itself when it
        names a file. Nothing else: the home also holds Hermes' logs, skills, memories
        and the session snapshots the database already holds."""
        if root.is_file():
            yield root
            return
        if (root / DB_NAME).is_file():
            yield root / DB_NAME
        profiles = root / PROFILES
        try:
            names = sorted(p.name for p in profiles.iterdir()) if profiles.is_dir() else []
        except OSError as exc:
            skip(profiles, f"cannot list: {exc.strerror or exc}")
            return
        for name in names:
            if (profiles / name / DB_NAME).is_file():
                yield profiles / name / DB_NAME

    def survey(self, conn: hermes_db.Conn) -> foreign_db.Survey | Problem:
        return _survey(conn)

    def resume(self, session: Session) -> Resume:
        """`hermes --resume <id>`, which finds a session by its id from any folder and goes
        back into the folder the session was recorded in, a gateway's chat too (it goes
        on in the terminal); with `-p <profile>` for a profile's store, `-p default` for
        the root's when Hermes would otherwise open another profile (`$HERMES_HOME`, or
        the sticky profile `hermes profile use` set), and `HERMES_HOME` set for a store
        anywhere else."""
        command = ["hermes", *option("--resume", foreign_db.agent_id(session.id))]
        home = Path(session.file_path).parent if session.file_path else None
        if home is None:
            return resume_anywhere(session, *command)
        chosen = _profile_args(home)
        if chosen is None:
            return resume_anywhere(session, "env", f"HERMES_HOME={home}", *command)
        return resume_anywhere(session, command[0], *chosen, *command[1:])

    def title_line(self, sf: SourceFile, title: str) -> bytes | None:
        """None: a title lives in the session's row of Hermes' database, which findsession
        never writes."""
        return None


def _survey(conn: hermes_db.Conn) -> foreign_db.Survey | Problem:
    store = hermes_db.shape(conn)
    if store is None:
        why = "no sessions and messages tables of the shape Hermes writes"
        return Problem(0, "not a Hermes store", why)
    found = hermes_db.conversations(conn, store)
    problems: list[Problem] = []

    def records(keys: set[str]) -> list[Record]:
        out: list[Record] = []
        for conversation in (c for c in found if c.key in keys):
            rows = hermes_db.messages(conn, store, conversation.segments)
            before = hermes_db.branch_base(conn, store, conversation, rows)
            cwd = conversation.cwd or hermes_db.prompt_cwd(conn, store, conversation.segments)
            out += conversation_records(conversation, rows, before, cwd, problems)
        return out

    tokens = {c.key: c.token for c in found}
    return foreign_db.Survey(tokens, {c.key: c.rank for c in found}, records, problems)


def _profile_args(home: Path) -> list[str] | None:
    """What `hermes` needs to open the store in `home`: nothing, `-p <name>`, or None when
    no profile names it (then `HERMES_HOME` does)."""
    top = hermes_root()
    given = os.environ.get("HERMES_HOME", "").strip()
    opens = expand(given) if given else None
    # Without `-p`, Hermes opens `$HERMES_HOME` when it names a profile, else the
    # profile made sticky, else the root.
    if opens is not None and opens.parent.name == PROFILES:
        plain = opens
    else:
        sticky = _sticky_profile(top)
        plain = top / PROFILES / sticky if sticky and sticky != "default" else top
    if _same(home, plain):
        return []
    if _same(home, top):
        return ["-p", "default"]
    if _same(home.parent, top / PROFILES) and _PROFILE.match(home.name):
        return ["-p", home.name]
    return None


def _same(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return os.path.abspath(a) == os.path.abspath(b)


def _sticky_profile(top: Path) -> str | None:
    """The profile `hermes profile use` made sticky (`<root>/active_profile`), if any."""
    try:
        with open(top / "active_profile", encoding="utf-8") as fh:
            return fh.read(256).strip() or None
    except (OSError, UnicodeDecodeError):
        return None
