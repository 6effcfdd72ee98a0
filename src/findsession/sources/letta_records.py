"""What Letta Code's local transcript lines mean, as Pi's session entries do
(`pi_records`), with what Letta Code writes otherwise.

Its local backend stores pi-ai's messages in Pi's session format, so a line is read as
Pi's is, after three changes:

- a message of the older format (`pi-ai-message-jsonl`: the message alone on its line,
  `{id, role, content, ...}`) is read as the `message` entry that holds it now;
- a failed `Bash` call's result is marked failed: the store keeps no status of a
  result (every one it keeps from the CLI says `isError: false`), and Bash's failure is
  the text it starts with, `Exit code: <n>` (or `Terminated by signal before exiting`),
  after a line noting the working folder it fell back to, if any;
- a result is given the name of its tool (`toolName`, which Pi's results do not have);
- a summary Letta wrote for a compaction in the older format (a `user` message whose
  `metadata.compaction` is set) is a summary, not a prompt;
- a message appended again under its id replaces its earlier copy (`Copies`).

What Letta Code puts in front of what the person typed (its `<system-reminder>` blocks:
the device, the agent, the permission mode) are text blocks of the same user message,
left out of the prompt as Claude Code's are (`claude_code_records`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from findsession.domain import Message, MessageKind
from findsession.sources.cursor import Record
from findsession.sources.jsonl import clean_text
from findsession.sources.pi_records import PiParser

_ROLES = frozenset(("user", "assistant", "toolResult"))
#: The entries Letta Code appends, each holding a message (`isLocalTranscriptAppendEntry`).
_ENTRIES = frozenset(("message", "compaction"))
#: Message ids remembered across reads to know one appended again: Letta Code appends
#: again only the message it holds last, so the id is among the last few of the file.
RECENT_IDS = 64
#: How Letta Code's Bash tool starts the result of a command that failed.
_FAILED = re.compile(
    r"\A(?:Note: working directory .* no longer exists; running in .*\n)?"
    r"(?:Exit code: -?\d+|Terminated by signal before exiting)\n"
)


class Copies:
    """Which line holds each message as Letta Code keeps it: the last one with its id.

    Letta Code appends a message again, under the same id, when it changes one it has
    stored: a reply cut short by a provider's error that the retry of the turn finishes
    (the retry sends no new message, so the new reply goes on the stored one). Its reader
    keeps the last copy of each id (`setLatestLocalMessage`); so do we, dropping the
    records of a line whose message a later line holds again. `before` are the ids of
    the last messages read before the cursor: one of them appended again means a copy
    already indexed is to go (`again`)."""

    def __init__(self, before: Iterable[str] = ()) -> None:
        self.recent = list(before)
        self._before = set(self.recent)
        self._line_of: dict[str, int] = {}
        self.replaced: set[int] = set()
        self.again = False

    def note(self, line: int, message_id: str) -> None:
        """`line` holds the message `message_id`, replacing any earlier copy."""
        self.again = self.again or message_id in self._before
        earlier = self._line_of.get(message_id)
        if earlier is not None and earlier != line:
            self.replaced.add(earlier)
        self._line_of[message_id] = line
        if message_id in self.recent:
            self.recent.remove(message_id)
        self.recent.append(message_id)
        del self.recent[:-RECENT_IDS]

    def kept(self, records: list[Record]) -> list[Record]:
        """`records` less those of the lines a later copy replaced."""
        if not self.replaced:
            return records
        return [r for r in records if r.line not in self.replaced]


class LettaParser:
    """Turns a transcript's lines into records; knows the header's working directory and
    which copy of each message is the last (`copies`)."""

    def __init__(self, cwd: str | None = None, before: Iterable[str] = ()) -> None:
        self._pi = PiParser(cwd)
        self.copies = Copies(before)

    def parse(self, line: int, obj: dict[str, Any]) -> list[Record]:
        """Records of one line; unknown entries give none."""
        role = obj.get("role")
        if "type" not in obj and isinstance(role, str) and role in _ROLES:  # the older format
            created = obj.get("metadata", {}) if isinstance(obj.get("metadata"), dict) else {}
            obj = {"type": "message", "timestamp": created.get("created_at"), "message": obj}
        message = obj.get("message")
        message_id = message.get("id") if isinstance(message, dict) else None
        entry = obj.get("type")
        holds_message = isinstance(entry, str) and entry in _ENTRIES
        if holds_message and isinstance(message_id, str) and message_id:
            self.copies.note(line, message_id)
        if obj.get("type") == "message" and isinstance(message, dict):
            obj = {**obj, "message": _marked(message)}
            if message.get("role") == "user" and _compaction(message):
                obj = {**obj, "type": "compaction", "summary": _text(message)}
        records = self._pi.parse(line, obj)
        tool = message.get("toolName") if isinstance(message, dict) else None
        if isinstance(tool, str) and tool:  # the result names its tool, as Pi's does not
            return [_named(rec, clean_text(tool)) for rec in records]
        return records


def _named(rec: Record, tool: str) -> Record:
    if isinstance(rec, Message) and rec.kind is MessageKind.TOOL_OUTPUT and not rec.tool_name:
        return replace(rec, tool_name=tool)
    return rec


def _marked(message: dict[str, Any]) -> dict[str, Any]:
    """A failed Bash call's result marked failed; any other message as it is."""
    if message.get("role") != "toolResult" or message.get("toolName") != "Bash":
        return message
    if message.get("isError") is True or not _FAILED.match(_text(message)):
        return message
    return {**message, "isError": True}


def _compaction(message: dict[str, Any]) -> bool:
    metadata = message.get("metadata")
    return isinstance(metadata, dict) and bool(metadata.get("compaction"))


def _text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    parts = [b.get("text") for b in content if isinstance(b, dict) and b.get("type") == "text"]
    return "\n".join(p for p in parts if isinstance(p, str))
