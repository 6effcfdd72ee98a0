"""Sourcegraph Cody's chats as its JetBrains plugin kept them in each project, before its
agent kept them (`cody`): `<project>/.idea/cody_history.xml`.

From February to August 2024 the plugin (its own chat panel) saved each project's chats
with the IDE's XML serialization of a project-level state (`HistoryService`, its
file `cody_history.xml`): a `ChatHistory` component holding
`accountData/list/AccountData` (an `accountId`, its `chats/list/chat`), or, before the
middle of April 2024, one `chats/list/chat` (each chat with its `accountId`; left in
place, stale, once the chats were copied into `accountData`). A chat is
`{internalId, messages/list/message, updatedAt, llm, enhancedContext}`, a message
`{speaker: HUMAN | ASSISTANT, text}`, each field an element whose `value` attribute
holds it. `updatedAt` is the IDE's local time without a zone (`LocalDateTime`), moved
on when the person sent a message; no message keeps a time, a title or its context.
The plugin stored a person's text as its chat panel held it, HTML entities and all
(`&lt;` for `<`), and it is indexed so. When the plugin moved to its web view it copied
the chats to its agent (`chat/import`) and kept no more messages here; many files hold
only chats' ids and models.

A chat is `<store id>:<internalId>` (a UUID); the project is the folder holding
`.idea`.
"""

from __future__ import annotations

from pathlib import Path
from xml.etree import ElementTree

from findsession.domain import Problem
from findsession.sources.cody_history import Chat, chat_key
from findsession.sources.epoch import iso_utc
from findsession.sources.places.projects import CODY_HISTORY_XML as HISTORY_XML
from findsession.sources.places.projects import CODY_IDEA as IDEA

_SPEAKERS = {"HUMAN": "human", "ASSISTANT": "assistant"}


def project_chats(raw: bytes | str, path: Path, problems: list[Problem]) -> dict[str, Chat]:
    """The chats with messages of one `cody_history.xml`."""
    try:
        root = ElementTree.fromstring(raw)
    except (ElementTree.ParseError, LookupError, ValueError) as exc:  # a garbled encoding
        problems.append(Problem(0, f"malformed {HISTORY_XML}: {exc}"))
        return {}
    component = next((c for c in root.iter("component") if c.get("name") == "ChatHistory"), None)
    if component is None:
        problems.append(Problem(0, f"{HISTORY_XML} holds no ChatHistory"))
        return {}
    project = str(path.parent.parent) if path.parent.name == IDEA else None
    chats: dict[str, Chat] = {}
    # The reorganisation of April 2024 copied the chats into `accountData` and left the
    # old list as it was: a chat in both is read from its account, where it went on.
    current = component.iterfind("accountData/list/AccountData/chats/list/chat")
    for chat in (*current, *component.iterfind("chats/list/chat")):
        cid = _value(chat, "internalId")
        messages = [
            {"speaker": _SPEAKERS.get(_value(m, "speaker") or ""), "text": _value(m, "text")}
            for m in chat.iterfind("messages/list/message")
        ]
        if not cid or not messages:
            continue  # an id and a model only: nothing was said, or the agent has it
        data = {"id": cid, "messages": messages}
        updated = iso_utc(_value(chat, "updatedAt"), naive_local=True)
        if updated:
            data["lastInteractionTimestamp"] = updated
        key = chat_key(cid, None)
        if key not in chats:
            chats[key] = Chat(key, data, cwd=project)
    return chats


def _value(element: ElementTree.Element, tag: str) -> str | None:
    """The `value` of `element`'s child `tag` (`<tag value="..." />`)."""
    child = element.find(tag)
    return child.get("value") if child is not None else None
