"""Records as read from transcripts: messages and session meta, by (file, line, part)."""

from __future__ import annotations

import json
from collections.abc import Iterable

from findsession.domain import Message, MessageKind, MetaEvent, MetaKind
from findsession.storage.postgresql.connection import Connection
from findsession.storage.rows import MESSAGE_COLUMNS, message

_MESSAGE_COLUMNS = (
    "session_id, file_path, line, part, uuid, parent_uuid, message_id, kind, text, ts,"
    " tool_name, tool_id, files, is_error, cwd, git_branch, version, heading"
)
_UPDATE = ", ".join(
    f"{c} = excluded.{c}"
    for c in _MESSAGE_COLUMNS.replace(" ", "").split(",")
    if c not in ("file_path", "line", "part")
)


class RecordsMixin(Connection):
    """Records as read from transcripts."""

    def uuid_owners(self, uuids: Iterable[str]) -> dict[str, tuple[str, int]]:
        """For already indexed message uuids, the `(file, line)` that holds each."""
        rows = self.query(
            "SELECT DISTINCT ON (uuid) uuid, file_path, line FROM messages"
            " WHERE uuid = ANY(%s) ORDER BY uuid, line",
            (list(uuids),),
        )
        return {uuid: (path, line) for uuid, path, line in rows}

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
                continue
            messages.append(
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
                    bool(rec.is_error),
                    rec.cwd,
                    rec.git_branch,
                    rec.version,
                    rec.heading,
                )
            )
        self.many(
            "INSERT INTO session_meta (session_id, file_path, line, kind, value, leaf_uuid)"
            " VALUES (%s, %s, %s, %s, %s, %s)"
            " ON CONFLICT (sealed(ARRAY[owner, file_path, line::text])) DO UPDATE SET"
            " session_id = excluded.session_id, kind = excluded.kind, value = excluded.value,"
            " leaf_uuid = excluded.leaf_uuid",
            meta,
        )
        marks = ", ".join(["%s"] * 18)
        self.many(
            f"INSERT INTO messages ({_MESSAGE_COLUMNS}) VALUES ({marks})"
            " ON CONFLICT (sealed(ARRAY[owner, file_path, line::text, part::text]))"
            f" DO UPDATE SET {_UPDATE}",
            messages,
        )

    def session_messages(self, session_id: str) -> list[Message]:
        """The session's messages in file order (a subagent's own file comes first)."""
        rows = self.query(
            f"SELECT {MESSAGE_COLUMNS} FROM messages WHERE session_id = %s ORDER BY line, part, id",
            (session_id,),
        )
        if not rows:
            return self._pushed_messages(session_id)
        return [message(r) for r in rows]

    def session_messages_page(
        self, session_id: str, after: tuple[int, int, int] | None, limit: int
    ) -> tuple[list[Message], tuple[int, int, int] | None]:
        """Up to `limit` of `session_messages`, those after the key `after` (None: from
        the first), and the key the next page starts after (None after the last)."""
        line, part, row = after or (-1, -1, -1)
        rows = self.query(
            f"SELECT {MESSAGE_COLUMNS}, line, part, id FROM messages WHERE session_id = %s"
            " AND (line, part, id) > (%s, %s, %s) ORDER BY line, part, id LIMIT %s",
            (session_id, line, part, row, limit),
        )
        if not rows and after is None:
            return self._pushed_messages(session_id), None
        following = (rows[-1][-3], rows[-1][-2], rows[-1][-1]) if len(rows) == limit else None
        return [message(r[:-3]) for r in rows], following

    def _pushed_messages(self, session_id: str) -> list[Message]:
        """A pushed session's turns, from its units: its messages stayed on its machine.
        Each turn is its prompt, the tool traffic as indexed (one call naming the tools,
        then their calls and outputs as one block: what `read --tools` shows a colleague
        of the edits and commands), and its reply."""
        messages = []
        for kind, ordinal, title, prompt, reply, tools, names, ts in self.query(
            "SELECT kind, ordinal, title, prompt, reply, tools, tool_names, ts FROM units"
            " WHERE session_id = %s AND kind IN ('turn', 'doc') ORDER BY ordinal",
            (session_id,),
        ):
            if kind == "doc":
                text = prompt or reply
                messages.append(
                    Message(MessageKind.SECTION, text, ordinal, timestamp=ts, heading=title or None)
                )
                continue
            messages.append(Message(MessageKind.PROMPT, prompt, ordinal, timestamp=ts))
            if tools:
                called = ", ".join(_names(names)) or "tools"
                messages.append(
                    Message(MessageKind.TOOL_CALL, "", ordinal, timestamp=ts, tool_name=called)
                )
                messages.append(Message(MessageKind.TOOL_OUTPUT, tools, ordinal, timestamp=ts))
            if reply:
                messages.append(Message(MessageKind.REPLY, reply, ordinal, timestamp=ts))
        return messages

    def message_sources(self, session_id: str) -> list[tuple[str, int, int]]:
        """(file, line, part) of each of the session's messages, in `session_messages` order."""
        return self.query(
            "SELECT file_path, line, part FROM messages WHERE session_id = %s"
            " ORDER BY line, part, id",
            (session_id,),
        )

    def session_meta(self, session_id: str) -> list[MetaEvent]:
        rows = self.query(
            "SELECT kind, value, line, leaf_uuid FROM session_meta WHERE session_id = %s"
            " ORDER BY file_path, line",
            (session_id,),
        )
        return [MetaEvent(MetaKind(r[0]), r[1], r[2], leaf_uuid=r[3]) for r in rows]


def _names(stored: str | None) -> list[str]:
    """A unit's tool names, stored as a JSON list."""
    try:
        names = json.loads(stored or "[]")
    except ValueError:
        return []
    return [str(n) for n in names] if isinstance(names, list) else []
