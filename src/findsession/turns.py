"""Group a session's messages into turns, and derive its fingerprint and title.

Works on format-free `Message`s, so every source gets the same turns. A turn starts at
each typed prompt; thinking, tool calls and tool outputs go to a separate, capped text so
they can be found by keyword but never outweigh what the person and the agent said. A
note's section is a turn of its own, so `read --turn N` reads section N.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from findsession.domain import Message, MessageKind, MetaKind, Turn

#: Per turn, the tool text kept for keyword search.
TOOLS_TEXT_CAP = 16_000
#: Per tool output inside a turn's tool text: the start is what identifies it.
TOOL_OUTPUT_IN_TURN_CAP = 2_000
FINGERPRINT_CAP = 3_500
TITLE_CAP = 100


def build_turns(messages: Sequence[Message]) -> list[Turn]:
    """Turns in order, numbered from 1; messages before the first prompt are dropped.

    A `SECTION` message (a note's section) makes a turn of its own, with its heading.
    """
    turns: list[Turn] = []
    replies: list[str] = []
    tools: list[str] = []
    seen_blocks: set[tuple[str | None, str, str]] = set()

    def close() -> None:
        if turns:
            turn = turns[-1]
            turn.reply = "\n\n".join(replies)
            turn.tools_text = _join_capped(tools, TOOLS_TEXT_CAP)

    for msg in messages:
        if msg.kind in (MessageKind.PROMPT, MessageKind.SECTION):
            close()
            replies, tools, seen_blocks = [], [], set()
            turns.append(
                Turn(
                    ordinal=len(turns) + 1,
                    prompt=msg.text,
                    reply="",
                    tools_text="",
                    timestamp=msg.timestamp,
                    end_timestamp=msg.timestamp,
                    first_line=msg.line,
                    last_line=msg.line,
                    heading=(msg.heading or "") if msg.kind is MessageKind.SECTION else None,
                )
            )
            continue
        if not turns or msg.kind in (MessageKind.HARNESS, MessageKind.COMPACT_SUMMARY):
            continue
        turn = turns[-1]
        # One API reply is split over several lines sharing message.id, and some
        # versions log a block twice: keep each block once.
        key = (msg.message_id, msg.kind, msg.text)
        if msg.message_id and key in seen_blocks:
            continue
        seen_blocks.add(key)
        turn.end_timestamp = msg.timestamp or turn.end_timestamp
        turn.last_line = msg.line
        if msg.kind is MessageKind.REPLY:
            replies.append(msg.text)
        elif msg.kind is MessageKind.THINKING:
            tools.append(msg.text)
        elif msg.kind is MessageKind.TOOL_CALL:
            if msg.tool_name and msg.tool_name not in turn.tool_names:
                turn.tool_names.append(msg.tool_name)
            for path in msg.files:
                if path not in turn.files:
                    turn.files.append(path)
            tools.append(f"{msg.tool_name}: {msg.text}")
        elif msg.kind is MessageKind.TOOL_OUTPUT:
            tools.append(msg.text[:TOOL_OUTPUT_IN_TURN_CAP])
    close()
    return turns


def _join_capped(parts: list[str], cap: int) -> str:
    out, used = [], 0
    for part in parts:
        if used + len(part) > cap:
            out.append(part[: max(0, cap - used)])
            break
        out.append(part)
        used += len(part) + 1
    return "\n".join(out)


@dataclass(frozen=True, slots=True)
class Fingerprint:
    """First prompt + last prompt (the prompt field) and last reply, within the cap."""

    prompt: str
    reply: str


def fingerprint(turns: Sequence[Turn]) -> Fingerprint | None:
    """None for sessions with fewer than two typed prompts: their one turn says it all.

    A note has none either: each of its sections is a unit titled by where it sits in
    the document, and its first and last sections say nothing together.
    """
    if len(turns) < 2 or any(t.heading is not None for t in turns):
        return None
    share = FINGERPRINT_CAP // 3
    first, last = turns[0].prompt[:share], turns[-1].prompt[:share]
    last_reply = next((t.reply for t in reversed(turns) if t.reply), "")
    room = FINGERPRINT_CAP - len(first) - len(last)
    return Fingerprint(prompt=f"{first}\n\n{last}", reply=last_reply[:room])


def choose_title(
    meta: dict[MetaKind, str],
    trusted_summary: str | None,
    turns: Sequence[Turn],
    agent_label: str | None = None,
    index_title: str | None = None,
) -> str | None:
    """Claude Code's `/resume` order: custom title, AI title, last prompt, first prompt.

    A trusted summary (Claude Code 1.0's title) comes after the AI title, and a
    subagent without any of these is named by its agent type and task. A title
    `findsession titles` kept in the index (for a format with no place for one) stands
    where a custom title would: after the person's own, before the agent's.
    """
    for candidate in (
        meta.get(MetaKind.CUSTOM_TITLE),
        index_title,
        meta.get(MetaKind.AI_TITLE),
        trusted_summary,
        agent_label,
        meta.get(MetaKind.LAST_PROMPT),
        turns[0].prompt if turns else None,
    ):
        if candidate and candidate.strip():
            return one_line(candidate, TITLE_CAP)
    return None


def one_line(text: str, cap: int) -> str:
    """Collapse whitespace and cut at `cap` characters with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= cap else flat[: cap - 1].rstrip() + "…"
