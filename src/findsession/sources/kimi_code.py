"""Kimi Code CLI: where its sessions are, and the `Source` that reads them.

Kimi Code CLI (the successor of Kimi CLI; `kimi` on the command line too) keeps its
data in `$KIMI_CODE_HOME`, else `~/.kimi-code` (every system). Its `sessions/` holds a
folder per work directory (`wd_<name>_<12 hex digits of the path's SHA-256>`) and in it
a folder per session, `session_<uuid>/`, holding `state.json` (the session's `cwd`,
`title` and `titleKind`, `forkedFrom`, and `agents`: each agent's `type`,
`parentAgentId`, `forkedFrom` and `labels.profileName`) and `agents/<agent>/wire.jsonl`,
each agent's log, appended (`kimi_code_records`): `main` is the session's, each other
(`agent-0`, ...) a subagent's, a `/btw` side question's among them. `session_index.jsonl`
beside `sessions/` lists each session's folder, `workspaces.json` each work directory's.

Two kinds of fork copy history into a log, which is read once, where it was written:
`/fork` makes a session whose agents' logs begin with the source's records, copied up to
a `forked` record; a `/btw` agent (and a subagent started with `fork`) begins with its
parent's messages, copied before its own first `turn.prompt`.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable, Iterator
from functools import lru_cache
from pathlib import Path
from typing import IO, Any

from findsession.domain import MetaEvent, MetaKind, Resume, Session
from findsession.sources.base import Skip, Source, SourceFile, named_results, texts_by_line
from findsession.sources.cursor import Cursor, Reading, Record
from findsession.sources.json_doc import side_object
from findsession.sources.jsonl import (
    ReadStats,
    every_record,
    iter_objects,
    read_appended,
    stripped,
    unknown_kinds,
)
from findsession.sources.kimi_code_records import Context, line_records
from findsession.sources.opening import open_regular
from findsession.sources.registry import SourceKind
from findsession.sources.resuming import option, resume_in_cwd
from findsession.sources.walking import walk

KIND = SourceKind.KIMI_CODE
WIRE = "wire.jsonl"
MAIN = "main"
#: How a copied history ends (`/fork`) and how an agent's own first turn begins, as Kimi
#: Code writes them (`JSON.stringify`: the type first, no spaces); a line that holds one
#: is parsed to be sure.
_FORKED = b'"type":"forked"'
_PROMPT = b'"type":"turn.prompt"'
#: `state.json`'s `titleKind`s that are a title: one the person gave, one Kimi generated
#: (`replaceable` is the first prompt cut short, no title of its own).
_TITLES = {"custom": MetaKind.CUSTOM_TITLE, "generated": MetaKind.AI_TITLE}


class KimiCodeSource(Source):
    """Kimi Code CLI's `sessions/<work dir>/<session>/agents/<agent>/wire.jsonl`."""

    kind = KIND

    def discover(self, root: Path, skip: Skip) -> Iterator[Path]:
        """Every agent's `wire.jsonl` under `root` (the sessions folder, one session, or
        a copy of either)."""
        if root.is_file():
            if root.name == WIRE:
                yield root
            return
        for folder, _dirs, names in walk(root, skip):
            if WIRE in names and folder.parent.name == "agents":
                yield folder / WIRE

    def describe(self, path: Path) -> SourceFile:
        agent = path.parent.name
        session_dir = path.parent.parent.parent
        sid = session_dir.name
        if agent == MAIN:
            return SourceFile(path=path, source=KIND, session_id=sid)
        labels = _agent(session_dir, agent).get("labels")
        profile = labels.get("profileName") if isinstance(labels, dict) else None
        # A subagent's own subagents are the session's too: Kimi resumes the session.
        return SourceFile(
            path=path,
            source=KIND,
            session_id=f"{sid}:{agent}",
            is_subagent=True,
            parent_id=sid,
            agent_type=stripped(profile),
        )

    def stamp_paths(self, path: Path) -> list[str]:
        """The session's `state.json`, where a new title lands without a new record."""
        return [str(path.parent.parent.parent / "state.json")]

    def read(self, sf: SourceFile, fh: IO[bytes], cursor: Cursor | None) -> Reading:
        ctx = _context(sf)
        reading = read_appended(fh, cursor, lambda line, obj: line_records(line, obj, ctx))
        if not reading.fresh:
            reading.records = named_results(reading.records, lambda: _all_lines(sf))
        reading.problems += unknown_kinds(ctx.unknown, "unknown record")
        if not sf.is_subagent and not reading.binary:
            reading.records += _title(sf.path.parent.parent.parent)
        return reading

    def read_back(self, path: Path, lines: set[int]) -> dict[tuple[int, int], str]:
        """Each wanted message as the log holds it now, numbered as `read` did."""
        return texts_by_line(_all_lines(self.describe(path)), lines)

    def resume(self, session: Session) -> Resume:
        """`kimi --session <id>`, Kimi Code's own way back into a session by its id, in
        the directory the session worked in (Kimi Code refuses a session of another
        directory)."""
        return resume_in_cwd(session, "kimi", *option("--session", session.id))

    def title_line(self, sf: SourceFile, title: str) -> bytes | None:
        """None: Kimi Code keeps a title in `state.json`, not in a line of the log."""
        return None


