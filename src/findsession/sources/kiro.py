"""Kiro CLI: where its conversations are, and the `Source` that reads them.

Kiro CLI keeps every conversation in one SQLite database, `data.sqlite3` in its data
folder (`$XDG_DATA_HOME/kiro-cli`, default `~/.local/share/kiro-cli`; on macOS
`~/Library/Application Support/kiro-cli`), rewritten in place after every turn. A
conversation is indexed as `<file id>:<conversation id>`, read again whole when its row's
`updated_at` moved (`foreign_db`); a store of Kiro CLI up to 1.22 holds them in its
one-per-directory table instead (`kiro_db`). Its JSON-lines layout,
`~/.kiro/sessions/cli/<id>.jsonl` beside `<id>.json {session_id, cwd, title}`, is read on
from a byte offset like any transcript; a conversation the database also holds is taken
from the database alone. The Kiro IDE's own store (`kiro.kiroagent`) is not read.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import IO, Any

from findsession.domain import Message, MetaEvent, MetaKind, Problem, Resume, Session
from findsession.sources import foreign_db, kiro_db
from findsession.sources.base import (
    Skip,
    Source,
    SourceFile,
    named_results,
    store_id,
    texts_by_line,
)
from findsession.sources.cursor import Cursor, Reading, Record, in_store
from findsession.sources.epoch import iso_utc
from findsession.sources.jsonl import ReadStats, clean_text, iter_objects, read_appended
from findsession.sources.kiro_records import conversation_records, line_records
from findsession.sources.opening import open_regular
from findsession.sources.places.editors import kiro_data_folder
from findsession.sources.registry import SourceKind
from findsession.sources.resuming import option, resume_in_cwd
from findsession.sources.walking import top_files

KIND = SourceKind.KIRO
DB_NAME = "data.sqlite3"
_SIDECAR_BYTES = 1 << 20


def file_id(path: Path) -> str:
    """`kiro-` and a hash of the database's path: its sessions are `<file id>:<id>`."""
    return store_id("kiro", path)


class KiroSource(Source):
    """Kiro CLI's `data.sqlite3` and its `<id>.jsonl` sessions."""

    kind = KIND
    companions = foreign_db.COMPANIONS
    #: 2: a JSON-lines session's lines without a time take the sidecar's, and a
    #: prompt's injected context block is harness text, not the prompt.
    #: 3: a store with only the one-per-directory `conversations` table (Kiro CLI up to
    #: 1.22) is read; a compacted or cleared conversation's summary and the exchanges
    #: only its transcript keeps are read; a history of `[user, assistant]` pairs is.
    reads = 3

    def discover(self, root: Path, skip: Skip) -> Iterator[Path]:
        """`data.sqlite3` and every `*.jsonl` at `root`'s top (or `root` itself)."""
        return top_files(root, skip, lambda name: name == DB_NAME or name.endswith(".jsonl"))

    def describe(self, path: Path) -> SourceFile:
        if path.name.endswith(".jsonl"):
            sid = _str(_sidecar(path).get("session_id")) or path.name[: -len(".jsonl")]
            return SourceFile(path=path, source=KIND, session_id=sid)
        return SourceFile(path=path, source=KIND, session_id=file_id(path), sibling_sessions=True)

    def read(self, sf: SourceFile, fh: IO[bytes], cursor: Cursor | None) -> Reading:
        if not sf.sibling_sessions:
            return _read_lines(sf, fh, cursor)
        return read_store(sf, fh, cursor)

    def read_back(self, path: Path, lines: set[int]) -> dict[tuple[int, int], str]:
        """Each wanted message as the file holds it now, numbered as `read` did."""
        if path.name.endswith(".jsonl"):
            return texts_by_line(_all_lines(path), lines)
        return read_store_back(path, lines)

    def resume(self, session: Session) -> Resume:
        """`kiro-cli chat --resume-id <id>`, Kiro CLI's documented way back into one
        conversation, in the directory it ran in (its `--resume` alone takes the
        directory's latest)."""
        conversation = foreign_db.agent_id(session.id)
        return resume_in_cwd(session, "kiro-cli", "chat", *option("--resume-id", conversation))

    def title_line(self, sf: SourceFile, title: str) -> bytes | None:
        """None: Kiro keeps a title in its sidecar or its database, never in a line."""
        return None


def read_store(sf: SourceFile, fh: IO[bytes], cursor: Cursor | None) -> Reading:
    """A `data.sqlite3` (Kiro CLI's or Amazon Q Developer CLI's): each conversation whose
    row moved, read again whole."""
    return foreign_db.read_changed(sf.path, os.fstat(fh.fileno()).st_size, cursor, _survey)


