"""A pushed session read back: its messages stayed on its machine, its units are here
(findsession.storage.sql.records holds the statements both backends share)."""

from __future__ import annotations

from findsession.domain import Message, MessageKind
from findsession.storage.postgresql.connection import Connection
from findsession.storage.rows import json_list
from findsession.storage.sql import records


class RecordsMixin(records.RecordsMixin, Connection):
    """Records as read from transcripts, or a pushed session's turns."""

    def session_messages(self, session_id: str) -> list[Message]:
        return super().session_messages(session_id) or self._pushed_messages(session_id)

    def session_messages_page(
        self, session_id: str, after: tuple[int, int, int] | None, limit: int
    ) -> tuple[list[Message], tuple[int, int, int] | None]:
        page, following = super().session_messages_page(session_id, after, limit)
        if not page and after is None:  # pushed: one page of its turns
            return self._pushed_messages(session_id), None
        return page, following

    def _pushed_messages(self, session_id: str) -> list[Message]:
        """A pushed session's turns, from its units. Each turn is its prompt, the tool
        traffic as indexed (one call naming the tools, then their calls and outputs as
        one block: what `read --tools` shows a colleague of the edits and commands), and
        its reply."""
        messages = []
        for kind, ordinal, title, prompt, reply, tools, names, ts in self.query(
            "SELECT kind, ordinal, title, prompt, reply, tools, tool_names, ts FROM units"
            " WHERE session_id = ? AND kind IN ('turn', 'doc') ORDER BY ordinal",
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
                called = ", ".join(str(n) for n in json_list(names)) or "tools"
                messages.append(
                    Message(MessageKind.TOOL_CALL, "", ordinal, timestamp=ts, tool_name=called)
                )
                messages.append(Message(MessageKind.TOOL_OUTPUT, tools, ordinal, timestamp=ts))
            if reply:
                messages.append(Message(MessageKind.REPLY, reply, ordinal, timestamp=ts))
        return messages
