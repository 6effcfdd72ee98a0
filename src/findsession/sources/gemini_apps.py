"""Gemini Apps' history in a Google Takeout export: `My Activity/Gemini Apps/
MyActivity.json`, in the Takeout zip or the folder it unpacks to, read as sessions.

Takeout keeps Gemini as an activity log, not as conversations: one JSON array of
records, newest first, `{header: "Gemini Apps", title, time (ISO 8601), products,
activityControls, details, safeHtmlItem, subtitles, attachedFiles, imageFile}`. A
record whose `title` starts `Prompted ` (or `Branched `, `Answered `) is one thing the
person asked: the rest of the title is the prompt, and `safeHtmlItem[].html` Gemini's
answer as HTML (read to text by `html_text`, code kept as code). Records of other
activity (`Created`, `Used`, `Added`, `Gave` feedback, `Selected`) are passed over. A
title in another language has no English verb; such a record is taken for a prompt,
its title whole, when Gemini's answer is there. `attachedFiles` names the files given
with a prompt, `imageFile` an image.

A record names its conversation in `details[].url`, `https://gemini.google.com/app/
<id>`, where the export has it; records naming one conversation are its turns, in
time order, and `<id>` is the session's key in every export. Records that name none are
put into conversations by time, as the readers of older exports do: a new one starts
after 30 minutes with nothing asked, keyed by its first record's time (which a later
export does not move: records are only ever added after it). Takeout's HTML form
(`MyActivity.html`) is not read: it is named once, with what to export instead.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from datetime import datetime
from typing import Any

from findsession.domain import Message, MessageKind, Problem, SourceKind
from findsession.sources.chat_export import (
    ChatExportSource,
    Conversation,
    heads,
    numbered,
    token,
)
from findsession.sources.chatgpt_records import ATTACHMENT
from findsession.sources.claude_code_records import PROMPT_CAP
from findsession.sources.cursor import Record
from findsession.sources.epoch import iso_utc
from findsession.sources.html_text import html_text
from findsession.sources.json_array import Item
from findsession.sources.jsonl import cap, clean_text

DOCUMENT = "MyActivity.json"
#: A new conversation starts after this long with nothing asked (records with no id).
GAP_SECONDS = 30 * 60
_PROMPTED = ("Prompted ", "Branched ", "Answered ")
_LINK = re.compile(r"https?://gemini\.google\.com/app/([A-Za-z0-9_-]{1,100})(?:[?#].*)?")


class GeminiAppsExport:
    """The shape of Gemini Apps' activity in a Takeout export."""

    app = "Gemini Apps"
    document = DOCUMENT

    def is_document(self, path: str) -> bool:
        """`MyActivity.json` in a folder that names Gemini (or Bard, its name before):
        Takeout keeps one such file per product, each in the product's folder."""
        parts = path.replace("\\", "/").split("/")
        folder = parts[-2].lower() if len(parts) > 1 else ""
        return parts[-1] == DOCUMENT and ("gemini" in folder or "bard" in folder)

    def conversations(
        self, items: Iterable[Item], problems: list[Problem]
    ) -> Iterator[Conversation]:
        asked: list[tuple[str, int, Item]] = []
        for item in items:
            if not isinstance(item.value, dict):
                problems.append(Problem(item.index + 1, "not an activity record", item.text[:80]))
                continue
            when = iso_utc(item.value.get("time"))
            if when is not None and _prompt(item.value) is not None:
                asked.append((when, -item.index, item))
        asked.sort(key=lambda a: (a[0], a[1]))
        yield from _grouped([(when, item) for when, _, item in asked])

    def records(self, conv: Conversation, problems: list[Problem]) -> list[Record]:
        group: list[tuple[str, Item]] = conv.value
        messages: list[Message] = []
        for when, item in group:
            messages.extend(_turn(item.value, when))
        return [*heads(conv, None, group[-1][0]), *numbered(conv, messages)]

    def link(self, key: str) -> str | None:
        return None if key.startswith("t-") else f"https://gemini.google.com/app/{key}"

    def unread(self, path: str) -> str | None:
        """Takeout's HTML form of the same records, which is not read."""
        if self.is_document(path[: -len("html")] + "json") and path.endswith(".html"):
            return "Takeout's HTML form is not read: export My Activity as JSON"
        return None


class GeminiAppsSource(ChatExportSource):
    """Gemini Apps' Takeout exports, from the roots the person names."""

    kind = SourceKind.GEMINI_APPS
    format = GeminiAppsExport()


def _grouped(asked: list[tuple[str, Item]]) -> Iterator[Conversation]:
    """The prompts as conversations: by the conversation their record names, else by
    time (a new one after `GAP_SECONDS` with nothing asked)."""
    by_id: dict[str, list[tuple[str, Item]]] = {}
    loose: list[list[tuple[str, Item]]] = []
    last: float | None = None
    for when, item in asked:
        key = _conversation_id(item.value)
        if key is not None:
            by_id.setdefault(key, []).append((when, item))
            continue
        at = _seconds(when)
        if not loose or last is None or at - last > GAP_SECONDS:
            loose.append([])
        loose[-1].append((when, item))
        last = at
    groups = list(by_id.items())
    groups += [("t-" + re.sub(r"[^0-9TZ]", "", g[0][0]), g) for g in loose]
    for key, group in groups:
        yield Conversation(key, token(*(i.text for _, i in group)), group, group[0][1].index)


def _turn(record: dict[str, Any], when: str) -> Iterator[Message]:
    base: dict[str, Any] = {"line": 0, "timestamp": when}
    prompt = _prompt(record) or ""
    if prompt:
        yield Message(MessageKind.PROMPT, cap(prompt, PROMPT_CAP), **base)
    names = record.get("attachedFiles")
    names = [*names] if isinstance(names, list) else []
    names.append(record.get("imageFile"))
    for name in names:
        if isinstance(name, str) and name.strip():
            name = clean_text(name.strip())
            yield Message(MessageKind.TOOL_CALL, name, tool_name=ATTACHMENT, files=(name,), **base)
    reply = _reply(record)
    if reply:
        yield Message(MessageKind.REPLY, cap(reply, PROMPT_CAP), **base)


def _prompt(record: dict[str, Any]) -> str | None:
    """What the person asked, or None for a record of other activity."""
    title = record.get("title")
    if not isinstance(title, str):
        return None
    for verb in _PROMPTED:
        if title.startswith(verb):
            return clean_text(title[len(verb) :].strip())
    if any(title.startswith(w + " ") for w in ("Created", "Used", "Added", "Gave", "Selected")):
        return None
    # Another language's verb: a prompt if Gemini answered it.
    return clean_text(title.strip()) if _reply(record) else None


def _reply(record: dict[str, Any]) -> str:
    items = record.get("safeHtmlItem")
    html = [i.get("html") for i in items if isinstance(i, dict)] if isinstance(items, list) else []
    return clean_text("\n\n".join(html_text(h) for h in html if isinstance(h, str)).strip())


def _conversation_id(record: dict[str, Any]) -> str | None:
    """The one conversation the record's `details` link to, else None."""
    details = record.get("details")
    found = set()
    for link in details if isinstance(details, list) else []:
        url = link.get("url") if isinstance(link, dict) else None
        match = _LINK.fullmatch(url) if isinstance(url, str) else None
        if match:
            found.add(match.group(1))
    return found.pop() if len(found) == 1 else None


def _seconds(when: str) -> float:
    return datetime.fromisoformat(when.replace("Z", "+00:00")).timestamp()
