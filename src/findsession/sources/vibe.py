"""Mistral Vibe sessions: where they are, which layout each is in, and the `Source`.

Vibe keeps its sessions under `$VIBE_HOME/logs/session/` (else `~/.vibe/logs/session/`),
before Vibe 3 each named `session_<YYYYMMDD>_<HHMMSS>_<first 8 of its id>`, in one of
three layouts:

- Vibe 1.x: one JSON document, `session_….json`, `{metadata, messages}`, written again
  whole as the session goes on: read whole when its content changed (`json_doc`; a
  document caught half written gives nothing until the write is finished);
- Vibe 2.x: a folder, `session_…/`, holding `messages.jsonl` (one message a line,
  appended: read on from the byte offset) and `meta.json` (the session's id, folder,
  start and title: the same fields as a 1.x document's `metadata`). Its `meta.json` is
  part of the file's stamp, so a title Vibe writes later is read. Both layouts' messages
  are read by `vibe_records`;
- Vibe 3: a store per session, `unified/<id>/` (`vibe_store`), known by its `CURRENT`
  file, which is what is indexed; its journal and `meta.json` are part of the stamp. A
  subagent's store (`unified/child-…`) is a session under the one that started it.

A resume in Vibe 2.2 writes a new folder that begins with a copy of the conversation
so far, marked nowhere: every 2.x folder is read after the other files of a run, in the
order its session began, and each message carries what it is known by in a copy
(`message_uuid`), so a copied line stays the one of the folder it was first written in.
A Vibe 3 `/branch` store's copied entries are left out (`inherited`).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import IO, Any

from findsession.domain import Message, MetaEvent, MetaKind, Problem, Resume, Session
from findsession.sources.base import Skip, Source, SourceFile, texts_by_line
from findsession.sources.cursor import Cursor, Reading, Record
from findsession.sources.epoch import iso_seconds
from findsession.sources.json_doc import load_or_none, read_document
from findsession.sources.jsonl import clean_text, read_appended, texts_at
from findsession.sources.opening import open_regular
from findsession.sources.registry import SourceKind
from findsession.sources.resuming import option, resume_in_cwd
from findsession.sources.vibe_records import (
    Context,
    entry_records,
    inherited,
    message_records,
    message_uuid,
)
from findsession.sources.vibe_store import StoreError, identity, read_store
from findsession.sources.walking import walk

KIND = SourceKind.VIBE
MESSAGES, META, CURRENT = "messages.jsonl", "meta.json", "CURRENT"
#: A store's own folders: nothing in them is a session's file.
_STORE_PARTS = frozenset(("generations", "chunks", "journal", "quarantine"))
_NAME = re.compile(r"\Asession_\d{8}_\d{6}_[0-9A-Za-z-]+(?:\.json)?\Z")
#: A 1.x document's metadata comes first; its id is read from the head alone.
_HEAD_BYTES = 64 * 1024
_ID = re.compile(rb'"session_id"\s*:\s*"([^"\\]{1,200})"')
_META_BYTES = 4 * 1024 * 1024


class VibeSource(Source):
    """Mistral Vibe's `~/.vibe/logs/session/`: 1.x documents and 2.x folders."""

    kind = KIND
    #: 2: a resume's copy of a 2.x session (Vibe 2.2) and a `/branch` store's copied
    #: entries are the session's they came from, not the copy's.
    reads = 2

    def discover(self, root: Path, skip: Skip) -> Iterator[Path]:
        """Every 1.x `session_*.json`, 2.x `session_*/messages.jsonl` and 3.x
        `unified/<id>/CURRENT` under `root` (the sessions folder, a copy of it, a session's
        folder, or one file)."""
        if root.is_file():
            if _is_session_file(root):
                yield root
            return
        for folder, dirs, files in walk(root, skip):
            if CURRENT in files:  # a Vibe 3 store: its own folders hold no session
                dirs[:] = [d for d in dirs if d not in _STORE_PARTS]
            for name in files:
                path = folder / name
                if _is_session_file(path):
                    yield path

    def describe(self, path: Path) -> SourceFile:
        if path.name == CURRENT:
            sid, kind, parent = identity(path)
            sub = kind == "subagent" and parent is not None
            return SourceFile(path=path, source=KIND, session_id=sid, is_subagent=sub,
                              parent_id=parent if sub else None)  # fmt: skip
        if path.name != MESSAGES:
            sid = _document_id(path) or _session_name(path)
            return SourceFile(path=path, source=KIND, session_id=sid)
        meta = _meta(path)
        sid = _str(meta.get("session_id")) or _session_name(path)
        # Vibe 2 moves each 1.x document into a folder of the same name (its
        # `session_migration`): the folder's session is the document's, read anew.
        document = path.parent.parent / f"{path.parent.name}.json"
        # Any folder may be a resume's copy of an earlier one (Vibe 2.2).
        began = iso_seconds(meta.get("start_time"))
        return SourceFile(path=path, source=KIND, session_id=sid, supersedes=(document,),
                          copies_history=True, began=began)  # fmt: skip

    def stamp_paths(self, path: Path) -> list[str]:
        """A 2.x folder's `meta.json` (the title Vibe writes there later changes nothing
        in `messages.jsonl`); a 3.x store's too, and its journal's segments, which grow
        between the generations that `CURRENT` names."""
        if path.name == MESSAGES:
            return [str(path.with_name(META))]
        if path.name != CURRENT:
            return []
        journal = path.with_name("journal")
        segments = sorted(journal.glob("*.jsonl")) if journal.is_dir() else []
        return [str(path.with_name(META)), *(str(p) for p in segments)]

    def read(self, sf: SourceFile, fh: IO[bytes], cursor: Cursor | None) -> Reading:
        if sf.path.name == CURRENT:
            return _read_store(sf.path, cursor)
        if sf.path.name != MESSAGES:
            return read_document(fh, cursor, document_records)
        meta = _meta(sf.path)
        ctx = _context(meta)
        calls: dict[str, str] = {}

        def parse(line: int, obj: Any) -> list[Record]:
            uuid = message_uuid(obj, calls)
            records = message_records(line, obj, ctx)
            return [replace(r, uuid=uuid) if isinstance(r, Message) else r for r in records]

        reading = read_appended(fh, cursor, parse)
        reading.records.extend(_title(meta))
        return reading

    def read_back(self, path: Path, lines: set[int]) -> dict[tuple[int, int], str]:
        """Each wanted message as the file holds it now, numbered as `read` did."""
        if path.name == CURRENT:
            return texts_by_line(store_records(read_store(path)), lines)
        with open_regular(str(path)) as fh:
            if path.name == MESSAGES:
                ctx = _context(_meta(path))
                return texts_at(fh, lines, lambda line, obj: message_records(line, obj, ctx))
            doc = load_or_none(fh.read())
        return texts_by_line(document_records(doc, []) if doc is not None else [], lines)

    def resume(self, session: Session) -> Resume:
        """`vibe --resume <id>` in the session's folder: Vibe finds a session by its id
        wherever it ran, and works in the folder it is started in. Vibe 3 imports a 2.x
        session when it resumes one, but no longer opens a 1.x document: the note says so."""
        old = bool(session.file_path) and not str(session.file_path).endswith(MESSAGES)
        note = "Vibe 3 no longer opens 1.x sessions: this resumes with Vibe 1.x or 2.x"
        return resume_in_cwd(
            session, "vibe", *option("--resume", session.id), note=note if old else None
        )

    def title_line(self, sf: SourceFile, title: str) -> bytes | None:
        """None: Vibe keeps a title in `meta.json` (or a 1.x document), which it writes
        again whole; a line appended to the messages would be read as a message."""
        return None


