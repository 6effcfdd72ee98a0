"""Gemini CLI chats: where they are, what each file is, and the `Source` that reads them.

This module and `gemini_log`, `gemini_records` and `gemini_projects` are the only code
that knows Gemini CLI's format. Chats live in `<home>/.gemini/tmp/<project>/chats/`
(`GEMINI_CLI_HOME` replaces the home folder the `.gemini` folder sits in): main sessions
as `session-<time>-<id8>.json` or `.jsonl`, a subagent's chat as
`chats/<parent session id>/<agent id>.jsonl`.

Both forms are read whole again when their content hash changed (`cursor.read_whole`),
never on from a byte offset. The `.json` form is rewritten in place, so that is the
only way. The `.jsonl` form only grows, but what it appends changes earlier records: a
`$rewindTo` deletes the turns after it, a `$set` of `messages` replaces them all, and a
message id appended again replaces its earlier record (the CLI does that for nearly
every reply, as its tool calls and token counts come in). Records read on from an offset
could only be added to what the index holds, so a rewound turn would stay searchable and
a replaced reply would be indexed twice; read whole, the file gives exactly the
conversation it holds now and the indexer forgets the rest. A chat file is a few hundred
KB at most, and an unchanged one still costs only a stat.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path
from typing import IO

from findsession.domain import Message, MetaEvent, Problem, Resume, Session
from findsession.sources.base import Skip, Source, SourceFile, texts_by_line
from findsession.sources.cursor import Cursor, Reading, read_whole
from findsession.sources.gemini_copies import is_preferred, other_copy
from findsession.sources.gemini_log import parse_json, parse_jsonl
from findsession.sources.gemini_projects import project_dir
from findsession.sources.gemini_records import conversation_records
from findsession.sources.opening import open_regular
from findsession.sources.registry import SourceKind
from findsession.sources.resuming import no_resume, option, resume_in_cwd
from findsession.sources.walking import walk

KIND = SourceKind.GEMINI

#: `session-<YYYY-MM-DDTHH-MM>-<first 8 characters of the session id>`.
_MAIN_NAME = re.compile(r"^session-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-(?P<short>.+)$")
_SESSION_ID = re.compile(rb'"sessionId"\s*:\s*"((?:[^"\\]|\\.){1,200})"')
_KIND = re.compile(rb'"kind"\s*:\s*"(main|subagent)"')
_HEAD = 64 * 1024
#: The background memory agent's runs (`skill-extraction-<id>`): they quote other
#: sessions back, so indexing them would answer every query twice.
_BACKGROUND = "skill-extraction-"
_BACKGROUND_SHORT = "skill-ex"
#: The id the A2A server (Gemini Code Assist's agent mode) gives every chat it records:
#: each file is a conversation of its own, named by its file.
_SHARED_ID = "a2a-server"


class GeminiSource(Source):
    """Gemini CLI's `~/.gemini/tmp/*/chats/`."""

    kind = KIND
    #: 2: each of the A2A server's chats is a session of its own, named by its file.
    #: 3: a resume's rewritten history keeps each message's first form (its calls, its
    #: time), and a batch's call shows only its own output.
    reads = 3

    def discover(self, root: Path, skip: Skip) -> Iterator[Path]:
        return discover(root, skip)

    def describe(self, path: Path) -> SourceFile:
        return describe(path)

    def read(self, sf: SourceFile, fh: IO[bytes], cursor: Cursor | None) -> Reading:
        return read_whole(fh, cursor, lambda data, problems: file_records(sf.path, data, problems))

    def title_line(self, sf: SourceFile, title: str) -> bytes | None:
        """None: a Gemini CLI chat has no record for a title the person gives (its
        `summary` is the CLI's own)."""
        return None

    def read_back(self, path: Path, lines: set[int]) -> dict[tuple[int, int], str]:
        """Each wanted message as the file resolves it now (the latest record of its id),
        numbered the way `read` numbered it."""
        with open_regular(str(path)) as fh:
            data = fh.read()
        return texts_by_line(file_records(path, data, [], with_project=False), lines)

    def resume(self, session: Session) -> Resume:
        """`gemini --resume <id>` (the full session id: the command Gemini CLI prints
        when a session ends), in the project's directory: Gemini CLI keeps each
        project's chats apart and looks the id up among those of the project it is
        started in. An A2A server's chat has no id of its own to resume."""
        path = Path(session.file_path) if session.file_path else None
        if path and path.stem.endswith("-a2a-serv") and head_fields(path)[0] == _SHARED_ID:
            return no_resume(
                "a chat of Gemini Code Assist's agent mode (the A2A server) carries "
                "the id every such chat shares: the CLI cannot resume it"
            )
        return resume_in_cwd(session, "gemini", *option("--resume", session.id))


def file_records(
    path: Path, data: bytes, problems: list[Problem], with_project: bool = True
) -> list[Message | MetaEvent]:
    """The records of a whole chat file, in conversation order."""
    parse = parse_jsonl if path.name.endswith(".jsonl") else parse_json
    conv = parse(data, problems)
    if (conv.session_id or "").startswith(_BACKGROUND):
        return []
    cwd = None
    if with_project:
        cwd = project_dir(path, conv.project_hash) or next(iter(conv.directories), None)
    return conversation_records(conv, cwd)


