"""Records as read from transcripts: messages and session meta, by (file, line, part)."""

from __future__ import annotations

import json
from collections.abc import Iterable

from findsession.domain import Message, MetaEvent, MetaKind
from findsession.storage.rows import MESSAGE_COLUMNS, message
from findsession.storage.sqlite.connection import Connection


class RecordsMixin(Connection):
    """Records as read from transcripts."""

    def uuid_owners(self, uuids: Iterable[str]) -> dict[str, tuple[str, int]]:
        """For already indexed message uuids, the `(file, line)` that holds each."""
        found: dict[str, tuple[str, int]] = {}
        batch = list(uuids)
        for start in range(0, len(batch), 500):
            chunk = batch[start : start + 500]
            marks = ",".join("?" * len(chunk))
            for uuid, path, line in self.db.execute(
                f"SELECT uuid, file_path, min(line) FROM messages WHERE uuid IN ({marks})"
                " GROUP BY uuid",
                chunk,
            ):
                found[uuid] = (path, line)
        return found

    def add_records(
        self, file_path: str, rows: Iterable[tuple[str, int, Message | MetaEvent]]
    ) -> None:
        """Store `(session_id, part, record)` rows; a line read twice replaces itself."""
        for session_id, part, rec in rows:
            if isinstance(rec, MetaEvent):
                self.db.execute(
                    "INSERT OR REPLACE INTO session_meta (session_id, file_path, line, kind, value,"
                    " leaf_uuid) VALUES (?,?,?,?,?,?)",
                    (session_id, file_path, rec.line, rec.kind.value, rec.value, rec.leaf_uuid),
                )
                continue
            self.db.execute(
                "INSERT OR REPLACE INTO messages (session_id, file_path, line, part, uuid,"
                " parent_uuid, message_id, kind, text, ts, tool_name, tool_id, files, is_error,"
                " cwd, git_branch, version, heading) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (
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
                    int(rec.is_error),
                    rec.cwd,
                    rec.git_branch,
                    rec.version,
                    rec.heading,
                ),
            )

    def session_messages(self, session_id: str) -> list[Message]:
        """The session's messages in file order (a subagent's own file comes first)."""
        rows = self.db.execute(
            f"SELECT {MESSAGE_COLUMNS} FROM messages WHERE session_id = ? ORDER BY line, part",
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
        rows = self.db.execute(
            f"SELECT {MESSAGE_COLUMNS}, line, part, id FROM messages WHERE session_id = ?"
            " AND (line, part, id) > (?, ?, ?) ORDER BY line, part, id LIMIT ?",
            (session_id, line, part, row, limit),
        ).fetchall()
        following = (rows[-1][-3], rows[-1][-2], rows[-1][-1]) if len(rows) == limit else None
        return [message(r[:-3]) for r in rows], following

    def message_sources(self, session_id: str) -> list[tuple[str, int, int]]:
        """(file, line, part) of each of the session's messages, in `session_messages` order."""
        return self.query(
            "SELECT file_path, line, part FROM messages WHERE session_id = ? ORDER BY line, part",
            (session_id,),
        )

    def session_meta(self, session_id: str) -> list[MetaEvent]:
        rows = self.db.execute(
            "SELECT kind, value, line, leaf_uuid FROM session_meta WHERE session_id = ?"
            " ORDER BY file_path, line",
            (session_id,),
        )
        return [MetaEvent(MetaKind(r[0]), r[1], r[2], leaf_uuid=r[3]) for r in rows]
