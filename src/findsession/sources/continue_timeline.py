"""A session of Continue's first extension (its Python server, 2023) as records.

Before Continue moved its core into TypeScript (early 2024) it saved a session in the
same folder, under the same name, as its whole state: `{history: {timeline,
current_index}, session_info: {session_id, title, date_created, workspace_directory},
selected_context_items, config, ...}`. Each timeline node is `{step, observation, depth,
deleted, active, logs, context_used}`, and its `step` `{name, class_name, description,
hide, chat_context, ...}`: a `UserInputStep` holds what was typed (`user_input`, shown
as its `description`), and every other step shows what the model wrote or did as its
`description` (`SimpleChatStep` a chat answer, an edit step what it changed). A hidden
step (`hide`, the steps run on startup) was never shown, and a deleted node is one the
person removed from the session. `date_created` is in seconds, as text; there is no
time per step.
"""

from __future__ import annotations

from typing import Any

from findsession.domain import Message, MessageKind, MetaEvent, MetaKind
from findsession.sources.cursor import Record
from findsession.sources.epoch import epoch_iso
from findsession.sources.jsonl import cap, clean_text

PROMPT_CAP = 100_000
_USER_STEP = "UserInputStep"


def is_timeline(doc: dict[str, Any]) -> bool:
    """Whether the document is the first extension's saved state."""
    history = doc.get("history")
    return isinstance(history, dict) and isinstance(history.get("timeline"), list)


def timeline_records(doc: dict[str, Any], created: str | None, saved: str | None) -> list[Record]:
    """Every shown step of the session, numbered by its timeline node (from 1), then its
    title at line 0."""
    info = doc.get("session_info") if isinstance(doc.get("session_info"), dict) else {}
    made = _seconds(info.get("date_created")) or created
    folder = info.get("workspace_directory")
    cwd = clean_text(folder) if isinstance(folder, str) and folder.strip() else None
    records: list[Record] = []
    first = True
    for number, node in enumerate(doc["history"]["timeline"], 1):
        step = node.get("step") if isinstance(node, dict) else None
        if not isinstance(step, dict) or node.get("deleted") is True or step.get("hide") is True:
            continue
        typed = step.get("class_name") == _USER_STEP
        text = step.get("user_input") if typed else None
        text = text if isinstance(text, str) and text.strip() else step.get("description")
        if not isinstance(text, str) or not text.strip():
            continue
        kind = MessageKind.PROMPT if typed else MessageKind.REPLY
        records.append(Message(kind, cap(clean_text(text.strip()), PROMPT_CAP), line=number,
                               cwd=cwd, timestamp=made if first else saved))  # fmt: skip
        first = False
    title = info.get("title")
    if isinstance(title, str) and title.strip():
        records.append(MetaEvent(MetaKind.AI_TITLE, clean_text(title.strip()), 0))
    return records


def _seconds(value: Any) -> str | None:
    """`date_created`: seconds since the epoch, as text."""
    try:
        return epoch_iso(float(value)) if isinstance(value, str | int | float) else None
    except ValueError:
        return None
