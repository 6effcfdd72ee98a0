"""A session exported as one Markdown file (`findsession export --format md`).

Prompts are quoted, replies kept as the agent wrote them (Markdown already), and what a
reader skims past (tool calls, their output, thinking, subagents) sits in `<details>`
blocks with its size, which GitHub, GitLab and most editors' previews fold. Code-like
text goes in fences longer than any run of backticks it holds, so no transcript can end
a block early; terminal control sequences are dropped (`printable`). No text of a
transcript is live HTML or an image to a renderer with HTML on (`md_inert`): the file
runs nothing and fetches nothing, like the HTML export.
"""

from __future__ import annotations

import html
import re
from typing import Any

from findsession.render.export_parts import (
    COLLAPSED,
    RAW_NOTE,
    REDACTED_NOTE,
    child_label,
    facts,
    placed,
    summary_line,
    title,
    turn_items,
    when,
)
from findsession.render.md_inert import Theirs, inert_document
from findsession.render.text import code_span, printable

#: Tags that would close or open our folds if a reply held them as prose.
_FOLD_TAG = re.compile(r"<(/?)(details|summary)\b", re.IGNORECASE)


def export_markdown(doc: dict[str, Any]) -> str:
    """The whole document, ending in a newline."""
    lines = [f"# {_inline(title(doc))}", ""]
    lines += [f"- **{label}:** {_inline(value)}" for label, value in facts(doc)]
    lines += ["", f"> {RAW_NOTE if doc['raw'] else REDACTED_NOTE}", ""]
    lines += _turns(doc, level=2)
    return inert_document(lines).rstrip("\n") + "\n"


def _turns(doc: dict[str, Any], level: int) -> list[str]:
    hashes = "#" * min(level, 6)
    out: list[str] = []
    for turn in doc["turns"]:
        stamp = when(turn["timestamp"])
        out += [f"{hashes} Turn {turn['turn']}" + (f" · {stamp}" if stamp else ""), ""]
        for message, child in turn_items(doc, turn):
            out += _message(message)
            if child is not None:
                out += _child(child, level)
    _, loose = placed(doc)
    if loose:
        out += [f"{hashes} Subagents", ""]
        for child in loose:
            out += _child(child, level)
    return out


def _message(message: dict[str, Any]) -> list[str]:
    text = printable(message["text"]).rstrip()
    kind = message["kind"]
    if kind in COLLAPSED:
        return [
            f"<details><summary>{html.escape(summary_line(message))}</summary>",
            "",
            *_fenced(text),
            "",
            "</details>",
            "",
        ]
    if kind == "prompt":
        label = "**Typed while the agent worked**" if message.get("steers") else "**Prompt**"
        return [label, "", *_quoted(text), ""]
    if kind == "section" and message.get("heading"):
        return [f"**{_inline(printable(message['heading']))}**", "", _prose(text), ""]
    return [_prose(text), ""]


def _child(child: dict[str, Any], level: int) -> list[str]:
    out = [f"<details><summary>{html.escape(child_label(child))}</summary>", ""]
    document = child.get("document")
    if document is None:
        first = printable(child.get("first_prompt") or "").strip()
        out += [f"(session {code_span(child['id'])}; its turns are not in this file)", ""]
        if first:
            out += [*_quoted(first), ""]
    else:
        out += [f"Session {code_span(document['session']['id'])}", ""]
        out += _turns(document, level + 1)
    return [*out, "</details>", ""]


def _fenced(text: str) -> list[str]:
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence, Theirs(text), fence]


def _quoted(text: str) -> list[str]:
    """What the person typed, as a quote."""
    return [Theirs(f"> {line}".rstrip()) for line in text.splitlines()]


def _prose(text: str) -> str:
    """An agent's Markdown as it is, except tags that would fold or unfold ours (and,
    once the document is whole, any markup a renderer would run: `md_inert`)."""
    return Theirs(_FOLD_TAG.sub(lambda m: f"&lt;{m.group(1)}{m.group(2)}", text))


def _inline(text: str) -> str:
    """One line of a header: its line breaks and Markdown's emphasis marks defused."""
    flat = " ".join(text.split())
    return re.sub(r"([\\`*_\[\]<>#|])", r"\\\1", flat)
