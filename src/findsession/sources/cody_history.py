"""Sourcegraph Cody's chat history: the chats a history value holds, each under its
session key.

Cody's editor extension keeps its chat history in the editor's global state under
`cody-local-chatHistory-v2` (`cody-local-chatHistory` in its first month, to April
2023). The value, by the release that wrote it:

- since December 2023: accounts keyed `<endpoint>-<username>`
  (`https://sourcegraph.com/-alice`), each `{chat: {<chat id>: transcript}}`; early
  2024 builds also kept an empty `chat` and `input` beside the accounts (for a
  downgrade);
- April to December 2023: one account's `{chat: {<chat id>: transcript}, input: [...]}`;
- March to April 2023 (`cody-local-chatHistory`): `{chat: {<id>: [messages]}, input}`,
  each chat a flat list of messages, the person's then Cody's.

Cody's two exports hold the same transcripts: the `cody.chat.history.export` command
writes one account's `{chat: {...}}`, the history panel's download button a list of
them (`cody-chat-history-<time>.json`). A chat's id is the time it began, as
`Date.toUTCString()` (`Mon, 07 Dec 2026 05:41:14 GMT`); what a chat holds is read by
`cody_records`.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Any

from findsession.domain import Problem
from findsession.sources.cursor_ide_records import when
from findsession.sources.jsonl import clean_text

#: The global state key of the history, and of its first month's.
HISTORY_KEY = "cody-local-chatHistory-v2"
FIRST_KEY = "cody-local-chatHistory"
_SAFE = re.compile(r"\A[A-Za-z0-9._-]{1,80}\Z")


@dataclass
class Chat:
    """One chat: its session key, its transcript (or, from the first month and from a
    JetBrains project, `{id, messages}`), the account it belongs to (None in an export
    of one account), and its folder where its place says it."""

    key: str
    data: dict[str, Any]
    account: str | None = None
    cwd: str | None = None


def chats_of(state: Any, problems: list[Problem]) -> dict[str, Chat]:
    """Every chat of Cody's global state (`{HISTORY_KEY: ..., FIRST_KEY: ...}`)."""
    if not isinstance(state, dict):
        problems.append(Problem(0, "Cody's global state is not a JSON object"))
        return {}
    chats = history_chats(state.get(HISTORY_KEY), problems)
    first = state.get(FIRST_KEY)
    if isinstance(first, dict) and isinstance(first.get("chat"), dict):
        for cid, messages in first["chat"].items():
            if isinstance(messages, list) and messages:
                _add(chats, str(cid), None, {"id": str(cid), "messages": messages})
    return chats


def history_chats(history: Any, problems: list[Problem]) -> dict[str, Chat]:
    """The chats of a history value: accounts each `{chat}`, one account's `{chat}`, or
    a list of transcripts (an export)."""
    chats: dict[str, Chat] = {}
    if isinstance(history, list):
        for transcript in history:
            _transcript(chats, None, None, transcript, problems)
        return chats
    if not isinstance(history, dict):
        if history is not None:
            problems.append(Problem(0, f"{HISTORY_KEY} is not a JSON object"))
        return chats
    if isinstance(history.get("chat"), dict):  # one account's (2023, an export)
        for cid, transcript in history["chat"].items():
            _transcript(chats, str(cid), None, transcript, problems)
    for account, user in history.items():
        if account in ("chat", "input") or not isinstance(user, dict):
            continue
        own = user.get("chat")
        for cid, transcript in own.items() if isinstance(own, dict) else ():
            _transcript(chats, str(cid), str(account), transcript, problems)
    return chats


def _transcript(
    chats: dict[str, Chat], cid: str | None, account: str | None, data: Any, problems: list[Problem]
) -> None:
    if not isinstance(data, dict):
        problems.append(Problem(0, "a chat that is not a JSON object", _preview(cid)))
        return
    cid = cid or _str(data.get("id")) or _str(data.get("lastInteractionTimestamp"))
    if not cid:
        problems.append(Problem(0, "a chat with no id", _preview(data.get("chatTitle"))))
        return
    if not isinstance(data.get("interactions"), list):
        problems.append(Problem(0, "a chat whose interactions are not a list", _preview(cid)))
        return
    if data["interactions"]:
        _add(chats, cid, account, data)


def _add(chats: dict[str, Chat], cid: str, account: str | None, data: dict[str, Any]) -> None:
    key = chat_key(cid, account)
    n = 2
    while key in chats:
        key, n = f"{chat_key(cid, account)}~{n}", n + 1
    chats[key] = Chat(key, data, account)


def chat_key(cid: str, account: str | None) -> str:
    """A chat's session key: the time its id gives (`20261207T054114Z`), else the id
    itself where it is short and plain, else a hash of it; then a short hash of its
    account, as one chat may be kept under two accounts (Cody copies a chat carried on
    after switching accounts)."""
    moment = when(cid)
    if moment:
        base = moment[:19].replace("-", "").replace(":", "") + "Z"
    elif _SAFE.match(cid):
        base = cid
    else:
        base = _digest(cid, 6)
    return f"{base}-{_digest(account, 2)}" if account else base


def _digest(text: str, size: int) -> str:
    return hashlib.blake2b(text.encode("utf-8", "replace"), digest_size=size).hexdigest()


def _str(value: Any) -> str | None:
    return clean_text(value) if isinstance(value, str) and value.strip() else None


def _preview(value: Any) -> str:
    return clean_text(str(value))[:120]