def _context(sf: SourceFile) -> Context:
    session_dir = sf.path.parent.parent.parent
    state = side_object(session_dir / "state.json")
    return Context(cwd=_cwd(session_dir, state), own_from=_own_from(sf, state))


def _cwd(session_dir: Path, state: dict[str, Any]) -> str | None:
    """The session's directory: `state.json`'s `cwd` (`workDir` before), else the
    `workDir` Kimi's `session_index.jsonl` lists for the session (Kimi Code 0.10 kept
    it only there), else the root `workspaces.json` names for the session's
    work-directory folder."""
    for key in ("cwd", "workDir"):
        if text := stripped(state.get(key)):
            return text
    home = session_dir.parent.parent.parent
    listed = _listed(home / "session_index.jsonl", _work_dirs).get(session_dir.name)
    return listed or _listed(home / "workspaces.json", _roots).get(session_dir.parent.name)


def _listed(path: Path, read: Callable[[str, int, int], dict[str, str]]) -> dict[str, str]:
    """What `read` makes of the file at `path`, read once per version of it."""
    try:
        st = os.stat(path)
    except OSError:
        return {}
    return read(str(path), st.st_size, st.st_mtime_ns)


@lru_cache(maxsize=4)
def _work_dirs(path: str, size: int, mtime_ns: int) -> dict[str, str]:
    """Each session's directory, as `session_index.jsonl` lists it (`{sessionId,
    sessionDir, workDir}` a line; the last line of a session wins)."""
    found: dict[str, str] = {}
    with contextlib.suppress(OSError), open_regular(path) as fh:
        for _, entry in iter_objects(fh, 0, 0, ReadStats(0, 0)):
            sid, where = stripped(entry.get("sessionId")), stripped(entry.get("workDir"))
            if sid and where:
                found[sid] = where
    return found


@lru_cache(maxsize=4)
def _roots(path: str, size: int, mtime_ns: int) -> dict[str, str]:
    """Each work-directory folder's root, as `workspaces.json` names it."""
    spaces = side_object(Path(path)).get("workspaces")
    found: dict[str, str] = {}
    for key, entry in spaces.items() if isinstance(spaces, dict) else ():
        if isinstance(entry, dict) and (root := stripped(entry.get("root"))):
            found[key] = root
    return found


def _own_from(sf: SourceFile, state: dict[str, Any]) -> int:
    """The first line of the log the agent wrote itself: the line after the `forked`
    record that ends a `/fork`'s copy of its source, and for a forked agent its own first
    `turn.prompt` after that (past the end of the log while it has none). 0 for a log
    that is no fork's."""
    session_forked = isinstance(state.get("forkedFrom"), str)
    agent_forked = isinstance(_agent_meta(state, sf.path.parent.name).get("forkedFrom"), str)
    if not session_forked and not agent_forked:
        return 0
    forked = prompt = lines = 0
    try:
        with open_regular(str(sf.path)) as fh:
            for lines, raw in enumerate(fh, 1):
                if session_forked and not forked and _FORKED in raw and _typed(raw, "forked"):
                    forked, prompt = lines, 0  # a prompt before it was the source's
                elif agent_forked and not prompt and _PROMPT in raw:
                    prompt = lines if _typed(raw, "turn.prompt") else 0
    except OSError:
        return 0
    if agent_forked:
        return prompt or lines + 1
    return forked + 1 if forked else 0


def _typed(raw: bytes, kind: str) -> bool:
    try:
        obj = json.loads(raw)
    except ValueError:
        return False
    return isinstance(obj, dict) and obj.get("type") == kind


def _agent(session_dir: Path, agent: str) -> dict[str, Any]:
    return _agent_meta(side_object(session_dir / "state.json"), agent)


def _agent_meta(state: dict[str, Any], agent: str) -> dict[str, Any]:
    agents = state.get("agents")
    meta = agents.get(agent) if isinstance(agents, dict) else None
    return meta if isinstance(meta, dict) else {}


def _title(session_dir: Path) -> list[Record]:
    """The session's title, as Kimi Code reads `state.json` (`normalizeSessionTitle`):
    one the person gave or Kimi generated; the first prompt cut short is none."""
    state = side_object(session_dir / "state.json")
    title = stripped(state.get("title"))
    if title and state.get("isCustomTitle") is True:
        kind: MetaKind | None = MetaKind.CUSTOM_TITLE
    elif title:
        given = state.get("titleKind")
        kind = _TITLES.get(given) if isinstance(given, str) else None
    else:
        title, kind = stripped(state.get("customTitle")), MetaKind.CUSTOM_TITLE
    return [MetaEvent(kind, title, 0)] if title and kind else []


def _all_lines(sf: SourceFile) -> list[Record]:
    ctx = _context(sf)
    return every_record(str(sf.path), lambda line, obj: line_records(line, obj, ctx))
