"""Sourcegraph Cody's chats: where its history is, and the `Source` that reads it.

- **The VS Code extension** (`sourcegraph.cody-ai`) keeps the history in the editor's
  global state: the `ItemTable` row `sourcegraph.cody-ai` of the `User` folder's
  `globalStorage/state.vscdb` (VS Code's, VS Code Insiders', VSCodium's; `<User>` as for
  Cursor, `places.common.user_folder`), one JSON object of every key Cody keeps there,
  the history under `cody-local-chatHistory-v2` (`cody_history`, `cody_records`). Cody installed in
  Cursor or Windsurf writes the same row into their database, which their own sources
  read as theirs: it is not read here.
- **The JetBrains plugin** (and any other client of Cody's agent that lets the agent
  keep its state) has the agent write each key as a file of JSON in
  `<data>/Cody-nodejs/<client>-globalState/` (`JetBrains-globalState`), `<data>` as the
  `env-paths` package gives it: `$XDG_DATA_HOME`, else `~/.local/share`; macOS
  `~/Library/Application Support`; Windows `%LOCALAPPDATA%\\Cody-nodejs\\Data`. The
  history is the file `cody-local-chatHistory-v2`. Before that (2024) the plugin kept
  each project's chats in its `.idea/cody_history.xml` (`cody_jetbrains`), found in
  every project the index knows, as a store kept in a project.
- **An export** (`Cody: Export Chats as JSON`, the history panel's download), named as a
  root: read as the history it holds.

One store holds many chats, so a store is a file of sibling sessions, each chat
`<store id>:<key>` (`cody_history.chat_key`). The history is one JSON value rewritten
whole on every save: its digest says whether anything changed; when it did, each
chat's own digest says which chats to read again. The `cody` CLI keeps no history.
Cody has no command that opens a chat by its id.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import IO, Any

from findsession.domain import Problem, Resume, Session
from findsession.sources import cursor_ide_db as db
from findsession.sources import foreign_db
from findsession.sources.base import Skip, Source, SourceFile, store_id, texts_by_line
from findsession.sources.cody_history import HISTORY_KEY, Chat, chats_of, history_chats
from findsession.sources.cody_jetbrains import HISTORY_XML, IDEA, project_chats
from findsession.sources.cody_records import chat_records
from findsession.sources.cursor import Cursor, Reading, Record
from findsession.sources.cursor_ide import DB, GLOBAL
from findsession.sources.cursor_ide_layouts import item_token, token_of
from findsession.sources.cursor_ide_records import loads, rank_of
from findsession.sources.registry import SourceKind
from findsession.sources.resuming import no_resume

KIND = SourceKind.CODY
#: The extension's id: its global state's row in `ItemTable`.
EXTENSION = "sourcegraph.cody-ai"
_STATE_DIR = "-globalState"
#: The cursor's token of the whole history value (never a chat's key).
_WHOLE = "value:"
_EXPORT_PREFIX = "cody-chat-history-"
_SUNSET = (
    "Cody Free, Pro and Enterprise Starter ended on 23 July 2025: only an account on a"
    " Sourcegraph Enterprise instance still opens Cody's chats"
)


class CodySource(Source):
    """Sourcegraph Cody's chats, from the editor's global state or the agent's files."""

    kind = KIND
    companions = foreign_db.COMPANIONS

    def discover(self, root: Path, skip: Skip) -> Iterator[Path]:
        """A database, the agent's history file or an export named itself; in a folder,
        its own `state.vscdb` (or its `globalStorage`'s), each `*-globalState/` history
        file (or its own), and the exports it holds."""
        if root.is_file():
            if root.suffix in (".vscdb", ".json") or root.name in (HISTORY_KEY, HISTORY_XML):
                yield root
            return
        places = (root / DB, root / GLOBAL / DB, root / HISTORY_KEY, root / HISTORY_XML)
        for place in (*places, root / IDEA / HISTORY_XML):
            if place.is_file():
                yield place
        try:
            with os.scandir(root) as listing:
                names = sorted(e.name for e in listing if not e.is_symlink())
        except OSError as exc:
            if root.exists():
                skip(root, f"cannot read the folder: {exc.strerror or exc}")
            return
        for name in names:
            if name.endswith(_STATE_DIR) and (root / name / HISTORY_KEY).is_file():
                yield root / name / HISTORY_KEY
            elif name.startswith(_EXPORT_PREFIX) and name.endswith(".json"):
                yield root / name

    def kept_in_project(self, path: Path) -> bool:
        return path.name == HISTORY_XML

    def describe(self, path: Path) -> SourceFile:
        return SourceFile(
            path, self.kind, session_id=store_id(self.kind, path), sibling_sessions=True
        )

    def read(self, sf: SourceFile, fh: IO[bytes], cursor: Cursor | None) -> Reading:
        """The chats whose content changed since `cursor`, each whole."""
        size = os.fstat(fh.fileno()).st_size
        problems: list[Problem] = []
        raw = _raw(sf.path, fh, problems)
        old = foreign_db.tokens(cursor)
        whole = item_token(raw) if raw is not None else ""
        if problems or (old and old.get(_WHOLE) == whole):
            kept = foreign_db.cursor(size, cursor.lines if cursor else 0, old)
            return Reading([], kept, fresh=False, unchanged=not problems, problems=problems)
        chats = _chats(sf.path, raw, problems)
        tokens = {key: token_of(chat.data) for key, chat in chats.items()}
        todo = foreign_db.changed(old, tokens)
        records: list[Record] = []
        for key in todo:
            records += chat_records(chats[key], problems)
        now = foreign_db.cursor(size, len(chats), {**tokens, _WHOLE: whole})
        return Reading(
            records,
            now,
            fresh=False,
            replaced=frozenset(todo),
            bytes_read=len(raw or ""),
            lines_read=len(todo),
            problems=problems,
        )

    def read_back(self, path: Path, lines: set[int]) -> dict[tuple[int, int], str]:
        ranks = {foreign_db.position_of(line)[0] for line in lines}
        with path.open("rb") as fh:
            raw = _raw(path, fh, [])
        records: list[Record] = []
        for key, chat in _chats(path, raw, []).items():
            if rank_of(key) in ranks:
                records += chat_records(chat, [])
        return texts_by_line(records, lines)

    def resume(self, session: Session) -> Resume:
        reason = (
            "Cody has no command that opens a chat by its id: in VS Code run `Cody: Chat"
            " History` and pick the chat (in a JetBrains IDE, Cody's History tab), signed in"
            " to the account it was kept under"
        )
        return replace(no_resume(reason), note=_SUNSET)

    def title_line(self, sf: SourceFile, title: str) -> bytes | None:
        """None: the titles are in the editor's database or the agent's state, which
        findsession never writes."""
        return None


def _raw(path: Path, fh: IO[bytes], problems: list[Problem]) -> str | bytes | None:
    """The history's JSON as the store holds it: the extension's row of a database
    (None when Cody never ran there), or a file's bytes."""
    if path.suffix != ".vscdb":
        fh.seek(0)
        return fh.read()
    with foreign_db.reading(path) as conn:
        if db.ITEMS not in db.tables(conn):
            problems.append(Problem(0, f"not an editor's state database: it has no {db.ITEMS}"))
            return None
        value = db.item_values(conn, (EXTENSION,)).get(EXTENSION)
    return value if isinstance(value, str | bytes) else None


def _chats(path: Path, raw: str | bytes | None, problems: list[Problem]) -> dict[str, Chat]:
    if raw is None:
        return {}
    if path.name == HISTORY_XML:
        return project_chats(raw, path, problems)
    try:
        doc: Any = loads(raw)
    except ValueError as exc:
        problems.append(Problem(0, f"malformed Cody history JSON: {exc}"))
        return {}
    if path.suffix == ".vscdb":
        return chats_of(doc, problems)
    return history_chats(doc, problems)
