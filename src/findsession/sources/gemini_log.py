"""A Gemini CLI chat file, either form, resolved to the conversation it holds now.

Gemini CLI has written two forms into `chats/`:

- `session-<time>-<id8>.json`, one JSON object (`sessionId`, `projectHash`, `startTime`,
  `lastUpdated`, `summary`, `kind`, `messages`), rewritten whole after every message
  (with a plain write, not a rename: a reader can catch it half written);
- `*.jsonl`, an append-only log: a metadata line, then message records, `{"$set": {...}}`
  updates (a `messages` array among them is the history from then on, see
  `_checkpoint`) and `{"$rewindTo": id}` (that message and all after it are gone). A
  message id appended again replaces the earlier record in place: the CLI re-appends a
  reply each time its tool calls or token counts change.

Both resolve to the same `Conversation`, whose messages keep the order and the numbers
that `read --raw` uses to find them again: for the JSON form a message's position in the
array (from 1), for the JSONL form the line that put the id where it stands (a replaced
record keeps its place, as the CLI's own `Map` does).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from findsession.domain import Problem
from findsession.sources.jsonl import clean_text, cut_point

#: Lines longer than this are skipped, as in `jsonl` (nothing a person reads is that long).
MAX_LINE_BYTES = 64 * 1024 * 1024
_PREVIEW = 80


@dataclass
class Conversation:
    """What a chat file holds now: metadata, and each live message with its number."""

    session_id: str | None = None
    project_hash: str | None = None
    kind: str | None = None
    summary: str | None = None
    summary_line: int = 0
    directories: list[str] = field(default_factory=list)
    #: `(number, message)` in conversation order; numbers never decrease.
    messages: list[tuple[int, dict[str, Any]]] = field(default_factory=list)

    def take_metadata(self, obj: dict[str, Any], line: int) -> None:
        """Keep the metadata fields `obj` sets (a first line, a `$set`, a whole record)."""
        for key, attr in (("sessionId", "session_id"), ("projectHash", "project_hash")):
            if isinstance(obj.get(key), str) and obj[key]:
                setattr(self, attr, clean_text(obj[key]))  # a lone surrogate cannot be stored
        if obj.get("kind") in ("main", "subagent"):
            self.kind = obj["kind"]
        if "summary" in obj:
            summary = obj["summary"]
            self.summary = summary if isinstance(summary, str) and summary.strip() else None
            self.summary_line = line
        dirs = obj.get("directories")
        if isinstance(dirs, list):
            self.directories = [d for d in dirs if isinstance(d, str) and d]


def parse_json(data: bytes, problems: list[Problem]) -> Conversation:
    """The single-JSON form. A file caught half written (or cut short by a crash) keeps
    every message that was whole: a rewrite starts from the first byte, so what was read
    is a prefix of the new content and dropping it all would lose the session."""
    text = data.decode("utf-8", "replace")
    conv = Conversation()
    try:
        obj = json.loads(text)
    except (ValueError, RecursionError) as exc:
        lineno = getattr(exc, "lineno", 1)
        # A whole object ends with its closing brace; a file that does not was cut short.
        reason = "malformed JSON" if text.rstrip().endswith("}") else "truncated JSON"
        problems.append(Problem(lineno, reason, _preview(text, getattr(exc, "pos", 0))))
        obj = _salvage(text)
    if not isinstance(obj, dict):
        if text.strip():
            problems.append(Problem(1, "not a JSON object", _preview(text, 0)))
        return conv
    conv.take_metadata(obj, 0)
    messages = obj.get("messages")
    if isinstance(messages, list):
        conv.messages = [(n, m) for n, m in enumerate(messages, 1) if isinstance(m, dict)]
    return conv


def parse_jsonl(data: bytes, problems: list[Problem]) -> Conversation:
    """The JSONL form, replayed the way Gemini CLI loads it (`loadConversationRecord`)."""
    conv = Conversation()
    live: dict[str, tuple[int, dict[str, Any]]] = {}  # insertion order is conversation order
    lines = data.split(b"\n")
    for number, raw in enumerate(lines, 1):
        last = number == len(lines)
        if not raw.strip():
            continue
        obj = _line_object(raw, number, last, problems)
        if obj is None:
            continue
        if isinstance(obj.get("$rewindTo"), str):
            _rewind(live, obj["$rewindTo"])
        elif isinstance(obj.get("id"), str):
            place = live.get(obj["id"])
            live[obj["id"]] = (place[0] if place else number, obj)
        elif isinstance(obj.get("$set"), dict):
            update = obj["$set"]
            if isinstance(update.get("messages"), list):
                _checkpoint(live, update["messages"], number)
            conv.take_metadata(update, number)
        elif isinstance(obj.get("sessionId"), str) and isinstance(obj.get("projectHash"), str):
            conv.take_metadata(obj, number)
            if isinstance(obj.get("messages"), list):
                _insert_all(live, obj["messages"], number)
    conv.messages = list(live.values())
    return conv


def _line_object(
    raw: bytes, number: int, last: bool, problems: list[Problem]
) -> dict[str, Any] | None:
    if len(raw) > MAX_LINE_BYTES:
        problems.append(Problem(number, "line too long", f"{len(raw)} bytes"))
        return None
    if b"\x00" in raw:
        problems.append(Problem(number, "NUL byte in line", _preview_bytes(raw)))
        return None
    try:
        obj = json.loads(raw.decode("utf-8", "replace"))
    except (ValueError, RecursionError):
        # A last line with no newline may still be being written; the next change of
        # the file reads it all again, and the problem goes with the old reading.
        reason = "incomplete last line" if last else "malformed JSON"
        problems.append(Problem(number, reason, _preview_bytes(raw)))
        return None
    if not isinstance(obj, dict):
        problems.append(Problem(number, "not a JSON object", _preview_bytes(raw)))
        return None
    return obj


def _rewind(live: dict[str, tuple[int, dict[str, Any]]], target: str) -> None:
    """Drop `target` and every message after it; an unknown id drops them all (as the
    CLI does: it cannot tell where the rewind lands)."""
    if target not in live:
        live.clear()
        return
    ids = list(live)
    for gone in ids[ids.index(target) :]:
        del live[gone]


def _checkpoint(live: dict[str, tuple[int, dict[str, Any]]], messages: list[Any], n: int) -> None:
    """A `$set` of `messages`: the history the CLI keeps from now on, in its order.

    The CLI writes one when it compresses a long chat (older turns become a
    `<state_snapshot>` summary), masks bulky tool output, or loads another history. A
    turn it leaves out was still said in this session, and is what a person remembers
    of it: it stays, before the new history, as it was. Only a `$rewindTo` (the person
    taking turns back) removes turns.

    A message the history names again keeps what the file first recorded of it: a
    resume (0.61.0) writes each earlier reply again from the model's context, without
    its `toolCalls` (results, status), without its structured `thoughts` and at the time
    of the resume; masking writes a shorter tool output. The new copy adds only the
    fields the earlier record lacks.
    """
    earlier = {mid: entry[1] for mid, entry in live.items()}
    named = {m["id"] for m in messages if isinstance(m, dict) and isinstance(m.get("id"), str)}
    kept = [(mid, entry) for mid, entry in live.items() if mid not in named]
    live.clear()
    live.update(kept)
    merged = [
        {**m, **earlier[m["id"]]} if isinstance(m, dict) and _str_id(m) in earlier else m
        for m in messages
    ]
    _insert_all(live, merged, n)


def _str_id(msg: dict[str, Any]) -> str | None:
    return msg["id"] if isinstance(msg.get("id"), str) else None


def _insert_all(live: dict[str, tuple[int, dict[str, Any]]], messages: list[Any], n: int) -> None:
    for msg in messages:
        if isinstance(msg, dict) and isinstance(msg.get("id"), str):
            place = live.get(msg["id"])
            live[msg["id"]] = (place[0] if place else n, msg)


_WS = re.compile(r"[ \t\r\n]*")


def _salvage(text: str) -> dict[str, Any] | None:
    """The top-level keys and the whole messages of a JSON object cut short anywhere.

    Walks the object one key and one value at a time with the standard decoder; inside
    `messages` it takes one message at a time, so only the message being written when
    the file was read is lost.
    """
    decoder = json.JSONDecoder()
    pos = _WS.match(text, 0).end()
    if not text.startswith("{", pos):
        return None
    out: dict[str, Any] = {}
    pos += 1
    try:
        while True:
            pos = _WS.match(text, pos).end()
            if text.startswith("}", pos):
                return out
            key, pos = decoder.raw_decode(text, pos)
            pos = _WS.match(text, pos).end()
            if not isinstance(key, str) or not text.startswith(":", pos):
                return out
            pos = _WS.match(text, pos + 1).end()
            if key == "messages" and text.startswith("[", pos):
                out[key] = items = []
                pos += 1
                while True:
                    pos = _WS.match(text, pos).end()
                    if text.startswith("]", pos):
                        pos += 1
                        break
                    item, pos = decoder.raw_decode(text, pos)
                    items.append(item)
                    pos = _WS.match(text, pos).end()
                    if text.startswith(",", pos):
                        pos += 1
            else:
                out[key], pos = decoder.raw_decode(text, pos)
            pos = _WS.match(text, pos).end()
            if text.startswith(",", pos):
                pos += 1
    except (ValueError, RecursionError):
        return out


def _preview(text: str, pos: int) -> str:
    """The start of the line that holds `pos`, printable, cut on a token boundary (so the
    indexer can still redact a secret the preview quotes, as `jsonl` does)."""
    start = text.rfind("\n", 0, pos) + 1
    snippet = text[start : start + _PREVIEW + 4096].strip()
    snippet = snippet[: cut_point(snippet, _PREVIEW)]
    return "".join(c if c.isprintable() else "\ufffd" for c in snippet)


def _preview_bytes(raw: bytes) -> str:
    return _preview(raw[: _PREVIEW * 4 + 4096 * 4].decode("utf-8", "replace"), 0)
