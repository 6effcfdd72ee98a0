"""Where a Cursor IDE (or Windsurf) chat's messages are, by the generation that wrote it.

- Current Cursor: a composer's `fullConversationHeadersOnly[{bubbleId, type}]` gives the
  order, and each bubble is a row of its own (`bubbleId:<composer>:<bubble>`).
- Cursor 0.4x: the composer holds its bubbles inline, as `conversation[]`, as
  `tabs[].bubbles` or as `conversationMap{id: {bubbles}}`; in a workspace's own
  database the composers sit in `ItemTable` under `composer.composerData`, as
  `allComposers[]` (where current builds keep only their names and times there, with no
  bubbles: those give no chat).
- The chat panel before Composer (Cursor, and Windsurf before Cascade):
  `ItemTable` `workbench.panel.aichat.view.aichat.chatdata` (Windsurf: also
  `aiChat.chatdata`) holds `tabs[{tabId, chatTitle, bubbles}]`, a tab being a chat.

An `ItemTable` list is one value holding many chats: each chat's change token is a
digest of its own object, so a change to one chat reads that chat again, not its
neighbours.

A workspace's `aiService.prompts` (`[{text, commandType}]`) is Cursor's history of what
was typed there: no replies, no times, and each prompt also in its chat (in the same
database for the chat panel and the older composers, in the editor's for current
ones). It is not indexed twice: the prompts no chat of the database holds are counted
and reported, once per change of the list (`unread_prompts`).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from findsession.domain import Problem
from findsession.sources.cursor_ide_records import Chat, loads

COMPOSERS_KEY = "composer.composerData"
PANEL_KEYS = ("workbench.panel.aichat.view.aichat.chatdata", "aiChat.chatdata")
ITEM_KEYS = (COMPOSERS_KEY, *PANEL_KEYS)
PROMPTS_KEY = "aiService.prompts"


def ordered_bubbles(data: dict[str, Any], rows: dict[str, Any]) -> list[tuple[str | None, Any]]:
    """A composer's bubbles in conversation order: its headers over its bubble rows;
    else its inline bubbles; else its rows in key order (a composer with rows and no
    headers). A header whose row is missing is skipped (Cursor writes the row later,
    which changes the composer's token)."""
    headers = data.get("fullConversationHeadersOnly")
    if isinstance(headers, list) and headers and rows:
        ids = [h.get("bubbleId") for h in headers if isinstance(h, dict)]
        return [(bid, rows[bid]) for bid in ids if isinstance(bid, str) and bid in rows]
    inline = inline_bubbles(data)
    if inline:
        return inline
    return list(rows.items())


def inline_bubbles(data: dict[str, Any]) -> list[tuple[str | None, Any]]:
    """The bubbles an older composer (or a chat tab) holds in itself."""
    found: list[Any] = []
    conversation = data.get("conversation")
    if isinstance(conversation, list):
        found = conversation
    elif isinstance(data.get("bubbles"), list):
        found = data["bubbles"]
    elif isinstance(data.get("tabs"), list):
        found = [b for tab in data["tabs"] if isinstance(tab, dict) for b in _list(tab, "bubbles")]
    elif isinstance(data.get("conversationMap"), dict):
        for value in data["conversationMap"].values():
            if isinstance(value, dict) and isinstance(value.get("bubbles"), list):
                found.extend(value["bubbles"])
            elif isinstance(value, dict):
                found.append(value)
    return [(_bubble_id(b), b) for b in found]


def item_chats(
    values: dict[str, Any], agent: str, cwd: str | None, problems: list[Problem]
) -> dict[str, tuple[str, Chat]]:
    """The chats of `ItemTable` values (`ITEM_KEYS`), each with its change token. A
    value that does not parse is a problem; an entry with no bubbles is no chat."""
    chats: dict[str, tuple[str, Chat]] = {}
    for item in ITEM_KEYS:
        if item not in values:
            continue
        try:
            doc = loads(values[item])
        except ValueError as exc:
            problems.append(Problem(0, f"malformed {item} JSON: {exc}"))
            continue
        if not isinstance(doc, dict):
            problems.append(Problem(0, f"{item} is not a JSON object"))
            continue
        if item == COMPOSERS_KEY:
            entries = [(c.get("composerId"), c) for c in _list(doc, "allComposers")]
        else:
            entries = [(t.get("tabId"), t) for t in _list(doc, "tabs")]
        for key, entry in entries:
            bubbles = inline_bubbles(entry)
            if isinstance(key, str) and key and bubbles and key not in chats:
                chat = Chat(key, entry, bubbles, cwd, agent)
                chats[key] = (token_of(entry), chat)
    return chats


def unread_prompts(value: Any, chats: list[Chat]) -> Problem | None:
    """The problem that says how many prompts of `aiService.prompts` no chat in `chats`
    holds (they are in the editor's database, or their chats are gone); None when
    every one is in a chat here, or the list holds none."""
    try:
        doc = loads(value)
    except ValueError:
        return None
    typed = [_text(p) for p in doc if isinstance(p, dict)] if isinstance(doc, list) else []
    held = {_text(b) for chat in chats for _, b in chat.bubbles if isinstance(b, dict)}
    missing = sum(1 for t in typed if t and t not in held)
    if not missing:
        return None
    detail = (
        f"{missing} of {len(typed)} prompts typed in this workspace are in no chat of"
        " this database (their chats are in the editor's database, or gone): Cursor's"
        " prompt history has no replies or times and is not indexed"
    )
    return Problem(0, f"{PROMPTS_KEY} not indexed", detail)


def _text(entry: dict[str, Any]) -> str:
    text = entry.get("text")
    return text.strip() if isinstance(text, str) else ""


def token_of(entry: dict[str, Any]) -> str:
    """A chat object's change token: a digest of its content."""
    text = json.dumps(entry, sort_keys=True, ensure_ascii=False, default=str)
    return "b2:" + hashlib.blake2b(text.encode("utf-8", "replace"), digest_size=12).hexdigest()


def item_token(value: Any) -> str:
    """A whole `ItemTable` value's digest: whether it changed at all."""
    data = value if isinstance(value, bytes) else str(value).encode("utf-8", "replace")
    return "b2:" + hashlib.blake2b(data, digest_size=12).hexdigest()


def _list(doc: dict[str, Any], key: str) -> list[dict[str, Any]]:
    value = doc.get(key)
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _bubble_id(bubble: Any) -> str | None:
    if not isinstance(bubble, dict):
        return None
    bid = bubble.get("bubbleId", bubble.get("id"))
    return bid if isinstance(bid, str) and bid else None
