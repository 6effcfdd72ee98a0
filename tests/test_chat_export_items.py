"""What each item of a `conversations.json` is, to ChatGPT's reader and to Claude.ai's:
a conversation with its key when it has the app's id and its field, else a problem at
its place naming the other app's conversation when it looks like one."""

from __future__ import annotations

import json
from typing import Any

import pytest

from findsession.domain import Problem
from findsession.sources.chat_export import Conversation, token
from findsession.sources.chatgpt import ChatGptSource
from findsession.sources.claude_ai import ClaudeAiSource
from findsession.sources.json_array import Item

GPT = {"conversation_id": "c-1", "id": "i-1", "mapping": {}}
CLAUDE = {"uuid": "u-1", "chat_messages": []}


def _read(source: Any, value: Any, index: int = 4) -> Conversation | Problem:
    text = json.dumps(value)
    return source.format.read_one(Item(index, text, value))


@pytest.mark.parametrize(
    ("value", "key"),
    [
        (GPT, "c-1"),
        ({**GPT, "conversation_id": ""}, "i-1"),
        ({**GPT, "conversation_id": None}, "i-1"),
        ({"id": "i-2", "mapping": {}}, "i-2"),
        ({**GPT, "conversation_id": "sk-" + "a" * 40}, None),  # a secret-looking id: digested
    ],
)
def test_chatgpt_conversation(value: dict[str, Any], key: str | None) -> None:
    got = _read(ChatGptSource(), value)
    assert isinstance(got, Conversation)
    assert (got.key == key) if key else got.key.startswith("h-")
    assert (got.token, got.value, got.index) == (token(json.dumps(value)), value, 4)


@pytest.mark.parametrize(("value", "key"), [(CLAUDE, "u-1"), ({**CLAUDE, "uuid": "x y"}, None)])
def test_claude_ai_conversation(value: dict[str, Any], key: str | None) -> None:
    got = _read(ClaudeAiSource(), value)
    assert isinstance(got, Conversation)
    assert (got.key == key) if key else got.key.startswith("h-")
    assert (got.token, got.value, got.index) == (token(json.dumps(value)), value, 4)


@pytest.mark.parametrize(
    ("source", "value", "reason"),
    [
        (ChatGptSource(), CLAUDE, "a Claude.ai conversation"),
        (ChatGptSource(), {"conversation_id": "c-1"}, "not a ChatGPT conversation"),
        (ChatGptSource(), {"mapping": {}, "conversation_id": 5}, "not a ChatGPT conversation"),
        (ChatGptSource(), {"mapping": {}, "chat_messages": []}, "a Claude.ai conversation"),
        (ChatGptSource(), ["c-1"], "not a ChatGPT conversation"),
        (ChatGptSource(), "x" * 200, "not a ChatGPT conversation"),
        (ClaudeAiSource(), GPT, "a ChatGPT conversation"),
        (ClaudeAiSource(), {"uuid": "u-1"}, "not a Claude.ai conversation"),
        (
            ClaudeAiSource(),
            {"uuid": "", "chat_messages": [], "mapping": {}},
            "a ChatGPT conversation",
        ),
        (ClaudeAiSource(), 7, "not a Claude.ai conversation"),
    ],
)
def test_not_a_conversation(source: Any, value: Any, reason: str) -> None:
    got = _read(source, value)
    assert got == Problem(5, reason, json.dumps(value)[:80])