def read_store_back(path: Path, lines: set[int]) -> dict[tuple[int, int], str]:
    """Each wanted message of a `data.sqlite3` as it holds it now, numbered as
    `read_store` did."""
    return foreign_db.read_back(path, lines, _survey)


def _survey(conn: foreign_db.Conn) -> foreign_db.Survey | Problem:
    """The conversations of a `data.sqlite3`, by id, each read as its one row's value."""
    why = kiro_db.missing_tables(conn)
    if why is not None:
        return Problem(0, "unknown database", why)
    found = kiro_db.conversations(conn)
    problems: list[Problem] = []
    tally = foreign_db.Tally()

    def records(todo: set[str]) -> list[Record]:
        read: list[Record] = []
        for conv in found:
            if conv.id in todo:
                text = kiro_db.value(conn, conv.rank)
                tally.rows += 1
                tally.bytes += len(text) if isinstance(text, str | bytes) else 0
                read += conversation_records(conv.rank, conv.id, text, conv.key, problems)
        return read

    tokens = {c.id: c.token for c in found}
    return foreign_db.Survey(tokens, {c.id: c.rank for c in found}, records, problems, tally)


def _read_lines(sf: SourceFile, fh: IO[bytes], cursor: Cursor | None) -> Reading:
    """A JSON-lines session read on from the cursor, unless the database holds it."""
    if _in_database(sf.path, sf.session_id):
        size = os.fstat(fh.fileno()).st_size
        return Reading([], in_store(size), fresh=True)
    meta = _sidecar(sf.path)
    cwd = _str(meta.get("cwd")) or None
    calls: dict[str, str] = {}
    unknown: list[str] = []
    reading = read_appended(
        fh, cursor, lambda line, obj: line_records(line, obj, cwd, calls, unknown)
    )
    if not reading.fresh:
        reading.records = named_results(reading.records, lambda: _all_lines(sf.path))
    reading.records = _sidecar_times(reading.records, meta)
    title = _str(meta.get("title")).strip()
    if title and not reading.binary:
        reading.records.append(MetaEvent(MetaKind.AI_TITLE, title, 0))
    if unknown:
        kinds = ", ".join(sorted(set(unknown)))
        reading.problems.append(Problem(0, "unknown line kind", f"{kinds} ({len(unknown)} lines)"))
    return reading


def _sidecar_times(records: list[Record], meta: dict[str, Any]) -> list[Record]:
    """Messages whose line has no time (Kiro CLI of 2026 writes none) take the
    sidecar's: `created_at` for the first line, `updated_at` for the lines after it."""
    created, updated = iso_utc(meta.get("created_at")), iso_utc(meta.get("updated_at"))
    return [
        replace(r, timestamp=created if r.line <= 1 else updated or created)
        if isinstance(r, Message) and r.timestamp is None
        else r
        for r in records
    ]


def _all_lines(path: Path) -> list[Record]:
    meta = _sidecar(path)
    cwd = _str(meta.get("cwd")) or None
    calls: dict[str, str] = {}
    records: list[Record] = []
    with open_regular(str(path)) as fh:
        for number, obj in iter_objects(fh, 0, 0, ReadStats(0, 0)):
            records += line_records(number, obj, cwd, calls, [])
    return records


def _in_database(path: Path, conversation: str) -> bool:
    """Whether a Kiro database (beside the file, or in Kiro's data folder) holds this
    conversation: the database is the newer layout, and wins."""
    for db in dict.fromkeys((path.parent / DB_NAME, kiro_data_folder() / DB_NAME)):
        if not db.is_file():
            continue
        try:
            with foreign_db.reading(db) as conn:
                if kiro_db.missing_tables(conn) is None and kiro_db.holds(conn, conversation):
                    return True
        except OSError:
            continue  # a locked database: the lines stand until it can be asked
    return False


def _sidecar(path: Path) -> dict[str, Any]:
    """`<id>.json` beside `<id>.jsonl`, or empty."""
    try:
        with open_regular(str(path)[: -len(".jsonl")] + ".json") as fh:
            doc = json.loads(fh.read(_SIDECAR_BYTES).decode("utf-8", "replace"))
    except (OSError, ValueError, RecursionError):
        return {}
    return doc if isinstance(doc, dict) else {}


def _str(value: Any) -> str:
    return clean_text(value) if isinstance(value, str) else ""