def document_records(doc: Any, problems: list[Problem]) -> list[Record]:
    """A 1.x session document's messages, numbered by place (from 1), its title last."""
    if not isinstance(doc, dict):
        problems.append(Problem(1, "not a JSON object", type(doc).__name__))
        return []
    meta = doc.get("metadata") if isinstance(doc.get("metadata"), dict) else {}
    messages = doc.get("messages") if isinstance(doc.get("messages"), list) else []
    ctx = _context(meta)
    records: list[Record] = []
    for number, msg in enumerate(messages, 1):
        records.extend(message_records(number, msg, ctx, problems))
    return records + _title(meta)


def store_records(store: Any) -> list[Record]:
    """A Vibe 3 store's entries, numbered by place (from 1), its title last."""
    records: list[Record] = []
    for number, entry in enumerate(store.entries, 1):
        if not inherited(entry, store.kind):
            records.extend(entry_records(number, entry, store.cwd))
    session = store.session
    manual = session.get("titleSource") == "manual"
    return records + _title({"title": session.get("title"),
                             "title_source": "manual" if manual else "auto"})  # fmt: skip


def _read_store(current: Path, cursor: Cursor | None) -> Reading:
    """A Vibe 3 store read whole, unless nothing it depends on changed; one caught
    while Vibe replaced a generation keeps what the index holds, and says so."""
    try:
        store = read_store(current)
    except (StoreError, OSError) as exc:
        problem = Problem(1, "store not readable now", f"{exc}: read again when it changes")
        return Reading([], cursor or Cursor(), fresh=False, problems=[problem])
    meta = _meta(current)
    titled = json.dumps(meta.get("title")).encode()
    digest = f"{store.digest}:{hashlib.blake2b(titled, digest_size=8).hexdigest()}"
    now = Cursor(offset=0, lines=len(store.entries), digest=digest)
    if cursor is not None and cursor.digest == digest:
        return Reading([], now, fresh=False, unchanged=True)
    if not store.session.get("title") and meta.get("title"):
        store.session = {**store.session, "title": meta.get("title"),
                         "titleSource": meta.get("title_source")}  # fmt: skip
    return Reading(store_records(store), now, fresh=True)


