"""OpenCode's older JSON tree: one file per session, per message and per part.

Before 1.2, OpenCode kept `storage/session/<projectID>/<ses_…>.json` (the session:
`{id, projectID, directory, parentID, title, time}`), `storage/message/<sessionID>/
<msg_…>.json` and `storage/part/<messageID>/<prt_…>.json`. Version 1.2 copies the tree
into `opencode.db` on its first run and leaves it where it was, so the two may sit side
by side holding the same sessions.

Each session file is one `SourceFile`; reading it gathers its messages and parts and
reads them whole when the content hash over all of them changed. Its stamp folds in the
session's message folder and its newest message's part folder (a new message or part
adds a file there), so an unchanged session still costs a few stats. A session the
database beside the tree holds is left to the database: the tree gives nothing for it,
and it is indexed under the database's id for it, so a session read from the tree
before the database existed is replaced, not doubled, when the database reads it.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from findsession.domain import Problem
from findsession.sources import foreign_db, opencode_db
from findsession.sources.base import Skip
from findsession.sources.cursor import Cursor, Reading, Record, in_store
from findsession.sources.jsonl import text_or_none
from findsession.sources.names import entry_name
from findsession.sources.opencode_records import RawMessage, RawPart, SessionInfo, session_records
from findsession.sources.opening import open_regular


def discover(storage: Path, skip: Skip) -> Iterator[Path]:
    """Every `storage/session/<projectID>/ses_*.json` under the data folder's `storage`."""
    sessions = storage / "session"
    try:
        projects = sorted(os.scandir(sessions), key=lambda e: e.name)
    except FileNotFoundError:
        return
    except OSError as exc:
        skip(sessions, f"cannot read the folder: {exc.strerror or exc}")
        return
    for project in projects:
        if not project.is_dir(follow_symlinks=False):
            continue
        try:
            names = sorted(os.listdir(project.path))
        except OSError as exc:
            skip(Path(project.path), f"cannot read the folder: {exc.strerror or exc}")
            continue
        for name in names:
            if is_session_file(name):
                yield Path(project.path) / name


def is_session_file(name: str) -> bool:
    return name.startswith("ses_") and name.endswith(".json")


def storage_of(path: Path) -> Path:
    """The `storage` folder a session file sits in (`storage/session/<project>/x.json`)."""
    return path.parents[2] if len(path.parents) > 2 else path.parent


def stamp_paths(path: Path) -> list[str]:
    """The folders whose changes are the session's: its messages' folder, and the parts
    folder of its newest message (where a reply being written gains its parts)."""
    storage = storage_of(path)
    folder = storage / "message" / path.stem
    try:
        newest = max((n for n in os.listdir(folder) if n.endswith(".json")), default=None)
    except OSError:
        return [str(folder)]
    if newest is None:
        return [str(folder)]
    return [str(folder), str(storage / "part" / newest[: -len(".json")])]


def parent_of(path: Path) -> str | None:
    """The `parentID` a session file names, or None (also when it cannot be read)."""
    try:
        with open_regular(str(path)) as fh:
            doc = json.loads(fh.read(1 << 20))
    except (OSError, ValueError, RecursionError):
        return None
    parent = doc.get("parentID") if isinstance(doc, dict) else None
    return parent if isinstance(parent, str) and parent else None


def read_session(path: Path, data: bytes, cursor: Cursor | None, database: Path) -> Reading:
    """The session's records, unless nothing changed or `database` holds the session.

    A file of the session caught half written (OpenCode before 1.2 wrote them in place)
    raises `OSError`: the indexer reports it, keeps the old cursor, and the next run
    reads the session again. A file that is whole but not JSON is reported and skipped.
    """
    doc, problem = _load(data)
    if problem is not None:  # whole but not JSON: kept as it was, read when it changes
        return Reading([], cursor or Cursor(), fresh=False, problems=[problem])
    key = _key(doc, path)
    if _held(database, key):
        return Reading([], in_store(len(data)), fresh=False, unchanged=True)
    messages, parts, digest, size, count = gather(storage_of(path), key, data)
    now = Cursor(offset=size, lines=count, digest=digest)
    if cursor is not None and cursor.digest == digest:
        return Reading([], now, fresh=False, unchanged=True)
    problems: list[Problem] = []
    records = session_records(_info(doc, key), messages, parts, problems, None)
    return Reading(records, now, fresh=True, bytes_read=size, lines_read=count, problems=problems)


