"""Records as read from transcripts: messages and session meta, by (file, line, part)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from findsession.domain import Message, MetaEvent, MetaKind
from findsession.storage.rows import MESSAGE_COLUMNS, message
from findsession.storage.sql.connection import SqlConnection
from findsession.storage.sql.tables import MESSAGES, SESSION_META, Table

#: A message row's columns as written, in the order of `_message_values`.
_WRITTEN = MESSAGES.names
_META = SESSION_META.names


def _updates(table: Table) -> str:
    """Every column but the key's taken from the row an upsert brought."""
    return ", ".join(f"{c} = excluded.{c}" for c in table.names if c not in table.key)


def _message_values(session_id: str, file_path: str, part: int, rec: Message) -> tuple[Any, ...]:
    return (
        session_id,
        file_path,
        rec.line,
        part,
        rec.uuid,
        rec.parent_uuid,
        rec.message_id,
        rec.kind.value,
        rec.text,
        rec.timestamp,
        rec.tool_name,
        rec.tool_id,
        json.dumps(list(rec.files)) if rec.files else None,
        bool(rec.is_error),
        rec.cwd,
        rec.git_branch,
        rec.version,
        rec.heading,
    )


class RecordsMixin(SqlConnection):
    """Records as read from transcripts."""

    def uuid_owners(self, uuids: Iterable[str], reading: str = "") -> dict[str, tuple[str, int]]:
        """For already indexed message uuids, the `(file, line)` that holds each (its
        first line, where several do). A file marked to be read again from the start,
        other than `reading`, holds none: what it gave goes when it is read, and the
        lines it shares may not be its own (a fork read before the session it copies)."""
        found: dict[str, tuple[str, int]] = {}
        for batch in self.batches(uuids):
            where, params = self.among("uuid", batch)
            for uuid, path, line in self.query(
                "SELECT uuid, file_path, line FROM (SELECT uuid, file_path, line, row_number()"
                f" OVER (PARTITION BY uuid ORDER BY line) AS n FROM messages WHERE {where}"
                " AND (file_path = ? OR file_path NOT IN"
                " (SELECT path FROM files WHERE status = 'stale'))) m WHERE n = 1",
                [*params, reading],
            ):
                found[uuid] = (path, line)
        return found

    def add_records(
        self, file_path: str, rows: Iterable[tuple[str, int, Message | MetaEvent]]
    ) -> None:
        """Store `(session_id, part, record)` rows; a line read twice replaces itself."""
        meta, messages = [], []
        for session_id, part, rec in rows:
            if isinstance(rec, MetaEvent):
                meta.append(
                    (session_id, file_path, rec.line, rec.kind.value, rec.value, rec.leaf_uuid)
                )
            else:
                messages.append(_message_values(session_id, file_path, part, rec))
        if meta:
            self.many(
                f"INSERT INTO session_meta ({', '.join(_META)}) VALUES ({', '.join('?' * 6)})"
                f" ON CONFLICT {self.key('session_meta')} DO UPDATE SET"
                f" {_updates(SESSION_META)}",
                meta,
            )
        if messages:
            self.many(
                f"INSERT INTO messages ({', '.join(_WRITTEN)})"
                f" VALUES ({', '.join('?' * len(_WRITTEN))})"
                f" ON CONFLICT {self.key('messages')} DO UPDATE SET"
                f" {_updates(MESSAGES)}",
                messages,
            )

    def session_messages(self, session_id: str) -> list[Message]:
        """The session's messages in file order (a subagent's own file comes first)."""
        rows = self.query(
            f"SELECT {MESSAGE_COLUMNS} FROM messages WHERE session_id = ? ORDER BY line, part, id",
            (session_id,),
        )
        return [message(r) for r in rows]

    def session_messages_page(
        self, session_id: str, after: tuple[int, int, int] | None, limit: int
    ) -> tuple[list[Message], tuple[int, int, int] | None]:
        """Up to `limit` of `session_messages`, those after the key `after` (None: from
        the first), and the key the next page starts after (None after the last): a
        session of any length is read a page at a time."""
        line, part, row = after or (-1, -1, -1)
        rows = self.query(
            f"SELECT {MESSAGE_COLUMNS}, line, part, id FROM messages WHERE session_id = ?"
            " AND (line, part, id) > (?, ?, ?) ORDER BY line, part, id LIMIT ?",
            (session_id, line, part, row, limit),
        )
        following = (rows[-1][-3], rows[-1][-2], rows[-1][-1]) if len(rows) == limit else None
        return [message(r[:-3]) for r in rows], following

    def message_sources(self, session_id: str) -> list[tuple[str, int, int]]:
        """(file, line, part) of each of the session's messages, in `session_messages` order."""
        return self.query(
            "SELECT file_path, line, part FROM messages WHERE session_id = ?"
            " ORDER BY line, part, id",
            (session_id,),
        )

    def session_meta(self, session_id: str) -> list[MetaEvent]:
        rows = self.query(
            "SELECT kind, value, line, leaf_uuid FROM session_meta WHERE session_id = ?"
            " ORDER BY file_path, line",
            (session_id,),
        )
        return [MetaEvent(MetaKind(r[0]), r[1], r[2], leaf_uuid=r[3]) for r in rows]