def _context(meta: dict[str, Any]) -> Context:
    env = meta.get("environment") if isinstance(meta.get("environment"), dict) else {}
    return Context(cwd=_str(env.get("working_directory")), started=_str(meta.get("start_time")))


def _title(meta: dict[str, Any]) -> list[Record]:
    title = (_str(meta.get("title")) or "").strip()
    if not title:
        return []
    kind = MetaKind.CUSTOM_TITLE if meta.get("title_source") == "manual" else MetaKind.AI_TITLE
    return [MetaEvent(kind, title, 0)]


def _meta(messages: Path) -> dict[str, Any]:
    """The `meta.json` beside a 2.x folder's messages; {} when it is missing or broken
    (Vibe writes it again whole: the next run reads it once it is whole)."""
    try:
        with open_regular(str(messages.with_name(META))) as fh:
            obj = json.loads(fh.read(_META_BYTES).decode("utf-8", "replace"))
    except (OSError, ValueError, RecursionError):
        return {}
    return obj if isinstance(obj, dict) else {}


def _document_id(path: Path) -> str | None:
    """A 1.x document's `metadata.session_id`, from its head."""
    if path.name == MESSAGES:
        return None
    try:
        with open_regular(str(path)) as fh:
            head = fh.read(_HEAD_BYTES)
    except OSError:
        return None
    match = _ID.search(head)
    return clean_text(match.group(1).decode("utf-8", "replace")) if match else None


def _session_name(path: Path) -> str:
    """The id a file's name holds when its content gives none: the session's name."""
    name = path.parent.name if path.name == MESSAGES else path.name
    return name.removesuffix(".json")


def _is_session_file(path: Path) -> bool:
    if path.name == CURRENT:
        return path.parent.parent.name == "unified"
    return _is_document(path) or _is_folder_log(path)


def _is_document(path: Path) -> bool:
    return path.name.endswith(".json") and bool(_NAME.match(path.name))


def _is_folder_log(path: Path) -> bool:
    return path.name == MESSAGES and bool(_NAME.match(path.parent.name))


def _str(value: Any) -> str | None:
    return clean_text(value) if isinstance(value, str) and value else None
