"""Which copy of a chat to index when a SpecStory export is not the only one.

A SpecStory export is a copy of a chat another agent keeps (its header names the agent
and the agent's own session id, `<!-- cursor Session <id> -->`), and there can be more
copies than one:

- the agent's own: Cursor's store (`state.vscdb`, a composer under that id) or Claude
  Code's transcript (`~/.claude/projects/*/<id>.jsonl`) on this machine. That copy
  wins: it is what the export was made from, it holds more (each tool call's arguments
  and output, each message's own time, subagents as sessions of their own) and it keeps
  growing while the chat goes on; its source reads it. The export is indexed when this
  machine has no such copy: a chat from another machine, committed with the project, or
  one the agent has deleted since. With that agent's source turned off, the export is
  not indexed either: the chat is still the agent's.
- another export of the same session beside it: SpecStory's CLI has written one session
  under a new name as its title changed and left the old file. The fullest copy wins
  (the largest, then the newest, then the last by name); the others are read again when
  it changes (`stamp_paths`), so the choice follows it.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from findsession.sources import cursor_ide, cursor_ide_db, foreign_db
from findsession.sources.opening import open_regular
from findsession.sources.places.common import GLOBAL, user_folder
from findsession.sources.places.homes import claude_projects
from findsession.sources.registry import SourceKind
from findsession.sources.specstory_parse import is_export_name, session_ids

#: Bytes read from the start of an export to find its session comment.
HEAD_BYTES = 8192
#: What each agent is called in a session comment (lower case), by the source that
#: reads its own copy.
AGENTS = {
    "cursor": SourceKind.CURSOR,
    "cursor ide": SourceKind.CURSOR,
    "cursoride": SourceKind.CURSOR,  # the CLI's name for Cursor IDE chats (2026)
    "cursor cli": SourceKind.CURSOR_AGENT,
    "claude code": SourceKind.CLAUDE_CODE,
    "codex cli": SourceKind.CODEX,
    "gemini cli": SourceKind.GEMINI,
    "factory droid cli": SourceKind.DROID,
    "copilot": SourceKind.VSCODE_COPILOT,
    "vscode": SourceKind.VSCODE_COPILOT,  # the extension's name for Copilot chats
}
#: The CLI names each VS Code build's Copilot (`VS Code Copilot IDE`, `VSCodium Copilot IDE`).
_COPILOT = "copilot ide"
_SAFE_ID = re.compile(r"^[0-9A-Za-z][0-9A-Za-z._-]*$")


def agent_kind(agent: str | None) -> str | None:
    """The source that reads the named agent's own sessions, if findsession has one."""
    name = " ".join(agent.lower().split()) if agent else ""
    if name.endswith(_COPILOT):
        return SourceKind.VSCODE_COPILOT
    return AGENTS.get(name)


def head_ids(path: Path) -> tuple[str, str] | None:
    """The agent and its session id from the start of an export; None when it names
    none or cannot be read now."""
    try:
        with open_regular(str(path)) as fh:
            head = fh.read(HEAD_BYTES).decode("utf-8", "replace")
    except OSError:
        return None
    return session_ids(head)


