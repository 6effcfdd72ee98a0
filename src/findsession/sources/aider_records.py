"""What the lines of an Aider chat history mean: sessions, prompts, replies, notes.

Aider appends to `.aider.chat.history.md` as it runs (aider/io.py):

- each run starts with `# aider chat started at YYYY-MM-DD HH:MM:SS` (local time): one
  session per header;
- what the person typed is logged as `#### ` lines, one per typed line (a blank line
  before each input): consecutive `####` lines are one prompt, `/commands` included;
- aider's own notes, questions and command output are `> ` lines;
- the model's reply is the plain Markdown after a blank line, until the next `####` or
  `>` line (see `aider_replies` for the edits inside it).

Every `####` and `>` line aider writes ends with a Markdown line break (two spaces).
That mark tells aider's lines from the model's own `#### heading` or `> quote` once a
session shows it on a `####` line: one written by hand may have none, and a Markdown
formatter run over the file takes it off every `####` line and the last line of each
note (see `HistoryParser._reflowed` for how such a run is read).

Aider logs what it sends on the person's behalf as `####` lines too: `aider_sent` tells
those from what was typed.

cecli (Aider Community Edition, a fork) writes the same lines to `.cecli/chat.history`
(cecli/io.py), its header naming it: `# cecli chat started at …`, its version note
`cecli v…`. Both are read here.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from findsession.domain import Message, MessageKind, MetaEvent, MetaKind
from findsession.sources.aider_replies import REPLY_CAP, THINK_CLOSE, split_reply
from findsession.sources.aider_sent import (
    GROUP_ANSWER,
    HELP_QUESTION,
    OK_REQUEST,
    Said,
    asking,
    with_message,
)
from findsession.sources.cursor import Record
from findsession.sources.jsonl import cap, cut_point

#: How a run's header starts: Aider's, and cecli's (its fork, which names itself there).
HEADERS = ("# aider chat started at", "# cecli chat started at")
PROMPT_CAP = 100_000
NOTES_CAP = 4_000
#: Characters of one block held while reading it: past this the rest is counted, not kept.
_HOLD = REPLY_CAP + 4_096

_STAMP = re.compile(
    r"^# (?:aider|cecli) chat started at (\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)"
)
_VERSION = re.compile(r"^(?:Aider|cecli) v(\S+)")
TITLE_HOLD = 500


def is_header(text: str) -> bool:
    return text.startswith(HEADERS)


def session_key(header: str) -> str:
    """The part of a session id a header gives: its start time (`20251023-170456`), or a
    short hash of the header when it holds no time aider writes."""
    stamp = _STAMP.match(header)
    if stamp:
        y, mo, d, h, mi, s = stamp.groups()
        return f"{y}{mo}{d}-{h}{mi}{s}"
    return hashlib.blake2b(header.strip().encode(), digest_size=4).hexdigest()


def local_start(header: str) -> datetime | None:
    """The header's time as written: local, with no zone."""
    stamp = _STAMP.match(header)
    if not stamp:
        return None
    try:
        return datetime(*(int(g) for g in stamp.groups()))
    except ValueError:
        return None


def start_time(header: str) -> str | None:
    """The header's local time as UTC ISO text, read in this machine's time zone (aider
    writes no zone; the history is almost always read where aider ran)."""
    local = local_start(header)
    if local is None:
        return None
    try:
        moment = local.astimezone(UTC)
    except (ValueError, OverflowError, OSError):
        return None
    return moment.replace(tzinfo=None).isoformat(timespec="seconds") + "Z"


@dataclass
class _Block:
    """Consecutive lines of one kind: `prompt`, `notes` or `reply`."""

    kind: str
    lines: list[tuple[int, str]] = field(default_factory=list)
    held: int = 0
    total: int = 0
    #: A prompt block's text, to tell a copy of the reply before it.
    said: Said = field(default_factory=Said)

    def add(self, number: int, text: str) -> None:
        if self.kind == "prompt":
            self.said.add(text[5:] if text.startswith("#### ") else "")
        self.total += len(text) + 1
        if self.held < _HOLD:
            text = text[: _HOLD - self.held]
            self.lines.append((number, text))
            self.held += len(text) + 1