def discover(root: Path, skip: Skip | None = None) -> Iterator[Path]:
    """Every chat file under `root`: in `chats/` folders and their subagent folders, and
    `session-*` files anywhere (a copied chats folder). A `.json` whose `.jsonl` twin
    exists is left out: the CLI migrated it there when the session was resumed, so the
    twin holds all of it and more. So is a chat the project's other folder also holds,
    when that copy is the one read (`gemini_copies`)."""
    if root.is_file():
        if _is_chat(root.name, ()):
            yield root
        return

    for base, dirs, files in walk(root, skip):
        in_chats = base.name == "chats" or base.parent.name == "chats"
        if base.parent.name == "chats":
            dirs[:] = []  # a subagent folder holds chats, not more folders of them
        dirs[:] = [d for d in dirs if not d.startswith(_BACKGROUND)]
        names = set(files)
        for name in files:
            chat = _is_chat(name, names) and (in_chats or name.startswith("session-"))
            if chat and not _other_copy_preferred(base / name):
                yield base / name


def _other_copy_preferred(path: Path) -> bool:
    """Whether the project's other folder holds this main chat too, and that copy is
    the one read (`gemini_copies`)."""
    if path.parent.name != "chats" or not _MAIN_NAME.match(path.name.rsplit(".", 1)[0]):
        return False
    copy = other_copy(path, _session_of(path), _session_of)
    return copy is not None and not is_preferred(path, copy)


def _is_chat(name: str, siblings: set[str] | tuple[()]) -> bool:
    if name.endswith(".jsonl"):
        stem = name[: -len(".jsonl")]
    elif name.endswith(".json") and name + "l" not in siblings:
        stem = name[: -len(".json")]
    else:
        return False
    match = _MAIN_NAME.match(stem)
    return not (match and match["short"] == _BACKGROUND_SHORT)


def describe(path: Path) -> SourceFile:
    """What a chat file is: a main session (id from its `sessionId`), a subagent in its
    parent's folder, or a helper chat that carries an earlier file's `sessionId`.

    Older builds wrote a helper agent's chat (`cli_help`) beside the main one under the
    same `sessionId`. The file that sorts first (by the start time in its name) is the
    session; a later one becomes a subagent of it, named by its file (not by the shared
    id, so a prefix of the session's id still names only the session), and a hit on the
    helper leads to its session. The A2A server's chats all carry one id: each is a
    session named by its file.
    """
    stem = path.name.rsplit(".", 1)[0]
    session_id, kind = head_fields(path)
    if path.parent.parent.name == "chats":
        return SourceFile(
            path=path,
            source=KIND,
            session_id=session_id or stem,
            is_subagent=True,
            parent_id=path.parent.name,
        )
    session_id = session_id or stem
    if session_id == _SHARED_ID:
        session_id = stem
    first = _first_holder(path, session_id)
    if first is not None and first != path:
        return SourceFile(
            path=path,
            source=KIND,
            session_id=stem,
            is_subagent=True,
            parent_id=session_id,
            agent_type="helper",
        )
    twin = path.with_suffix(".json") if path.suffix == ".jsonl" else None
    replaced = [twin] if twin is not None and twin.exists() else []
    copy = other_copy(path, session_id, _session_of)
    if copy is not None and is_preferred(path, copy):
        replaced.append(copy)
    return SourceFile(
        path=path,
        source=KIND,
        session_id=session_id,
        is_subagent=kind == "subagent",
        supersedes=tuple(replaced),
    )


def _session_of(path: Path) -> str | None:
    return head_fields(path)[0]


def head_fields(path: Path) -> tuple[str | None, str | None]:
    """The `sessionId` and `kind` a chat file names first (in its first line, or before
    its messages); Nones when it cannot be read or names none."""
    try:
        with open_regular(str(path)) as fh:
            head = fh.read(_HEAD)
    except OSError:
        return None, None
    if path.name.endswith(".jsonl"):
        head = head.split(b"\n", 1)[0]
    else:
        head = head.split(b'"messages"', 1)[0]
    sid, kind = _SESSION_ID.search(head), _KIND.search(head)
    return (
        sid.group(1).decode("utf-8", "replace") if sid else None,
        kind.group(1).decode() if kind else None,
    )


def _first_holder(path: Path, session_id: str) -> Path | None:
    """The first chat file (by name) in `path`'s folder that holds `session_id`."""
    match = _MAIN_NAME.match(path.name.rsplit(".", 1)[0])
    if match is None:
        return None
    try:
        listed = _main_chats(str(path.parent), os.stat(path.parent).st_mtime_ns)
    except OSError:
        return None
    for name in listed.get(match["short"], ()):
        if name == path.name or head_fields(path.parent / name)[0] == session_id:
            return path.parent / name
    return None


@lru_cache(maxsize=64)
def _main_chats(folder: str, mtime_ns: int) -> dict[str, tuple[str, ...]]:
    """A folder's main chat files by the short id in their names, each list sorted.

    Listed once per folder and change of it (`mtime_ns` is part of the key): a first
    run describes every file of a folder that may hold thousands.
    """
    names = set(os.listdir(folder))
    found: dict[str, list[str]] = {}
    for name in sorted(names):
        match = _MAIN_NAME.match(name.rsplit(".", 1)[0])
        if match and _is_chat(name, names):
            found.setdefault(match["short"], []).append(name)
    return {short: tuple(chats) for short, chats in found.items()}