def records_of(path: Path) -> list[Record]:
    """The session file's records as the tree holds them now (for `read --raw`)."""
    with open_regular(str(path)) as fh:
        data = fh.read()
    doc = _load(data)[0]
    key = _key(doc, path)
    messages, parts, *_ = gather(storage_of(path), key, data)
    return session_records(_info(doc, key), messages, parts, [], None)


def gather(
    storage: Path, key: str, head: bytes
) -> tuple[list[RawMessage], list[RawPart], str, int, int]:
    """The session's message and part files (messages by creation time), and a digest,
    byte count and file count over all of them and the session file's own bytes."""
    digest = hashlib.blake2b(head, digest_size=16)
    size, count = len(head), 1
    found: list[tuple[int | None, RawMessage]] = []
    parts: list[RawPart] = []
    for msg_file, raw in _files(storage / "message" / key):
        digest.update(msg_file.name.encode() + b"\0" + raw)
        size, count = size + len(raw), count + 1
        message_id = msg_file.stem
        found.append((_created(raw), (message_id, None, raw)))
        for part_file, part_raw in _files(storage / "part" / message_id):
            digest.update(part_file.name.encode() + b"\0" + part_raw)
            size, count = size + len(part_raw), count + 1
            parts.append((part_file.stem, message_id, part_raw))
    found.sort(key=lambda item: (item[0] is None, item[0] or 0, item[1][0]))
    messages = [message for _, message in found]
    return messages, parts, "tree:" + digest.hexdigest(), size, count


def _files(folder: Path) -> Iterator[tuple[Path, bytes]]:
    """Each `*.json` in `folder` by name (ids sort by time), whole; a file still being
    written raises `OSError` so the session is read again on the next run."""
    try:
        names = sorted(n for n in os.listdir(folder) if n.endswith(".json"))
    except FileNotFoundError:
        return
    for name in names:
        path = folder / name
        try:
            with open_regular(str(path)) as fh:
                raw = fh.read()
        except FileNotFoundError:
            continue  # removed between the listing and now (a revert)
        if not raw.rstrip().endswith(b"}"):
            raise OSError(f"{path} is half written; read again on the next run")
        yield path, raw


def _load(data: bytes) -> tuple[dict[str, Any], Problem | None]:
    """The session file's object, or an empty one and the problem; a file that stops
    before its closing brace is still being written, and raises `OSError`."""
    if not data.rstrip().endswith(b"}"):
        raise OSError("the session file is half written; read again on the next run")
    try:
        doc = json.loads(data.decode("utf-8", "replace"))
    except (ValueError, RecursionError) as exc:
        return {}, Problem(getattr(exc, "lineno", 1), "malformed JSON", str(exc)[:80])
    if not isinstance(doc, dict):
        return {}, Problem(1, "not a JSON object", type(doc).__name__)
    return doc, None


def _key(doc: dict[str, Any], path: Path) -> str:
    """The session's id, which names its message folder: the file's own `id`, else (when
    it has none, or one no folder can be named by) the file's name."""
    return entry_name(doc.get("id")) or path.stem


def _held(database: Path, key: str) -> bool:
    """Whether the store beside the tree holds the session (False when there is none)."""
    if not database.is_file():
        return False
    with foreign_db.reading(database) as conn:
        return bool(opencode_db.holds(conn, [key]))


def _info(doc: dict[str, Any], key: str) -> SessionInfo:
    times = doc.get("time") if isinstance(doc.get("time"), dict) else {}
    created = times.get("created")
    return SessionInfo(
        id=key,
        rank=0,
        title=text_or_none(doc.get("title")),
        parent_id=None,  # the indexer links the file to its parent (`SourceFile.parent_id`)
        cwd=text_or_none(doc.get("directory")),
        created_ms=created if isinstance(created, int) else None,
    )


def _created(raw: bytes) -> int | None:
    try:
        doc = json.loads(raw)
    except (ValueError, RecursionError):
        return None
    times = doc.get("time") if isinstance(doc, dict) else None
    created = times.get("created") if isinstance(times, dict) else None
    return created if isinstance(created, int | float) and not isinstance(created, bool) else None
