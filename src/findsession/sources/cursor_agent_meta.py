"""What cursor-agent keeps about a chat beside its transcript: its title and when it
started, which the transcript itself never records.

Both live under `~/.cursor/chats/<md5 of the folder>/<chat id>/`: `meta.json`
(`title`, which `/rename` sets) and `store.db`, the chat's own SQLite store, whose
`meta` row holds `{name, createdAt (ms)}` (`cursor_agent_db`). A name of `New Agent` is
the one every chat starts with, not a title. The store is opened read-only, once per
change of its file or write-ahead log: what it gave is kept by that stamp, so a search
or an index run that asks again costs two stats.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from findsession.domain import Message
from findsession.sources import foreign_db
from findsession.sources.cursor import Record
from findsession.sources.cursor_agent_db import meta_value
from findsession.sources.jsonl import clean_text
from findsession.sources.opening import open_regular

STORE = "store.db"
#: The name cursor-agent gives a chat before anyone names it.
PLACEHOLDER = "New Agent"


@dataclass(frozen=True, slots=True)
class ChatMeta:
    """A chat's title (None: none given) and start time (ISO 8601 UTC, or None)."""

    title: str | None = None
    created: str | None = None


#: Each store's metadata by path, kept while its stamp (the file's and its write-ahead
#: log's size and time) stays the same.
_cache: dict[Path, tuple[tuple[int, ...], ChatMeta]] = {}


def chat_meta(transcript: Path, session_id: str) -> ChatMeta:
    """The title and start time cursor-agent keeps for the chat of `transcript`: the
    title from `meta.json`, else the store's name; the time from the store."""
    home = next((p.parent for p in transcript.parents if p.name == "projects"), None)
    if home is None:
        return ChatMeta()
    try:
        hashes = sorted(os.listdir(home / "chats"))
    except OSError:
        return ChatMeta()
    for name in hashes:
        folder = home / "chats" / name / session_id
        if folder.is_dir():
            return folder_meta(folder)
    return ChatMeta()


def folder_meta(folder: Path) -> ChatMeta:
    """A chat folder's title (`meta.json`'s, else its store's name) and start time."""
    stored = store_meta(folder / STORE)
    return ChatMeta(_meta_json_title(folder) or stored.title, stored.created)


def store_meta(path: Path) -> ChatMeta:
    """The name and start time in a chat's `store.db`; empty when it has none or cannot
    be read now (a locked store is asked again next time)."""
    stamp = _stamp(path)
    if stamp is None:
        return ChatMeta()
    hit = _cache.get(path)
    if hit is not None and hit[0] == stamp:
        return hit[1]
    try:
        with foreign_db.reading(path) as conn:
            value = meta_value(conn)
    except OSError:
        return ChatMeta()
    meta = _decoded(value)
    _cache[path] = (stamp, meta)
    return meta


def decoded_json(value: Any) -> dict[str, Any] | None:
    """The `meta` row's value, hex (or plain) JSON, as an object; None when it is none."""
    if isinstance(value, bytes):
        value = value.decode("ascii", "replace")
    if not isinstance(value, str):
        return None
    text = value.strip()
    try:
        data = json.loads(text if text.startswith("{") else bytes.fromhex(text).decode("utf-8"))
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


def _decoded(value: Any) -> ChatMeta:
    """`{name, createdAt}` from the hex (or plain) JSON of the `meta` row."""
    data = decoded_json(value)
    if data is None:
        return ChatMeta()
    name = data.get("name")
    title = clean_text(name.strip()) if isinstance(name, str) else None
    return ChatMeta(title if title and title != PLACEHOLDER else None, _when(data.get("createdAt")))


def _when(value: Any) -> str | None:
    """A millisecond epoch (a number, or digits as text) as ISO 8601 UTC."""
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if not isinstance(value, int | float) or isinstance(value, bool) or value <= 0:
        return None
    try:
        moment = datetime.fromtimestamp(value / 1000, UTC)
    except (OverflowError, OSError, ValueError):
        return None
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _meta_json_title(folder: Path) -> str | None:
    try:
        with open_regular(str(folder / "meta.json")) as fh:
            data = json.loads(fh.read(1 << 20).decode("utf-8", "replace"))
    except (OSError, ValueError, RecursionError):
        return None
    title = data.get("title") or data.get("name") if isinstance(data, dict) else None
    return clean_text(title.strip()) if isinstance(title, str) and title.strip() else None


def _stamp(path: Path) -> tuple[int, ...] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    try:
        wal = os.stat(f"{path}-wal")
    except OSError:
        wal = None
    # An empty log holds no commit (SQLite makes one for any reader, ours included).
    side: tuple[int, ...] = (wal.st_size, wal.st_mtime_ns) if wal and wal.st_size else ()
    return (st.st_size, st.st_mtime_ns, *side)


def started_at(records: list[Record], created: str) -> list[Record]:
    """The records with the messages of the first line read stamped `created`: the
    transcript records no time, its store records when the chat began."""
    first = min((r.line for r in records if isinstance(r, Message)), default=None)
    return [
        replace(r, timestamp=created) if isinstance(r, Message) and r.line == first else r
        for r in records
    ]
