"""The `llm` CLI's log: where it is, and the `Source` that reads it.

`llm` (Simon Willison's command-line tool, PyPI's `llm`) logs every prompt and response
to `logs.db` in its user folder: `$LLM_USER_PATH` when set, else the folder Click gives
the app `io.datasette.llm`, `$XDG_CONFIG_HOME/io.datasette.llm` (else
`~/.config/io.datasette.llm`) on Linux, `~/Library/Application Support/io.datasette.llm`
on macOS, `%APPDATA%\\io.datasette.llm` on Windows. `llm logs off` and `--no-log` keep a
prompt out of it; nothing else goes anywhere else.

A conversation (`llm chat`, `llm -c`, `llm --cid ID`; a lone prompt is a conversation of
one) is a session, indexed as `<file id>:<conversation id>`, read again whole when its
token moved (`llm_db` for the two shapes the file has had, `llm_records` for what is a
prompt). `llm` records no working folder, so its sessions have no project.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from findsession.domain import Problem, Resume, Session
from findsession.sources import foreign_db, llm_db
from findsession.sources.base import Skip, SourceFile, store_id
from findsession.sources.cursor import Record
from findsession.sources.llm_records import conversation_records
from findsession.sources.places.data import llm_user_dir
from findsession.sources.registry import SourceKind
from findsession.sources.resuming import option, resume_anywhere

KIND = SourceKind.LLM
DB_NAME = "logs.db"


def file_id(path: Path) -> str:
    """`llm-` and a hash of the log's path: its conversations are `<file id>:<id>`."""
    return store_id("llm", path)


class LlmSource(foreign_db.OneStoreSource):
    """The `llm` CLI's `logs.db`."""

    kind = KIND
    prefix = "llm"

    def discover(self, root: Path, skip: Skip) -> Iterator[Path]:
        """`logs.db` in `root` (`llm`'s user folder, or a copy of it), or `root` itself
        when it names a file. Nothing deeper: the folder also holds `llm`'s keys,
        templates and embeddings, none of them a log."""
        if root.is_file():
            yield root
        elif (root / DB_NAME).is_file():
            yield root / DB_NAME

    def survey(self, conn: llm_db.Conn) -> foreign_db.Survey | Problem:
        return _survey(conn)

    def resume(self, session: Session) -> Resume:
        """`llm chat --cid <id>`, which carries the conversation on in `llm`'s chat; with
        `--database` (llm 0.25 on) when the log read is not the one `llm` uses by default."""
        command = ["llm", "chat", *option("--cid", foreign_db.agent_id(session.id))]
        path = session.file_path
        if path and os.path.abspath(path) != os.path.abspath(llm_user_dir() / DB_NAME):
            command += option("--database", path)
        return resume_anywhere(session, *command)

    def title_line(self, sf: SourceFile, title: str) -> bytes | None:
        """None: a name lives in the log's `conversations` (or `threads`) row, and
        findsession never writes `llm`'s database."""
        return None


def _survey(conn: llm_db.Conn) -> foreign_db.Survey | Problem:
    store = llm_db.shape(conn)
    if store is None:
        why = "no responses table, nor turns and messages, of the shapes llm wrote"
        return Problem(0, "not an llm log", why)
    found = llm_db.conversations(conn, store)

    def records(keys: set[str]) -> list[Record]:
        return [r for c in found if c.key in keys for r in conversation_records(conn, store, c)]

    return foreign_db.Survey(
        {c.key: c.token for c in found}, {c.key: c.rank for c in found}, records
    )
