"""What a ChatGPT conversation means, mapped to format-free records.

A conversation of `conversations.json` is `{id (and conversation_id), title,
create_time, update_time (epoch seconds), current_node, mapping}`. `mapping` is a tree
of nodes `{id, parent, children, message}`: editing a prompt or asking for another
answer starts a branch, and every branch is kept. The conversation as the person last
saw it is the chain from `current_node` up through each node's `parent`; that chain is
read, oldest first, and the abandoned branches are not. Without a usable
`current_node`, the newest leaf's chain is read.

A message is `{id, author: {role, name}, create_time, content: {content_type, ...},
recipient, metadata: {model_slug, attachments, is_visually_hidden_from_conversation}}`:

- `user`, `text` or `multimodal_text`: a prompt, the string parts of `parts` (an image
  or a voice clip is an object, and only a voice clip's transcript is text); each
  uploaded file in `metadata.attachments` (`{id, name, size}`) is named beside it;
- `assistant` to `recipient` `all`: a reply (`text`, `multimodal_text`), or thinking
  (`thoughts`: `{summary, content}` steps; `reasoning_recap`); its `model_slug` is the
  model that wrote it;
- `assistant` to any other recipient (`python`, `browser`, a plug-in's name): a tool
  call, its code (`code`: `{language, text}`) or its text as written;
- `tool` (its `author.name` the tool): the tool's output (`execution_output` `text`,
  `system_error` `text` as an error, `tether_browsing_display` `result`,
  `tether_quote` `{title, url, text}`, a plug-in's `text` parts);
- `system` messages, and any message with `is_visually_hidden_from_conversation` (the
  custom instructions and memory ChatGPT keeps out of view, `user_editable_context`)
  are not the conversation and are skipped.

The marks ChatGPT puts around citations in a reply (private-use characters
U+E200..U+E202 and what they enclose) are removed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

from findsession.domain import Message, MessageKind, Problem
from findsession.sources.chat_export import Conversation, heads, numbered, problem_line
from findsession.sources.claude_code_records import (
    PROMPT_CAP,
    THINKING_CAP,
    TOOL_INPUT_CAP,
    TOOL_OUTPUT_CAP,
)
from findsession.sources.cursor import Record
from findsession.sources.epoch import epoch_iso
from findsession.sources.jsonl import cap, clean_text

ATTACHMENT = "attachment"
_CITATION = re.compile("\ue200[^\ue201]*\ue201|[\ue200\ue201\ue202]")
_REPLY_TYPES = ("text", "multimodal_text")
_THINKING_TYPES = ("thoughts", "reasoning_recap")
_HIDDEN_TYPES = ("user_editable_context", "model_editable_context")


def conversation_records(conv: Conversation, problems: list[Problem]) -> list[Record]:
    """The conversation's title, revision and the messages of its current branch."""
    doc = conv.value
    title = _str(doc.get("title"))
    revision = epoch_iso(doc.get("update_time")) or epoch_iso(doc.get("create_time"))
    when = epoch_iso(doc.get("create_time"))
    mapping = doc.get("mapping")
    if not isinstance(mapping, dict):
        problems.append(Problem(problem_line(conv), "a conversation with no mapping", conv.key))
        mapping = {}
    unknown: dict[str, int] = {}
    messages: list[Message] = []
    for node in branch(mapping, doc.get("current_node")):
        msg = node.get("message")
        if not isinstance(msg, dict):
            continue
        when = epoch_iso(msg.get("create_time")) or when
        messages.extend(_message(msg, when, unknown))
    for kind, n in sorted(unknown.items()):
        problems.append(
            Problem(problem_line(conv), "unknown content type", f"{kind} ({n}) in {conv.key}")
        )
    return [*heads(conv, title, revision), *numbered(conv, messages)]


def branch(mapping: dict[str, Any], current: Any) -> list[dict[str, Any]]:
    """The nodes from the root to `current` (else to the newest leaf), oldest first;
    a cycle or a missing parent ends the walk."""
    if not isinstance(current, str) or not isinstance(mapping.get(current), dict):
        current = _newest_leaf(mapping)
    chain: list[dict[str, Any]] = []
    seen: set[str] = set()
    while isinstance(current, str) and current not in seen:
        node = mapping.get(current)
        if not isinstance(node, dict):
            break
        seen.add(current)
        chain.append(node)
        current = node.get("parent")
    chain.reverse()
    return chain


def _newest_leaf(mapping: dict[str, Any]) -> str | None:
    best: tuple[float, str] | None = None
    for node_id, node in mapping.items():
        if not isinstance(node, dict) or node.get("children"):
            continue
        msg = node.get("message")
        at = msg.get("create_time") if isinstance(msg, dict) else None
        at = at if isinstance(at, int | float) and not isinstance(at, bool) else 0.0
        if best is None or (at, node_id) > best:
            best = (float(at), node_id)
    return best[1] if best else None


