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
    key_of,
    token,
)
from findsession.sources.claude_ai_records import conversation_records
from findsession.sources.json_array import Item
from findsession.sources.registry import SourceKind


def _conversation(item: Item) -> Conversation | Problem:
    doc = item.value
    key = key_of(doc.get("uuid")) if isinstance(doc, dict) else None
    if key is None or "chat_messages" not in doc:
        mapped = isinstance(doc, dict) and "mapping" in doc
        shape = "a ChatGPT conversation" if mapped else "not a Claude.ai conversation"
        return Problem(item.index + 1, shape, item.text[:80])
    return Conversation(key, token(item.text), doc, item.index)


class ClaudeAiSource(ChatExportSource):
    """Claude.ai's exports, from the roots the person names."""

    kind = SourceKind.CLAUDE_AI
    format = ConversationsArray(
        "Claude.ai", _conversation, conversation_records, "https://claude.ai/chat/{key}"
    )
