"""Kimi CLI: where its sessions are, and the `Source` that reads them.

Kimi CLI keeps its data in `$KIMI_SHARE_DIR`, else `~/.kimi` (every system). Each work
directory's sessions are in `sessions/<md5 of the directory's path>/` (`<kaos>_<md5>`
for a directory on another machine); `kimi.json` lists the directories (`work_dirs:
[{path, kaos}]`), which is how a session's folder is known. A session is a folder,
`<session id>/`, holding `wire.jsonl` (every event of the session, appended: what is read
here, `kimi_records`), `context.jsonl` (what the model is sent, rewritten on `/clear` and
on compaction, so not read) and `state.json` (`custom_title`, the title Kimi generated or
the person gave). A subagent has a folder of its own, `subagents/<agent id>/`, with its
`wire.jsonl` and `meta.json {subagent_type, description}`. Kimi CLI deletes a session
only when it holds nothing (on exit) or when the person deletes it.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path
from typing import IO

from findsession.domain import (
    MetaEvent,
    MetaKind,
    Resume,
    Session,
)
from findsession.sources.base import Skip, Source, SourceFile, named_results, texts_by_line
from findsession.sources.cursor import Cursor, Reading, Record
from findsession.sources.json_doc import side_object
from findsession.sources.jsonl import (
    clean_text,
    every_record,
    read_appended,
    stripped,
    unknown_kinds,
)
from findsession.sources.kimi_records import Context, line_records
from findsession.sources.registry import SourceKind
from findsession.sources.resuming import option, resume_in_cwd
from findsession.sources.walking import walk

KIND = SourceKind.KIMI
WIRE = "wire.jsonl"
#: What a subagent's id may be to be looked up as a folder (Kimi makes `a` and 8 hex
#: digits): a record's value never becomes a path unchecked.
_AGENT_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


class KimiSource(Source):
    """Kimi CLI's `sessions/<work dir>/<session>/wire.jsonl`, and its subagents'."""

    kind = KIND
    #: 2: the turn Kimi begins itself to ask a subagent for a longer answer is its text,
    #: not a prompt.
    reads = 2

    def discover(self, root: Path, skip: Skip) -> Iterator[Path]:
        """Every `wire.jsonl` under `root` (the sessions folder, one session, or a copy)."""
        if root.is_file():
            if root.name == WIRE:
                yield root
            return
        for folder, _dirs, names in walk(root, skip):
            if WIRE in names:
                yield folder / WIRE

    def describe(self, path: Path) -> SourceFile:
        folder = path.parent
        if folder.parent.name == "subagents":
            parent = folder.parent.parent.name
            meta = side_object(folder / "meta.json")
            return SourceFile(
                path=path,
                source=KIND,
                session_id=f"{parent}:{folder.name}",
                is_subagent=True,
                parent_id=parent,
                agent_type=stripped(meta.get("subagent_type")),
                agent_description=stripped(meta.get("description")),
            )
        return SourceFile(path=path, source=KIND, session_id=folder.name)

    def stamp_paths(self, path: Path) -> list[str]:
        """A session's `state.json`, where a new title lands without a new event."""
        return [str(path.with_name("state.json"))]

    def read(self, sf: SourceFile, fh: IO[bytes], cursor: Cursor | None) -> Reading:
        ctx = _context(sf)
        reading = read_appended(fh, cursor, lambda line, obj: line_records(line, obj, ctx))
        if not reading.fresh:
            reading.records = named_results(reading.records, lambda: _all_lines(sf))
        reading.problems += unknown_kinds(ctx.unknown, "unknown event")
        if not sf.is_subagent and not reading.binary:
            reading.records += _title(sf.path)
        return reading

    def read_back(self, path: Path, lines: set[int]) -> dict[tuple[int, int], str]:
        """Each wanted message as the log holds it now, numbered as `read` did."""
        return texts_by_line(_all_lines(self.describe(path)), lines)

    def resume(self, session: Session) -> Resume:
        """`kimi --session <id>`, Kimi CLI's own way back into a session by its id, in
        the directory the session worked in (Kimi files sessions by directory)."""
        return resume_in_cwd(session, "kimi", *option("--session", session.id))

    def title_line(self, sf: SourceFile, title: str) -> bytes | None:
        """None: Kimi CLI keeps a title in `state.json`, not in a line of the log."""
        return None


def _context(sf: SourceFile) -> Context:
    """The session's folder and which of its subagents keep a log of their own."""
    session_dir = sf.path.parent.parent.parent if sf.is_subagent else sf.path.parent
    subagents = session_dir / "subagents"
    return Context(
        cwd=work_dir(session_dir.parent),
        has_own_log=lambda agent: (
            bool(_AGENT_ID.fullmatch(agent)) and (subagents / agent / WIRE).is_file()
        ),
    )


def work_dir(folder: Path) -> str | None:
    """The directory a work-dir folder stands for, from `kimi.json` beside `sessions/`."""
    listing = folder.parent.parent / "kimi.json"
    try:
        st = os.stat(listing)
    except OSError:
        return None
    return _work_dirs(str(listing), st.st_size, st.st_mtime_ns).get(folder.name)


@lru_cache(maxsize=4)
def _work_dirs(path: str, size: int, mtime_ns: int) -> dict[str, str]:
    """Each work-dir folder's name and its directory, read once per version of the file."""
    found: dict[str, str] = {}
    entries = side_object(Path(path)).get("work_dirs")
    for entry in entries if isinstance(entries, list) else []:
        if not isinstance(entry, dict) or not isinstance(entry.get("path"), str):
            continue
        where = entry["path"]
        digest = hashlib.md5(where.encode("utf-8", "surrogatepass")).hexdigest()
        kaos = entry.get("kaos") if isinstance(entry.get("kaos"), str) else "local"
        found[digest if kaos == "local" else f"{kaos}_{digest}"] = clean_text(where)
    return found


def _title(path: Path) -> list[Record]:
    state = side_object(path.with_name("state.json"))
    title = stripped(state.get("custom_title"))
    if not title:
        return []
    kind = MetaKind.AI_TITLE if state.get("title_generated") is True else MetaKind.CUSTOM_TITLE
    return [MetaEvent(kind, title, 0)]


def _all_lines(sf: SourceFile) -> list[Record]:
    ctx = _context(sf)
    return every_record(str(sf.path), lambda line, obj: line_records(line, obj, ctx))
