"""What both export formats say the same way: times, sizes, the labels of collapsed
messages, and a session's facts for the header.

Kept apart from `export_md` and `export_html` so a Markdown file and an HTML file of the
same session read alike, line for line.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from findsession.render.text import printable

#: How each collapsed message is named in its one-line summary.
_LABELS = {"thinking": "thinking", "tool_call": "tool call", "tool_output": "output"}
#: Messages shown collapsed (with their size); prompts and replies are shown in full.
COLLAPSED = frozenset(_LABELS)
REDACTED_NOTE = (
    "Text as findsession indexed it: secrets were replaced by [REDACTED:kind] before they"
    " were stored; tool output is kept to its first few thousand characters."
)
RAW_NOTE = (
    "RAW EXPORT: this file holds the transcript's own text, including the secrets the"
    " index redacted (keys, tokens, passwords). Do not share it."
)


def when(stamp: str | None) -> str:
    """An ISO time as `2026-05-14 10:24 UTC` (the transcript's own zone when it names
    one other than UTC); '' for none."""
    if not stamp:
        return ""
    text = printable(stamp)
    day, _, rest = text.partition("T")
    if not rest:
        return day
    clock = rest[:5]
    zone = rest[5:].lstrip(":0123456789.")
    if zone in ("Z", "+00:00", ""):
        zone = "UTC"
    return f"{day} {clock} {zone}"


def size(chars: int) -> str:
    """A message's length as people read it: `812 chars`, `4.1k chars`, `1.2M chars`."""
    if chars < 1000:
        return f"{chars} char{'s' if chars != 1 else ''}"
    if chars < 1_000_000:
        return f"{chars / 1000:.1f}k chars"
    return f"{chars / 1_000_000:.1f}M chars"


def summary_line(message: dict[str, Any]) -> str:
    """The one line a collapsed message shows: what it is, its tool, its size."""
    kind = message["kind"]
    parts = [_LABELS.get(kind, kind)]
    if message.get("tool") and kind == "tool_call":
        parts[0] = f"tool call: {printable(message['tool'])}"
    if message.get("is_error"):
        parts.append("failed")
    parts.append(size(message.get("chars", len(message["text"]))))
    return " · ".join(parts)


def facts(doc: dict[str, Any]) -> list[tuple[str, str]]:
    """The header's (label, value) pairs, in order, those without a value left out."""
    s = doc["session"]
    span = " – ".join(dict.fromkeys(x for x in (when(s["started"]), when(s["ended"])) if x))
    rows = [
        ("session", s["id"]),
        ("agent", s["source"]),
        ("project", s["cwd"]),
        ("branch", s["git_branch"]),
        ("time", span),
        ("turns", str(doc["total_turns"])),
        ("transcript", s["path"]),
    ]
    parent = doc.get("parent")
    if parent:
        rows.append(("subagent of", f"{parent['id']} ({parent['title'] or 'untitled'})"))
    return [(label, printable(value)) for label, value in rows if value]


def title(doc: dict[str, Any]) -> str:
    """The session's title, else its first prompt's start, else its id."""
    s = doc["session"]
    if s["title"]:
        return printable(s["title"])
    for turn in doc["turns"]:
        for message in turn["messages"]:
            if message["kind"] == "prompt" and message["text"].strip():
                return " ".join(printable(message["text"]).split())[:100]
    return f"session {s['id']}"


def placed(doc: dict[str, Any]) -> tuple[dict[tuple[int, int], dict[str, Any]], list[dict]]:
    """The subagents by the (turn, message index) of the call that started each, and
    those no call names (shown after the last turn)."""
    by_call = {tuple(c["started_by"]): c for c in doc["subagents"] if c["started_by"]}
    loose = [c for c in doc["subagents"] if not c["started_by"]]
    return by_call, loose


def turn_items(
    doc: dict[str, Any], turn: dict[str, Any]
) -> Iterator[tuple[dict[str, Any], dict[str, Any] | None]]:
    """Each message of `turn` with the subagent its call started (or None)."""
    by_call, _ = placed(doc)
    for index, message in enumerate(turn["messages"]):
        yield message, by_call.get((turn["turn"], index))


def child_label(child: dict[str, Any]) -> str:
    """A subagent's one line: its title and how many turns it had."""
    name = printable(child["title"] or child.get("agent_type") or child["id"])
    turns = child["turns"]
    return f"subagent: {name} · {turns} turn{'s' if turns != 1 else ''}"
