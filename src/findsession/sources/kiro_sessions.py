"""Kiro's later session layout: where it is, which file holds each session, how one is read.

Since Kiro 1.0 (June 2026) Kiro IDE keeps each chat in a folder of its own under the
user's home on every system, `~/.kiro/sessions/<workspace>/sess_<id>/`, `<workspace>`
sixteen hexadecimal digits of a hash of the workspace's folders (so a session is found
by walking, never by computing it):

- `messages.jsonl`: the session's events, one a line, appended as it goes on (read on
  from a byte offset: `kiro_sessions_records`);
- `session.json`: `{schemaVersion, id, title, agentMode, workspacePaths, createdAt,
  lastModifiedAt, modelId, status, ...}`, written again whole as the session changes:
  its title and its workspace, read at each read;
- `publish.cursor` and `snapshots/` (Kiro's own mark of what it published, and the files
  as they were before each change): not read.

A subagent's chat is a session of its own beside its parent's, linked to the session
whose `sub_agent_start` names it (`kiro_sessions_parents`).

`sessions/cli/` beside them is Kiro CLI's older layout, read by the `kiro` source. Kiro
CLI's later builds are said to write their sessions in this layout too (one user's
report of 1.0.288): those are read here, as Kiro IDE's, with nothing in them found yet
that tells the two apart. Kiro is closed source: the format comes only from other
tools' readers of real files (docs/sources.md, "Kiro IDE").
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from findsession.domain import MetaEvent, MetaKind
from findsession.sources.base import Skip, SourceFile, named_results, texts_by_line
from findsession.sources.cursor import Cursor, Reading, Record
from findsession.sources.json_doc import side_object
from findsession.sources.jsonl import (
    ReadStats,
    clean_text,
    every_record,
    iter_objects,
    read_appended,
    unknown_kinds,
)
from findsession.sources.kiro_sessions_parents import subagent_parent
from findsession.sources.kiro_sessions_records import Lines, line_records
from findsession.sources.opening import open_regular
from findsession.sources.walking import walk

MESSAGES, META = "messages.jsonl", "session.json"
#: The title Kiro gives a chat before it has one of its own.
PLACEHOLDER = "New Session"
_SESSION = re.compile(r"\Asess_[^/\\]+\Z")
#: Kiro CLI's older layout, beside the workspaces' folders.
_CLI = "cli"


def is_layout(root: Path) -> bool:
    """Whether `root` is of this layout: a session's `messages.jsonl`, a session's folder,
    a workspace's folder of sessions, or the folder of those (`.kiro/sessions`)."""
    if root.is_file():
        return root.name == MESSAGES
    if _SESSION.match(root.name) or root.name == "sessions" and root.parent.name == ".kiro":
        return True
    return any(_SESSION.match(p.name) for p in _folders(root)) or any(
        _SESSION.match(q.name) for p in _folders(root) for q in _folders(p)
    )


def _folders(folder: Path) -> list[Path]:
    try:
        return [p for p in folder.iterdir() if p.is_dir() and not p.is_symlink()]
    except OSError:
        return []


def discover(root: Path, skip: Skip) -> Iterator[Path]:
    """Each session's `messages.jsonl` under `root`, at most two folders down (workspace,
    session); nothing inside a session's folder (its snapshots) and not Kiro CLI's older
    `cli/` folder."""
    if root.is_file():
        if root.name == MESSAGES:
            yield root
        return
    for folder, dirs, names in walk(root, skip):
        if _SESSION.match(folder.name) and MESSAGES in names:
            yield folder / MESSAGES
            dirs[:] = []
            continue
        depth = len(folder.relative_to(root).parts)
        if depth >= 2:
            dirs[:] = []
        elif depth == 1 or any(_SESSION.match(d) for d in dirs):
            dirs[:] = [d for d in dirs if _SESSION.match(d)]
        else:
            dirs[:] = [d for d in dirs if d != _CLI]


def session_id(path: Path) -> str:
    """The session's folder's name, `sess_<id>` (the `id` of its `session.json`)."""
    return path.parent.name


def describe(path: Path, kind: str) -> SourceFile:
    """The session of a `messages.jsonl`; a subagent's, linked to the session whose
    `sub_agent_start` names it (`kiro_sessions_parents`), with the subagent's name and
    task."""
    started = subagent_parent(path, MESSAGES, META)
    if started is None:
        return SourceFile(path=path, source=kind, session_id=session_id(path))
    return SourceFile(
        path=path,
        source=kind,
        session_id=session_id(path),
        is_subagent=True,
        parent_id=started.parent,
        agent_type=clean_text(started.agent)[:100] if started.agent else None,
        agent_description=clean_text(started.task)[:500] if started.task else None,
    )


def read(path: Path, fh: IO[bytes], cursor: Cursor | None) -> Reading:
    """The events added since `cursor`, in the session's workspace; its title again."""
    meta = side_object(path.with_name(META))
    cwd = workspace(meta)
    seen = Lines(cwd=cwd)
    reading = read_appended(fh, cursor, lambda line, obj: line_records(line, obj, seen))
    if reading.binary:
        return reading
    reading.records = named_results(reading.records, lambda: _every(path, cwd))
    reading.problems += unknown_kinds(seen.unknown, "event of a kind not read")
    reading.records += titles(meta)
    return reading


def _every(path: Path, cwd: str | None) -> list[Record]:
    """Every record of the session, read from the top (a result's call's name)."""
    seen = Lines(cwd=cwd)
    return every_record(str(path), lambda line, obj: line_records(line, obj, seen))


def read_back(path: Path, lines: set[int]) -> dict[tuple[int, int], str]:
    """Each wanted message as the file holds it now, numbered as `read` did."""
    seen = Lines()
    records: list[Record] = []
    last = max(lines, default=0)
    with open_regular(str(path)) as fh:
        for number, obj in iter_objects(fh, 0, 0, ReadStats(0, 0)):
            records += line_records(number, obj, seen)
            if number >= last:
                break
    return texts_by_line(records, lines)


def workspace(meta: dict[str, Any]) -> str | None:
    """The session's folder: the first of its `workspacePaths`, else of its `rootPaths`."""
    for key in ("workspacePaths", "rootPaths"):
        paths = meta.get(key)
        first = paths[0] if isinstance(paths, list) and paths else None
        if isinstance(first, str) and first.strip():
            return clean_text(first)
    return None


def titles(meta: dict[str, Any]) -> list[Record]:
    """The title Kiro gave the chat, unless it is still the placeholder."""
    title = meta.get("title")
    if not isinstance(title, str) or not title.strip() or title.strip() == PLACEHOLDER:
        return []
    return [MetaEvent(MetaKind.AI_TITLE, clean_text(title.strip()), 0)]


def stamp_paths(path: Path) -> list[str]:
    """`session.json`, where a title lands without a new event."""
    return [str(path.with_name(META))]



def session_folder(path: Path) -> Path | None:
    """The session's folder (`sess_<id>`) a path is in, if it is in one."""
    return next((p for p in path.parents if _SESSION.match(p.name)), None)


def changed_file(path: Path, folder: Path) -> Path | None:
    """What a changed file of the session in `folder` is about: its `messages.jsonl`
    itself, its `session.json` the session, anything else (a snapshot) nothing."""
    return folder / MESSAGES if path.parent == folder and path.name in (MESSAGES, META) else None
