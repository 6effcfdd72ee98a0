"""Claude.ai's data export: the zip "Export data" (Settings, Privacy) mails a link to,
or the folder it unpacks to (`data-<date>/`), read as sessions.

The zip holds `conversations.json` (every conversation, one JSON array), `users.json`
(the account) and `projects.json` (each project's documents and instructions). Only
`conversations.json` is read (`claude_ai_records` says what a conversation means); a
conversation's id is its `uuid`, the same in every export of the account.
"""

from __future__ import annotations

from findsession.domain import Problem
from findsession.sources.chat_export import (
    ChatExportSource,
    Conversation,
    ConversationsArray,
    array_item,
)
from findsession.sources.claude_ai_records import conversation_records
from findsession.sources.json_array import Item
from findsession.sources.registry import SourceKind


def _conversation(item: Item) -> Conversation | Problem:
    """An item with a `uuid` and `chat_messages`; anything else is a problem."""
    return array_item(item, ("uuid",), "chat_messages", "Claude.ai", ("mapping", "ChatGPT"))


class ClaudeAiSource(ChatExportSource):
    """Claude.ai's exports, from the roots the person names."""

    kind = SourceKind.CLAUDE_AI
    format = ConversationsArray(
        "Claude.ai", _conversation, conversation_records, "https://claude.ai/chat/{key}"
    )
