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
    array_item,
)
from findsession.sources.chatgpt_records import conversation_records
from findsession.sources.json_array import Item
from findsession.sources.registry import SourceKind

#: Where a conversation keeps its id: `conversation_id`, else `id`.
_IDS = ("conversation_id", "id")


def _conversation(item: Item) -> Conversation | Problem:
    """An item with an id and a `mapping`; anything else (another app's?) is a problem."""
    return array_item(item, _IDS, "mapping", "ChatGPT", ("chat_messages", "Claude.ai"))


class ChatGptSource(ChatExportSource):
    """ChatGPT's exports, from the roots the person names."""

    kind = SourceKind.CHATGPT
    format = ConversationsArray(
        "ChatGPT", _conversation, conversation_records, "https://chatgpt.com/c/{key}"
    )