def _message(msg: dict[str, Any], when: str | None, unknown: dict[str, int]) -> Iterator[Message]:
    metadata = msg.get("metadata") if isinstance(msg.get("metadata"), dict) else {}
    content = msg.get("content") if isinstance(msg.get("content"), dict) else {}
    author = msg.get("author") if isinstance(msg.get("author"), dict) else {}
    role, kind = author.get("role"), content.get("content_type")
    if metadata.get("is_visually_hidden_from_conversation") or kind in _HIDDEN_TYPES:
        return
    base: dict[str, Any] = {"line": 0, "timestamp": when, "message_id": _str(msg.get("id"))}
    recipient = msg.get("recipient")
    if role == "user":
        text = _parts(content)
        if text.strip():
            yield Message(MessageKind.PROMPT, cap(text.strip(), PROMPT_CAP), **base)
        yield from _attachments(metadata, base)
    elif role == "assistant":
        model = _str(metadata.get("model_slug"))
        if kind in _THINKING_TYPES:
            text = _thoughts(content)
            if text.strip():
                yield Message(MessageKind.THINKING, cap(text.strip(), THINKING_CAP), **base)
        elif recipient not in (None, "all"):
            text = _str(content.get("text")) or _parts(content)
            yield Message(
                MessageKind.TOOL_CALL,
                cap(text, TOOL_INPUT_CAP),
                tool_name=clean_text(str(recipient)),
                tool_id=_str(msg.get("id")),
                version=model,
                **base,
            )
        elif kind in _REPLY_TYPES or kind == "code":
            text = _parts(content) if kind in _REPLY_TYPES else _code(content)
            if text.strip():
                yield Message(
                    MessageKind.REPLY, cap(text.strip(), PROMPT_CAP), version=model, **base
                )
        else:
            unknown[str(kind)] = unknown.get(str(kind), 0) + 1
    elif role == "tool":
        text = _tool_text(content)
        if text.strip():
            yield Message(
                MessageKind.TOOL_OUTPUT,
                cap(text, TOOL_OUTPUT_CAP),
                tool_name=_str(author.get("name")) or "tool",
                is_error=kind == "system_error",
                **base,
            )


def _attachments(metadata: dict[str, Any], base: dict[str, Any]) -> Iterator[Message]:
    """Each file uploaded with a prompt, by its name."""
    files = metadata.get("attachments")
    for item in files if isinstance(files, list) else []:
        name = _str(item.get("name")) if isinstance(item, dict) else None
        if name:
            yield Message(MessageKind.TOOL_CALL, name, tool_name=ATTACHMENT, files=(name,), **base)


def _parts(content: dict[str, Any]) -> str:
    """The text of `parts`: its strings, and the transcript of a voice clip."""
    parts = content.get("parts")
    out = []
    for part in parts if isinstance(parts, list) else []:
        if isinstance(part, str):
            out.append(part)
        elif isinstance(part, dict) and isinstance(part.get("text"), str):
            out.append(part["text"])
    # One blank between parts, as between the words of one text: a long message is
    # split into parts anywhere, and a command's words in parts read as one command.
    return _uncited(" ".join(p for p in out if p))


def _code(content: dict[str, Any]) -> str:
    """A block of code, kept as code: fenced, with its language."""
    text = _str(content.get("text")) or ""
    language = _str(content.get("language")) or ""
    language = "" if language == "unknown" else language
    return f"```{language}\n{text}\n```" if text.strip() else ""


def _thoughts(content: dict[str, Any]) -> str:
    steps = content.get("thoughts")
    out = []
    for step in steps if isinstance(steps, list) else []:
        if isinstance(step, dict):
            out.extend(s for s in (_str(step.get("summary")), _str(step.get("content"))) if s)
    recap = _str(content.get("content"))
    return "\n".join([*out, *([recap] if recap else [])])


def _tool_text(content: dict[str, Any]) -> str:
    """A tool's output: its text, its browsing result, the page it quoted, or its parts."""
    pieces: Iterable[str | None] = (
        _str(content.get("title")),
        _str(content.get("url")),
        _str(content.get("text")),
        _str(content.get("result")),
    )
    found = "\n".join(p for p in pieces if p)
    return _uncited(found) if found else _parts(content)


def _uncited(text: str) -> str:
    return _CITATION.sub("", text)


def _str(value: Any) -> str | None:
    return clean_text(value) if isinstance(value, str) and value else None
