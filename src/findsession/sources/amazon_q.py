"""Amazon Q Developer CLI (`q chat`): where its conversations are, and the `Source` that
reads them.

Amazon Q Developer CLI, renamed Kiro CLI in November 2025, kept its conversations from
1.10 (May 2025) to its last release, 1.19.7, in `data.sqlite3` in its own data folder
(`$XDG_DATA_HOME/amazon-q`, default `~/.local/share/amazon-q`; on macOS
`~/Library/Application Support/amazon-q`; on Windows `%LOCALAPPDATA%\\amazon-q`), table
`conversations(key, value)`: one conversation per directory, replaced whole after every
turn. The value is the conversation Kiro CLI writes too, in an older shape
(`kiro_records`); the store is read as Kiro's is (`kiro.read_store`), each conversation
as `<file id>:<conversation id>`. A store from before 1.10 (AWS CloudShell's among them)
has no conversations table and holds none.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import IO

from findsession.domain import Resume, Session
from findsession.sources import foreign_db
from findsession.sources.base import Skip, Source, SourceFile, store_id
from findsession.sources.cursor import Cursor, Reading
from findsession.sources.kiro import DB_NAME, read_store, read_store_back
from findsession.sources.registry import SourceKind
from findsession.sources.resuming import resume_in_cwd

KIND = SourceKind.AMAZON_Q


class AmazonQSource(Source):
    """Amazon Q Developer CLI's `data.sqlite3`."""

    kind = KIND
    companions = foreign_db.COMPANIONS

    def discover(self, root: Path, skip: Skip) -> Iterator[Path]:
        """`data.sqlite3` at `root` (or `root` itself)."""
        path = root if root.name == DB_NAME else root / DB_NAME
        try:
            if path.is_file():
                yield path
        except OSError as exc:
            skip(root, f"cannot read the folder: {exc.strerror or exc}")

    def describe(self, path: Path) -> SourceFile:
        return SourceFile(
            path=path, source=KIND, session_id=store_id("amazon-q", path), sibling_sessions=True
        )

    def read(self, sf: SourceFile, fh: IO[bytes], cursor: Cursor | None) -> Reading:
        return read_store(sf, fh, cursor)

    def read_back(self, path: Path, lines: set[int]) -> dict[tuple[int, int], str]:
        """Each wanted message as the file holds it now, numbered as `read` did."""
        return read_store_back(path, lines)

    def resume(self, session: Session) -> Resume:
        """`q chat --resume` in the conversation's directory: Amazon Q keeps one
        conversation per directory and resumes that one (it has no way to name a
        conversation by its id)."""
        return resume_in_cwd(
            session,
            "q",
            "chat",
            "--resume",
            note="Amazon Q keeps one conversation per directory: if another was started "
            "there since, q chat --resume opens that one",
        )

    def title_line(self, sf: SourceFile, title: str) -> bytes | None:
        """None: Amazon Q keeps no title."""
        return None
