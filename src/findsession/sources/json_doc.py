"""A JSON document its agent rewrites in place: parsed whole, or not at all.

Cline, Roo Code and Amp keep a session as one JSON document (a task's `ui_messages.json`,
an Amp thread) and write it again, whole, after every message, with a plain write: a
reader can catch it half written. Unlike a Gemini CLI chat, whose messages stand on their
own, these documents are read as a whole (a tool call finds its result, a task its
sidecar), so a file that does not parse gives nothing: the reading keeps the cursor the
index already holds, the records read from the last whole version stay, and the next run
reads the file again once its content changed (the finished write). Nothing from the
broken bytes is indexed.

A document whose agent drops what it compacted (Nanocoder writes its session again with
a summary in place of the messages it summarised) is read whole too, but its records
need not replace what the index holds: the source's `Follow` says where they carry on
(`Carried`), from the document and what the source kept of the last reading in the
cursor's state, and the index keeps the lines before.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import IO, Any

from findsession.domain import Problem
from findsession.sources.cursor import HEAD, Cursor, Reading, Record, State, looks_binary
from findsession.sources.places.common import side_object as side_object

#: Turns a whole parsed document into records; problems found on the way go to the list.
ParseDocument = Callable[[Any, list[Problem]], list[Record]]


@dataclass(frozen=True, slots=True)
class Carried:
    """Where a document's records go, against the lines the index holds of it: the
    lines up to `kept` stay as they were read; the document's records are numbered
    `shift` past the numbers the parser gave them (a record at line 0, a session's
    title, stays there), and those that land at or below `kept` are not read again.
    `kept` 0 reads the document as new. `state` is the cursor's for the next read.
    `again` are lines (numbered as shifted) of messages the index holds at an earlier
    line: a message the agent carries into each compaction's document (Code Puppy's
    first prompt), not read again."""

    kept: int = 0
    shift: int = 0
    state: State | None = None
    again: frozenset[int] = frozenset()


#: Where a parsed document carries on, given the state the last reading kept (None on
#: a first read).
Follow = Callable[[Any, State | None], Carried]

_PREVIEW = 80


def read_document(
    fh: IO[bytes], cursor: Cursor | None, parse: ParseDocument, follow: Follow | None = None
) -> Reading:
    """The records of the document, unless its content hash is the cursor's, or it does
    not parse (then nothing changes in the index, and a problem says why); with
    `follow`, placed where it says they carry on."""
    fh.seek(0)
    data = fh.read()
    digest = "blake2b:" + hashlib.blake2b(data, digest_size=16).hexdigest()
    now = Cursor(offset=len(data), lines=0, digest=digest)
    if cursor is not None and cursor.digest == digest:
        return Reading([], replace(now, state=cursor.state), fresh=False, unchanged=True)
    doc, problem = load(data)
    if problem is not None:
        if looks_binary(data[:HEAD]):
            return Reading([], now, fresh=True, binary="binary: not a JSON document")
        # The old cursor (or none): its digest no longer matches, so the next run that
        # sees the file changed reads it again from the start.
        return Reading([], cursor or Cursor(), fresh=False, problems=[problem])
    problems: list[Problem] = []
    records = parse(doc, problems)
    if follow is None:
        return Reading(records, now, fresh=True, bytes_read=len(data), problems=problems)
    carried = follow(doc, cursor.state if cursor is not None else None)
    return Reading(
        [
            r
            for r in shifted(records, carried.shift)
            if not r.line or (r.line > carried.kept and r.line not in carried.again)
        ],
        replace(now, state=carried.state),
        fresh=carried.kept == 0,
        bytes_read=len(data),
        problems=[replace(p, line=p.line + carried.shift) for p in problems],
        kept=carried.kept or None,
    )


def shifted(records: list[Record], shift: int) -> list[Record]:
    """The records numbered `shift` past their lines (one at line 0 stays there)."""
    return [replace(r, line=r.line + shift) if r.line else r for r in records]


def load(data: bytes) -> tuple[Any, Problem | None]:
    """The parsed document, or None and the problem: `truncated JSON` when it stops
    before its closing bracket (the agent is still writing it), else `malformed JSON`."""
    text = data.decode("utf-8", "replace")
    try:
        return json.loads(text), None
    except (ValueError, RecursionError) as exc:
        pos = getattr(exc, "pos", 0) or 0
        closed = text.rstrip().endswith(("}", "]"))
        reason = "malformed JSON" if closed else "truncated JSON"
        detail = f"{reason}: read again when it changes: " + text[pos : pos + _PREVIEW]
        return None, Problem(getattr(exc, "lineno", 1), reason, detail.strip())


def load_or_none(data: bytes) -> Any:
    """The parsed document, or None when it does not parse (for `read --raw`)."""
    return load(data)[0]
