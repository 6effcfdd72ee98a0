"""Counting a Sourcegraph Cody history without findsession: the chats, typed prompts,
replies, tool calls and tool results of an editor's `state.vscdb` (the
`sourcegraph.cody-ai` row of `ItemTable`), of the agent's history file or of an export,
read with `sqlite3` and `json` alone, as Cody's own types describe them; and of a
JetBrains project's `.idea/cody_history.xml`, read with regular expressions.

A chat is a transcript with at least one interaction (or, from the first month, a
non-empty list of messages). A prompt is a person's message with words (`displayText`,
else `text`); a reply a Cody message with words once a leading `<think>` block is set
aside (the block, when it holds words, is thinking); a tool call each `tool_call` part
of Cody's `content` and each `tool` step of a person's `processes`; a result each
`tool_result` part and each failed step's error.
"""

from __future__ import annotations

import html
import json
import re
import sqlite3
from collections import Counter
from pathlib import Path
from typing import Any

_THINK = re.compile(r"\A\s*<think>(.*?)</think>", re.DOTALL)


def state_value(db: Path) -> Any:
    """The extension's global state in a `state.vscdb`, or None."""
    con = sqlite3.connect(f"file:{db}?mode=ro&immutable=1", uri=True)
    try:
        row = con.execute(
            "SELECT value FROM ItemTable WHERE key = 'sourcegraph.cody-ai'"
        ).fetchone()
    finally:
        con.close()
    if row is None:
        return None
    value = row[0].decode() if isinstance(row[0], bytes) else row[0]
    return json.loads(value)


def transcripts(history: Any) -> list[dict[str, Any]]:
    """The transcripts of a history value (accounts, one account, or a list)."""
    if isinstance(history, list):
        return [t for t in history if isinstance(t, dict)]
    found: list[dict[str, Any]] = []
    if not isinstance(history, dict):
        return found
    for key, value in history.items():
        if key == "chat" and isinstance(value, dict):
            found += [t for t in value.values() if isinstance(t, dict)]
        elif key != "input" and isinstance(value, dict) and isinstance(value.get("chat"), dict):
            found += [t for t in value["chat"].values() if isinstance(t, dict)]
    return found


def count_history(history: Any, first: Any = None) -> Counter[str]:
    counts: Counter[str] = Counter()
    for transcript in transcripts(history):
        interactions = transcript.get("interactions")
        if not isinstance(interactions, list) or not interactions:
            continue
        counts["chats"] += 1
        for interaction in interactions:
            if not isinstance(interaction, dict):
                continue
            for message in (interaction.get("humanMessage"), interaction.get("assistantMessage")):
                if isinstance(message, dict):
                    _count(message, counts)
    if isinstance(first, dict) and isinstance(first.get("chat"), dict):
        for messages in first["chat"].values():
            if isinstance(messages, list) and messages:
                counts["chats"] += 1
                for message in messages:
                    if isinstance(message, dict):
                        _count(message, counts)
    return counts


def count_state(state: Any) -> Counter[str]:
    if not isinstance(state, dict):
        return Counter()
    return count_history(
        state.get("cody-local-chatHistory-v2"), state.get("cody-local-chatHistory")
    )


def count_file(path: Path) -> Counter[str]:
    """The counts of a `state.vscdb`, an agent history file, an export, or a JetBrains
    project's `cody_history.xml`."""
    if path.suffix == ".vscdb":
        return count_state(state_value(path))
    if path.name == "cody_history.xml":
        return count_project_xml(path.read_text(encoding="utf-8"))
    return count_history(json.loads(path.read_text(encoding="utf-8")))


_CHAT = re.compile(r"<chat>(.*?)</chat>", re.DOTALL)
_ID = re.compile(r'<internalId value="([^"]+)"')
_MESSAGE = re.compile(r'<speaker value="(HUMAN|ASSISTANT)" />\s*<text value="([^"]*)"')


def count_project_xml(raw: str) -> Counter[str]:
    """A JetBrains project's history read with regular expressions: each chat id once,
    its first copy (the account's list comes before the stale list the plugin left when
    it moved the chats under accounts), a chat with no message none."""
    counts: Counter[str] = Counter()
    seen: set[str] = set()
    for body in _CHAT.findall(raw):
        found = _ID.search(body)
        if not found or found.group(1) in seen:
            continue
        seen.add(found.group(1))
        said = [(who, html.unescape(text)) for who, text in _MESSAGE.findall(body)]
        if said:
            counts["chats"] += 1
            counts["prompts"] += sum(1 for who, t in said if who == "HUMAN" and t.strip())
            counts["replies"] += sum(1 for who, t in said if who == "ASSISTANT" and t.strip())
    return counts


def _words(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())


def _count(message: dict[str, Any], counts: Counter[str]) -> None:
    parts = [p for p in message.get("content") or [] if isinstance(p, dict)]
    if message.get("speaker") == "human":
        if _words(message.get("displayText")) or _words(message.get("text")):
            counts["prompts"] += 1
        for step in message.get("processes") or []:
            if isinstance(step, dict) and step.get("type") == "tool":
                counts["tool_calls"] += 1
                if step.get("state") == "error" and isinstance(step.get("error"), dict):
                    counts["tool_results"] += 1
        counts["tool_results"] += sum(1 for p in parts if p.get("type") == "tool_result")
    elif message.get("speaker") == "assistant":
        text = message.get("text") if _words(message.get("text")) else message.get("displayText")
        if not _words(text):
            text = "\n".join(p.get("text") or "" for p in parts if p.get("type") == "text")
        thought = _THINK.match(text or "")
        if thought and _words(thought.group(1)):
            counts["thinking"] += 1
        if _words(_THINK.sub("", text or "")):
            counts["replies"] += 1
        counts["tool_calls"] += sum(1 for p in parts if p.get("type") == "tool_call")
