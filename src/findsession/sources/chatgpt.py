"""ChatGPT's data export: the zip "Export data" (Settings, Data controls) mails a link
to, or the folder it unpacks to, read as sessions.

The zip holds `conversations.json` (every conversation, one JSON array), `chat.html`
(the same as a page), `user.json` (the account: `id`, `email`, ...),
`message_feedback.json`, `model_comparisons.json`, `shared_conversations.json`, and the
files uploaded and images made in the conversations. Only `conversations.json` is read
(`chatgpt_records` says what a conversation means); a conversation's id is its
`conversation_id` (also `id`), the same in every export of the account.
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
from findsession.sources.chatgpt_records import conversation_records
from findsession.sources.json_array import Item
from findsession.sources.registry import SourceKind


def _conversation(item: Item) -> Conversation | Problem:
    doc = item.value
    key = key_of(doc.get("conversation_id") or doc.get("id")) if isinstance(doc, dict) else None
    if key is None or "mapping" not in doc:
        return _not_one(item)
    return Conversation(key, token(item.text), doc, item.index)


def _not_one(item: Item) -> Problem:
    """An item that is no ChatGPT conversation (no id, no `mapping`: another app's?)."""
    shape = (
        "a Claude.ai conversation"
        if isinstance(item.value, dict) and ("chat_messages" in item.value)
        else "not a ChatGPT conversation"
    )
    return Problem(item.index + 1, shape, item.text[:80])


class ChatGptSource(ChatExportSource):
    """ChatGPT's exports, from the roots the person names."""

    kind = SourceKind.CHATGPT
    format = ConversationsArray(
        "ChatGPT", _conversation, conversation_records, "https://chatgpt.com/c/{key}"
    )
