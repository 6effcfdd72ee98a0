"""Goose's `sessions.db` read as a file of sibling sessions, each read again whole when
it changed.

A session's change token is its row id, its message count and last message row id, and
a digest of its own row (name, folder, type, parent): Goose appends messages, renames a
session once it has a few, and may replace a whole conversation (it deletes the
session's messages and inserts them again, with new row ids), and each of those moves
the token. The row id is in it because a message's line number is built from it
(`foreign_db.line_of(row id, place)`): should it ever change, the session's lines are
numbered again.

A session of type `sub_agent` (or any with a `parent_session_id`) is linked to the
session that started it; scheduled, hidden (ACP) and other sessions are indexed as
sessions of their own. The title is the session's `name` unless it is one of Goose's
placeholders.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from findsession.domain import Message, MetaEvent, MetaKind, Problem
from findsession.sources import foreign_db, goose_db
from findsession.sources.cursor import Cursor, Reading, Record
from findsession.sources.goose_records import Blocks, iso_seconds, message_records, visible
from findsession.sources.jsonl import clean_text, cut_point

#: Names Goose gives a session before it has one of its own.
PLACEHOLDER_NAMES = frozenset({"CLI Session", "ACP Session", "New Chat", ""})


def read_store(path: Path, cursor: Cursor | None) -> Reading:
    """The sessions whose token moved since `cursor`, each whole; nothing, cheaply, when
    none did. Raises `OSError` when the database cannot be read now."""
    return foreign_db.read_changed(path, os.stat(path).st_size, cursor, _survey)


def _survey(conn: goose_db.Conn) -> foreign_db.Survey | Problem:
    """The sessions of a `sessions.db`, by id, each read with its messages' rows."""
    why = goose_db.missing_tables(conn)
    if why is not None:
        return Problem(0, "not a Goose session store", why)
    rows = goose_db.sessions(conn)
    problems: list[Problem] = []
    tally = foreign_db.Tally()

    def records(todo: set[str]) -> list[Record]:
        read: list[Record] = []
        for row in rows:
            if row.key in todo:
                read.extend(_session(conn, row, problems, tally))
        return read

    tokens = {row.key: _token(row) for row in rows}
    return foreign_db.Survey(tokens, {row.key: row.rank for row in rows}, records, problems, tally)


def read_back_store(path: Path, lines: set[int]) -> dict[tuple[int, int], str]:
    """Each wanted message's text as the store holds it now, numbered as `read` did."""
    wanted: dict[int, set[int]] = {}
    for line in lines:
        rank, position = foreign_db.position_of(line)
        wanted.setdefault(rank, set()).add(position)
    texts: dict[tuple[int, int], str] = {}
    with foreign_db.reading(path) as conn:
        if goose_db.missing_tables(conn) is not None:
            return texts
        rows = {row.rank: row for row in goose_db.sessions(conn) if row.rank in wanted}
        for rank, row in rows.items():
            parts: dict[int, int] = {}
            for rec in _session(conn, row, [], foreign_db.Tally()):
                if isinstance(rec, Message) and foreign_db.position_of(rec.line)[1] in wanted[rank]:
                    part = parts.get(rec.line, 0)
                    parts[rec.line] = part + 1
                    texts[(rec.line, part)] = rec.text
    return texts


def _token(row: goose_db.SessionRow) -> str:
    own = "\x1f".join(
        str(v) for v in (row.name, row.user_set_name, row.working_dir, row.session_type, row.parent)
    )
    return f"{row.rank}:{row.messages}:{row.last_message}:{foreign_db.text_digest(own)}"


def _session(
    conn: goose_db.Conn, row: goose_db.SessionRow, problems: list[Problem], tally: foreign_db.Tally
) -> list[Record]:
    """One session whole: its messages, then its title and parent at its first line."""
    blocks = Blocks()
    cwd = clean_text(row.working_dir) if row.working_dir else None
    records: list[Record] = []
    for msg in goose_db.messages(conn, row.key):
        line = foreign_db.line_of(row.rank, msg.position)
        tally.rows += 1
        tally.bytes += len(msg.content_json or "")
        content = _json(msg.content_json, line, "content_json", problems)
        metadata = _json(msg.metadata_json, line, "metadata_json", problems)
        if content is None or not visible(metadata):
            continue
        records.extend(
            message_records(
                msg.role,
                content,
                blocks,
                line=line,
                timestamp=iso_seconds(msg.created),
                cwd=cwd,
                session_key=row.key,
                uuid=msg.message_id,
            )
        )
    problems.extend(blocks.problems())
    head = foreign_db.line_of(row.rank, 0)
    name = (row.name or "").strip()
    if name and not (name in PLACEHOLDER_NAMES and not row.user_set_name):
        kind = MetaKind.CUSTOM_TITLE if row.user_set_name else MetaKind.AI_TITLE
        records.append(MetaEvent(kind, clean_text(name), head, session_key=row.key))
    if row.parent and row.parent != row.key:
        at = foreign_db.parent_line(row.rank)
        records.append(MetaEvent(MetaKind.PARENT, row.parent, at, session_key=row.key))
    return records


def _json(value: str | None, line: int, column: str, problems: list[Problem]) -> Any:
    """A JSON column's value; None (and a problem naming the row) when it does not parse."""
    if value is None:
        return None
    try:
        return json.loads(value)
    except (ValueError, RecursionError):
        shown = value[: cut_point(value, 80)]
        problems.append(Problem(line, "malformed JSON", f"{column}: {shown}"))
        return None