class Copies:
    """The other copies of an export's chat; what it learns of a folder or a store is
    kept until that folder or store changes."""

    def __init__(self) -> None:
        # folder -> (its mtime, {file name: the agent's session id, or None})
        self._folders: dict[str, tuple[int, dict[str, str | None]]] = {}
        # export -> ((its size, its mtime), the agent's session id it names, or None)
        self._heads: dict[str, tuple[tuple[int, int], str | None]] = {}
        # Cursor's store -> (its stamp, the composer ids it holds)
        self._composers: dict[str, tuple[tuple[int, ...], frozenset[str]]] = {}

    def siblings(self, path: Path) -> list[Path]:
        """The other exports of the same session in the file's folder."""
        own = self._own(path)
        if own is None:
            return []  # an export that names no session has no copies to tell apart
        ids = self._ids(path.parent)
        return [path.parent / name for name, sid in ids.items() if sid == own and name != path.name]

    def fuller(self, path: Path) -> Path | None:
        """The export of the same session beside this one that is indexed in its
        place, or None when this one is the fullest."""
        best, best_key = None, _weight(path)
        for other in self.siblings(path):
            key = _weight(other)
            if key is not None and (best_key is None or key > best_key):
                best, best_key = other, key
        return best

    def agents_own(self, agent: str | None, agent_id: str) -> str | None:
        """Where this machine keeps the agent's own copy of the session, in words for a
        report; None when it keeps none that a source of findsession reads. `OSError`
        when Cursor's store cannot be read now (locked): try again next run."""
        kind = agent_kind(agent)
        if kind == SourceKind.CURSOR:
            store = cursor_store()
            if agent_id in self._composer_ids(store):
                return f"Cursor's store {store}"
        elif kind == SourceKind.CLAUDE_CODE:
            found = claude_transcript(agent_id)
            if found is not None:
                return f"Claude Code's transcript {found}"
        return None

    def _own(self, path: Path) -> str | None:
        """The export's session id, read again only when the file changed."""
        try:
            st = os.stat(path)
        except OSError:
            return None
        stamp = (st.st_size, st.st_mtime_ns)
        cached = self._heads.get(str(path))
        if cached is None or cached[0] != stamp:
            found = head_ids(path)
            cached = self._heads[str(path)] = (stamp, found[1] if found else None)
        return cached[1]

    def _ids(self, folder: Path) -> dict[str, str | None]:
        """Each export's session id in `folder`, listed again only when the folder
        changed (a file added, removed or renamed); a header not read yet (a file
        still being written when listed) is read again."""
        key = str(folder)
        try:
            mtime = os.stat(folder).st_mtime_ns
        except OSError:
            return {}
        cached = self._folders.get(key)
        if cached is None or cached[0] != mtime:
            try:
                with os.scandir(folder) as listing:
                    names = sorted(
                        e.name for e in listing if is_export_name(e.name) and e.is_file()
                    )
            except OSError:
                return {}
            old = cached[1] if cached is not None else {}
            cached = self._folders[key] = (mtime, {n: old.get(n) for n in names})
        ids = cached[1]
        for name, sid in ids.items():
            if sid is None:
                ids[name] = self._own(folder / name)
        return ids

    def _composer_ids(self, store: Path) -> frozenset[str]:
        try:
            st = os.stat(store)
        except OSError:
            return frozenset()  # no Cursor on this machine
        stamp = (st.st_size, st.st_mtime_ns, *_stat(Path(f"{store}-wal")))
        cached = self._composers.get(str(store))
        if cached is not None and cached[0] == stamp:
            return cached[1]
        ids: frozenset[str] = frozenset()
        try:
            with foreign_db.reading(store) as conn:
                if cursor_ide_db.KV in cursor_ide_db.tables(conn):
                    ids = frozenset(cursor_ide_db.composer_ids(conn))
        except OSError as exc:
            if "locked" in str(exc):
                raise
            # Not a database Cursor could use: it holds no chat of the export.
        self._composers[str(store)] = (stamp, ids)
        return ids


def cursor_store() -> Path:
    """The Cursor editor's database that holds its chats (composers) on this machine."""
    return user_folder("Cursor") / GLOBAL / cursor_ide.DB


def claude_transcript(session_id: str) -> Path | None:
    """Claude Code's own transcript of a session on this machine, if it has one."""
    if not _SAFE_ID.match(session_id):
        return None
    root = claude_projects()
    try:
        projects = sorted(e.path for e in os.scandir(root) if e.is_dir(follow_symlinks=False))
    except OSError:
        return None
    for project in projects:
        candidate = Path(project) / f"{session_id}.jsonl"
        if candidate.is_file():
            return candidate
    return None


def _weight(path: Path) -> tuple[int, int, str] | None:
    """How full a copy is: its size, then its time, then its name."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns, path.name)


def _stat(path: Path) -> tuple[int, int]:
    try:
        st = os.stat(path)
    except OSError:
        return (-1, -1)
    return (st.st_size, st.st_mtime_ns)