class HistoryParser:
    """Fed a history's lines in order, gives its records.

    Sessions after a header carry its key as `Message.session_key`, so a file of several
    runs gives several sessions; lines before the first header (a file cut at its start)
    keep the file's own session. Every message of a session carries the header's time:
    aider logs no other.
    """

    def __init__(self, cwd: str) -> None:
        self.cwd = cwd
        self.key: str | None = None
        self.ts: str | None = None
        self.version: str | None = None
        self.header_line: int | None = None
        #: The kinds of line (`prompt`, `notes`) this run has shown aider's mark on.
        self.marked: set[str] = set()
        self.named = False
        self.block: _Block | None = None
        self.after_blank = True
        #: The last reply since the last prompt (a reply aider's notes cut off, files
        #: added and the question sent again, is not the one the editor is sent), and
        #: that prompt when it was a command with a message (`/code X`) nothing has
        #: answered yet.
        self.replied = Said()
        self.command: tuple[str, str] | None = None
        #: The digest of the `####` block the last `feed` or `finish` ended, if it ended
        #: one (`aider_inputs` tells by it an input the history holds).
        self.typed: bytes | None = None

    def feed(self, number: int, text: str) -> list[Record]:
        """Records completed by this line (a block ends when the next one begins)."""
        if is_header(text):
            out = self.finish()
            self.key, self.ts = session_key(text), start_time(text)
            self.header_line, self.version = number, None
            self.marked, self.named = set(), False
            self.after_blank = True
            self.replied, self.command = Said(), None
            return out
        blank = not text.strip()
        kind = self._structural(text)
        block, out = self.block, []
        if kind == "prompt" and self._reformatted() and block is not None and block.kind == "reply":
            kind = None  # the model's own heading: aider logs a note before the next input
        if block is not None and block.kind == "reply" and kind is None:
            block.add(number, text)
        elif kind is not None:
            if (
                block is None
                or block.kind != kind
                or (self.after_blank and not self._reflowed(block, text))
            ):
                out = self.finish()
                self.block = _Block(kind)
            self.block.add(number, text)
        elif not blank:
            # Text right under a note continues it (aider logs a multi-line note with
            # only its first line quoted); after a blank line it is the model's reply.
            if block is None or block.kind != "notes" or self.after_blank:
                out = self.finish()
                self.block, self.replied = _Block("reply"), Said()
            self.block.add(number, text)
        if self.block is not None and self.block.kind == "reply" and kind is None:
            self.replied.add(text)
            if THINK_CLOSE.match(text):
                # The editor is sent the reply without the thinking before it.
                self.replied = Said()
            self.command = None if blank else self.command
        self.after_blank = blank
        return out

    def finish(self) -> list[Record]:
        """Records of the block being read: call at the end of the input."""
        block, self.block = self.block, None
        if block is None or not block.lines:
            return []
        common = self._common()
        if block.kind == "reply":
            return list(split_reply(_trimmed(block.lines), common))
        if block.kind == "prompt":
            return self._prompt(block, common)
        return self._notes(block, common)

    def _structural(self, text: str) -> str | None:
        """`prompt` or `notes` for a line aider wrote as one; None for other text."""
        if text.startswith("#### ") or text.rstrip() == "####":
            kind = "prompt"
        elif text.startswith("> ") or text.rstrip() == ">":
            kind = "notes"
        else:
            return None
        if text.endswith("  "):
            self.marked.add(kind)
        elif "prompt" in self.marked:
            return None  # the model's own heading or quote: aider marks every line it writes
        return kind

    def _reformatted(self) -> bool:
        """Whether this run reads as a Markdown formatter left it (see `_reflowed`)."""
        return "notes" in self.marked and "prompt" not in self.marked

    def _reflowed(self, block: _Block, text: str) -> bool:
        """Whether a `####` line after a blank one goes on with the input above it, as a
        Markdown formatter leaves a history (Prettier): it takes the mark off every
        `####` line, which it reads as a heading, puts a blank line between them, and
        keeps the marks inside a multi-line note. So in a run whose notes show the mark
        and whose `####` lines never do, the lines of one input are told apart only by
        those blank lines: they are one prompt, except a `/command` or `!shell` line,
        which is an input of its own (`/clear` then `/drop` log nothing between them).
        The model's own `#### heading` is then told by what is above it: its reply's
        text, where an input follows a note (`Tokens: …`, `Applied edit …`) or another
        input."""
        if block.kind != "prompt" or not self._reformatted():
            return False
        first = block.lines[0][1][5:]
        return not text[5:].startswith(("/", "!")) and not first.startswith(("/", "!"))

    def _common(self) -> dict[str, Any]:
        return {
            "timestamp": self.ts,
            "cwd": self.cwd,
            "version": self.version,
            "session_key": self.key,
        }

    def _prompt(self, block: _Block, common: dict[str, Any]) -> list[Record]:
        typed = [t[5:] if t.startswith("#### ") else "" for _, t in block.lines]
        text = "\n".join(t.rstrip() for t in typed).strip()
        line = block.lines[0][0]
        if not text:
            return []
        self.typed = block.said.digest.digest()
        if GROUP_ANSWER.fullmatch(text):
            # Aider answering a question itself: what came before (a reply the editor is
            # about to be sent, a `/code X` to be sent again) is still what it was.
            return [Message(MessageKind.HARNESS, text, line=line, **common)]
        echo = self._echoes(text, block)
        self.replied, self.command = Said(), None if echo else with_message(text)
        if text == "<blank>" or echo:  # Enter on an empty line, or aider's own message
            return [Message(MessageKind.HARNESS, _capped(text, block, PROMPT_CAP), line=line,
                            **common)]  # fmt: skip
        out: list[Record] = [
            Message(MessageKind.PROMPT, _capped(text, block, PROMPT_CAP), line=line, **common)
        ]
        name = None if self.named else asking(text)
        if name and self.header_line is not None:
            # The first prompt that asks something names the session better than an
            # `/add` of files; it takes the title slot that ranks above the first prompt.
            self.named = True
            name = name[: cut_point(name, TITLE_HOLD)]
            out.append(
                MetaEvent(MetaKind.LAST_PROMPT, name, self.header_line, session_key=self.key)
            )
        return out

    def _echoes(self, text: str, block: _Block) -> bool:
        """Whether a prompt block is aider sending what came just before it again: the
        reply (architect mode), or the message of a command (`/code X`)."""
        if block.said.same(self.replied):
            return True
        if self.command is None:
            return False
        name, message = self.command
        if "/ok".startswith(name):  # `/ok` (or `/o`) sends a request of its own
            return text.startswith(OK_REQUEST)
        return bool(message) and (text == message or text.startswith(HELP_QUESTION + message))

    def _notes(self, block: _Block, common: dict[str, Any]) -> list[Record]:
        texts = [t[2:] if t.startswith("> ") else t.lstrip(">") for _, t in block.lines]
        for t in texts:
            if found := _VERSION.match(t):
                self.version = found.group(1)
        text = "\n".join(t.rstrip() for t in texts).strip()
        if not text:
            return []
        line = block.lines[0][0]
        return [
            Message(MessageKind.TOOL_OUTPUT, _capped(text, block, NOTES_CAP), line=line, **common)
        ]


def _capped(text: str, block: _Block, limit: int) -> str:
    """`text` cut near `limit`, counting what the block held back as left out too."""
    left_out = block.total - block.held
    if left_out <= 0:
        return cap(text, limit)
    end = cut_point(text, limit)
    return text[:end] + f"\n[… {len(text) - end + left_out:,} more characters not indexed]"


def _trimmed(lines: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """Trailing whitespace of each line off (aider's line breaks are not text)."""
    return [(n, t.rstrip()) for n, t in lines]
