"""Group a session's messages into turns, and derive its fingerprint and title.

Works on format-free `Message`s, so every source gets the same turns. A turn starts at
each typed prompt (the first may start without one: `numbered`); thinking, tool calls
and tool outputs go to a separate, capped text so they can be found by keyword but
never outweigh what the person and the agent said. A note's section is a turn of its
own, so `read --turn N` reads section N.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from findsession.domain import Message, MessageKind, MetaKind, Turn

#: Per turn, the tool text kept for keyword search.
TOOLS_TEXT_CAP = 16_000
#: Per tool output inside a turn's tool text: the start is what identifies it.
TOOL_OUTPUT_IN_TURN_CAP = 2_000
FINGERPRINT_CAP = 3_500
TITLE_CAP = 100


#: What opens a turn wherever it comes: a typed prompt, a note's section.
OPENERS = (MessageKind.PROMPT, MessageKind.SECTION)
#: What belongs to no turn: the harness's own text, a compaction's summary.
OUTSIDE = (MessageKind.HARNESS, MessageKind.COMPACT_SUMMARY)
#: What opens a turn when nothing typed did: what the agent said or did.
ACTS = (MessageKind.REPLY, MessageKind.TOOL_CALL)
#: Outputs kept, before the first prompt, for a turn a later reply may open.
_WAITING_CAP = 200


def numbered(messages: Iterable[Message]) -> Iterator[tuple[int, Message]]:
    """Each message that belongs to a turn, with its turn's number (from 1), in order.

    A turn opens at each typed prompt or note section. Words typed into a running turn
    (`STEER`) join it: as turns of their own, prompts queued while the agent worked cut
    long working turns in two, the task in one half and its results in the other, and
    questions about them were found lower (docs/benchmarks.md, "Real files read more
    faithfully"). Before the first prompt, a turn opens at what the agent said or did: a
    session started by a slash command (`/init`), a background task's notice or a file
    that begins mid-turn has replies and tool calls before anything was typed, and they
    are a turn without a prompt rather than lost (with the outputs and thinking just
    before them). Outputs alone before the first prompt (an agent's start-up banner)
    open nothing. Harness text and compaction
    summaries belong to no turn. A block some versions log twice for one reply (same
    message id, kind, tool call and text) is given once; two identical calls of one
    message are two. Everything that numbers turns (search's units, `read`, `handoff`,
    `blame`) numbers them here.
    """
    count = 0
    seen: set[tuple[str | None, str, str | None, str]] = set()
    waiting: list[Message] = []  # outputs before anything opened a turn
    for msg in messages:
        if msg.kind in OPENERS or (msg.kind is MessageKind.STEER and count == 0):
            # Words typed into a running turn steer it; before any turn, they open one.
            waiting.clear()
            count += 1
            seen = set()
            yield count, msg
            continue
        if msg.kind in OUTSIDE:
            continue
        key = (msg.message_id, msg.kind, msg.tool_id, msg.text)
        if msg.message_id and key in seen:
            continue
        seen.add(key)
        if count == 0:
            if msg.kind not in ACTS:
                if len(waiting) < _WAITING_CAP:
                    waiting.append(msg)
                continue
            count = 1
            yield from ((count, m) for m in waiting)
            waiting.clear()
        yield count, msg


def build_turns(messages: Iterable[Message]) -> list[Turn]:
    """Turns in order, numbered from 1 (`numbered`); the first may have no prompt.

    A `SECTION` message (a note's section) makes a turn of its own, with its heading.
    """
    return list(iter_turns(messages))


def iter_turns(messages: Iterable[Message]) -> Iterator[Turn]:
    """`build_turns` one turn at a time, each given once it is complete: a session of
    any length costs the memory of one turn (the indexer reads its messages in pages)."""
    turn: Turn | None = None
    replies: list[str] = []
    tools: list[str] = []

    def closed(done: Turn) -> Turn:
        done.reply = "\n\n".join(replies)
        done.tools_text = _join_capped(tools, TOOLS_TEXT_CAP)
        return done

    for ordinal, msg in numbered(messages):
        if turn is None or ordinal != turn.ordinal:
            if turn is not None:
                yield closed(turn)
            replies, tools = [], []
            opener = msg.kind in OPENERS or msg.kind is MessageKind.STEER
            turn = Turn(
                ordinal=ordinal,
                prompt=msg.text if opener else "",
                reply="",
                tools_text="",
                timestamp=msg.timestamp,
                end_timestamp=msg.timestamp,
                first_line=msg.line,
                last_line=msg.line,
                heading=(msg.heading or "") if msg.kind is MessageKind.SECTION else None,
            )
            if opener:
                continue
        turn.end_timestamp = msg.timestamp or turn.end_timestamp
        turn.last_line = msg.line
        if msg.kind is MessageKind.STEER:
            turn.prompt = f"{turn.prompt}\n\n{msg.text}" if turn.prompt else msg.text
        elif msg.kind is MessageKind.REPLY:
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
    if turn is not None:
        yield closed(turn)


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


def fingerprint(turns: Iterable[Turn]) -> Fingerprint | None:
    """None for sessions with fewer than two typed prompts: their one turn says it all.

    A note has none either: each of its sections is a unit titled by where it sits in
    the document, and its first and last sections say nothing together.
    """
    parts = FingerprintParts()
    for turn in turns:
        parts.add(turn)
    return parts.result()


class FingerprintParts:
    """What a fingerprint needs of turns seen one at a time: the first and last prompt,
    the last reply, and whether any turn is a note's section. `count` is every turn,
    `prompts` those with a prompt (a turn before the first typed one has none)."""

    def __init__(self) -> None:
        self.count = self.prompts = 0
        self.first = self.last = self.last_reply = ""
        self.notes = False

    def add(self, turn: Turn) -> None:
        share = FINGERPRINT_CAP // 3
        self.count += 1
        self.last_reply = turn.reply[:FINGERPRINT_CAP] or self.last_reply
        self.notes = self.notes or turn.heading is not None
        if not turn.prompt:
            return
        if self.prompts == 0:
            self.first = turn.prompt[:share]
        self.prompts += 1
        self.last = turn.prompt[:share]

    def result(self) -> Fingerprint | None:
        if self.prompts < 2 or self.notes:
            return None
        room = FINGERPRINT_CAP - len(self.first) - len(self.last)
        return Fingerprint(prompt=f"{self.first}\n\n{self.last}", reply=self.last_reply[:room])


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
        next((t.prompt for t in turns if t.prompt.strip()), None),
    ):
        if candidate and candidate.strip():
            return one_line(candidate, TITLE_CAP)
    return None


def one_line(text: str, cap: int) -> str:
    """Collapse whitespace and cut at `cap` characters with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= cap else flat[: cap - 1].rstrip() + "…"
