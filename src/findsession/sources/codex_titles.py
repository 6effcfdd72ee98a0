"""Codex thread names, which live beside the rollouts rather than in them.

Two places hold them, by generation: `session_index.jsonl` in the Codex home
(`{id, thread_name, updated_at}` lines, re-appended on every rename: the last line per id
wins), and, in current builds, the `threads` table of `state_<n>.sqlite` (the highest
schema generation present): its `title`, or from 0.17x its `name` (`title` there is the
first prompt until the thread is named). The database belongs to Codex: it is read as every other
agent's store is (`foreign_db.reading`: nothing written beside it while Codex is not
running, read-only while it is), queried once per change of the file. Reading another
tool's own database read-only is not our storage, which is why this module may hold SQL.

Newer rollouts also record a rename as a `thread_name_updated` event, which the rollout
parser reads; these files cover the generations that do not.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from findsession.sources import foreign_db
from findsession.sources.jsonl import clean_text

INDEX_FILE = "session_index.jsonl"
_STATE_DB = re.compile(r"^state_(\d+)\.sqlite$")
_SESSION_FOLDERS = ("sessions", "archived_sessions")
#: Title maps by file, kept while the file's size and mtime stay the same.
_cache: dict[Path, tuple[object, dict[str, str]]] = {}


def codex_home_of(rollout: Path) -> Path | None:
    """The Codex home a rollout lies in: the parent of its `sessions/` or
    `archived_sessions/` folder; None for a rollout kept elsewhere."""
    for folder in rollout.parents:
        if folder.name in _SESSION_FOLDERS:
            return folder.parent
    return None


def title_of(rollout: Path, session_id: str) -> str | None:
    """The thread's name, from the state database, else from `session_index.jsonl`."""
    home = codex_home_of(rollout)
    if home is None:
        return None
    for titles in (_from_state_db(home), _from_index(home / INDEX_FILE)):
        name = titles.get(session_id)
        if name:
            return name
    return None


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns)


def _from_index(path: Path) -> dict[str, str]:
    stamp = _stamp(path)
    if stamp is None:
        return {}
    hit = _cache.get(path)
    if hit is not None and hit[0] == stamp:
        return hit[1]
    titles: dict[str, str] = {}
    try:
        with open(path, "rb") as fh:
            for raw in fh:
                try:
                    entry = json.loads(raw.decode("utf-8", "replace"))
                except (ValueError, RecursionError):
                    continue  # a line being written, or a broken one: the rest still count
                if not isinstance(entry, dict):
                    continue
                sid, name = entry.get("id"), entry.get("thread_name")
                if isinstance(sid, str) and isinstance(name, str) and name.strip():
                    titles[sid] = clean_text(name.strip())
    except OSError:
        return {}
    _cache[path] = (stamp, titles)
    return titles


def _state_db(home: Path) -> Path | None:
    try:
        names = os.listdir(home)
    except OSError:
        return None
    found = [(int(m.group(1)), n) for n in names if (m := _STATE_DB.match(n))]
    return home / max(found)[1] if found else None


def _from_state_db(home: Path) -> dict[str, str]:
    path = _state_db(home)
    if path is None:
        return {}
    # The database may change through its write-ahead log alone.
    stamps = (_stamp(path), _stamp(path.with_name(path.name + "-wal")))
    if stamps[0] is None:
        return {}
    stamp = stamps
    hit = _cache.get(path)
    if hit is not None and hit[0] == stamp:
        return hit[1]
    titles = _query_titles(path)
    _cache[path] = (stamp, titles)
    return titles


#: 0.17x keeps a thread's name in `name` and fills `title` with its first prompt when it
#: has none; earlier schemas have `title` alone, the name.
_NAMED = "SELECT id, name, title, first_user_message FROM threads"
_TITLED = "SELECT id, NULL, title, NULL FROM threads"


def _query_titles(path: Path) -> dict[str, str]:
    try:
        with foreign_db.reading(path) as conn:
            columns = {row[1] for row in conn.execute("PRAGMA table_info(threads)")}
            named = {"name", "first_user_message"} <= columns
            rows = conn.execute(_NAMED if named else _TITLED).fetchall()
    except OSError:
        return {}  # locked, not a database, or a schema without titles
    titles: dict[str, str] = {}
    for sid, name, title, first in rows:
        if not isinstance(sid, str):
            continue
        if not (isinstance(name, str) and name.strip()):
            # A `title` that is only the first prompt names nothing: the next place may.
            name = title if isinstance(title, str) and title != first else None
        if name and name.strip():
            titles[clean_text(sid)] = clean_text(name.strip())
    return titles
