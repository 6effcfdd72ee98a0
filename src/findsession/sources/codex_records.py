"""What Codex CLI's rollout lines mean: each `{timestamp, type, payload}` line mapped to
format-free records, by a parser that carries what a rollout spreads over lines.

Visible text is written twice: as a `response_item` (what the model saw and said) and as an
`event_msg` (what the app showed). One copy is kept of each:

- what the person typed comes from `event_msg` `user_message`, the only record that holds
  just that (`codex_prompts`: what else a `response_item` user message carries); 0.17x
  writes none, and its `item_completed` event with a `UserMessage` item holds it. A rollout
  written before Codex recorded events has only `response_item`s: there a user message is
  the prompt, less what Codex injected (the parser learns which case it is in from the
  first event);
- the reply, reasoning and tool calls come from `response_item`s, which every generation
  writes; the `event_msg` copies (`agent_message`, `agent_reasoning`, `exec_command_end`)
  are passed over.

A forked or spawned rollout may start with a replay of its parent's history, which is
dropped (`codex_replay`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from findsession.domain import Message, MessageKind, MetaEvent, MetaKind
from findsession.sources.claude_code_records import PROMPT_CAP, THINKING_CAP
from findsession.sources.codex_items import (
    agent_said,
    block_type,
    texts,
    tool_call,
    tool_output,
    tools_found,
)
from findsession.sources.codex_prompts import injected_cwd, typed_in, typed_text
from findsession.sources.codex_replay import ReplayGate
from findsession.sources.cursor import Record
from findsession.sources.jsonl import cap, text_or_none

_CALLS = ("function_call", "custom_tool_call", "local_shell_call", "web_search_call",
          "tool_search_call")  # fmt: skip
_RESPONSE_TYPES = frozenset(
    ("message", "reasoning", "function_call_output", "custom_tool_call_output",
     "tool_search_output", *_CALLS)
)  # fmt: skip


@dataclass
class ParseState:
    """What a read leaves for the next one, kept in the cursor: whether the rollout has
    events (so its `response_item` user messages are not prompts), and whether a parent's
    replay was still going on where the read stopped."""

    events: bool = False
    replaying: bool = False
    #: A task is running (`task_started` read, its end not yet) and was already prompted:
    #: a further `user_message` was typed into it.
    running: bool = False
    prompted: bool = False
    #: The running task's words came as a `UserMessage` item, not a `user_message`.
    by_items: bool = False


class RolloutParser:
    """Turns a rollout's lines into records, in file order, one parser per read."""

    def __init__(self, session_id: str, state: ParseState | None = None) -> None:
        self.session_id = session_id
        #: True when this read goes on from a cursor: the file's own meta was read before.
        self.resumed = state is not None
        self.events = state.events if state else False
        self.running = state.running if state else False
        self.prompted = state.prompted if state else False
        self.by_items = state.by_items if state else False
        #: A resumed read found events in a rollout first read as one without them.
        self.mode_changed = False
        self.own_meta_seen = self.resumed
        self.gate = ReplayGate(session_id)
        self.cwd: str | None = None
        self.branch: str | None = None
        self.version: str | None = None
        #: Lines whose prompt came from a `response_item` before any event was seen.
        self.provisional: set[int] = set()

    @property
    def state(self) -> ParseState:
        return ParseState(events=self.events, replaying=self.gate.shut, running=self.running,
                          prompted=self.prompted, by_items=self.by_items)  # fmt: skip

    def parse(self, line: int, obj: dict[str, Any]) -> list[Record]:
        """Records of one line; anything unknown gives none."""
        kind, payload = obj.get("type"), obj.get("payload")
        kind = kind if isinstance(kind, str) else None  # looked up in sets below
        ts = text_or_none(obj.get("timestamp"))
        if not isinstance(payload, dict):
            # The first rollouts (2025) wrote the meta bare on line 1, then bare items.
            if kind in _RESPONSE_TYPES:
                kind, payload = "response_item", obj
            elif line == 1 and kind is None and isinstance(obj.get("id"), str):
                kind, payload = "session_meta", obj
            else:
                return []
        if kind == "session_meta":
            self._meta(payload, ts)
            return []
        if self.gate.shut and not self.gate.opens(kind, payload):
            return []
        if kind == "turn_context":
            self.cwd = text_or_none(payload.get("cwd")) or self.cwd
            return []
        common = {"line": line, "timestamp": ts, "cwd": self.cwd, "git_branch": self.branch,
                  "version": self.version}  # fmt: skip
        if kind == "event_msg":
            return self._event(payload, common)
        if kind == "response_item":
            meta = obj.get("metadata")
            if isinstance(meta, dict) and meta.get("compaction_output") is True:
                # A local compaction's answer (0.17x): the `compacted` line holds it.
                return []
            records = self._item(payload, common)
        elif kind == "compacted":
            # A real history holds `"message": ""`: a compaction with no summary.
            text = text_or_none(payload.get("message"))
            records = (
                [Message(MessageKind.COMPACT_SUMMARY, cap(text, PROMPT_CAP), **common)]
                if text and text.strip()
                else []
            )
        else:
            return []
        return [
            _with_uuid(r, f"codex:{self.session_id}:{line}:{part}")
            for part, r in enumerate(records)
        ]

    def finish(self, records: list[Record]) -> list[Record]:
        """The read's records, less the provisional prompts if events turned up later."""
        if not self.events or not self.provisional:
            return records
        return [r for r in records if not self._provisional(r)]

    def _provisional(self, record: Record) -> bool:
        return (
            isinstance(record, Message)
            and record.kind is MessageKind.PROMPT
            and record.line in self.provisional
        )

    # -- session meta

    def _meta(self, payload: dict[str, Any], ts: str | None) -> None:
        meta_id = text_or_none(payload.get("id"))
        if not self.own_meta_seen:
            self.own_meta_seen = True
            self.cwd = text_or_none(payload.get("cwd"))
            git = payload.get("git")
            self.branch = text_or_none(git.get("branch")) if isinstance(git, dict) else None
            self.version = text_or_none(payload.get("cli_version"))
            self.gate.created(meta_id, text_or_none(payload.get("timestamp")), ts)
            if payload.get("forked_from_id"):
                self.gate.arm()
        elif meta_id and meta_id != self.session_id:
            self.gate.arm()  # another thread's meta: its history follows

    # -- events: the typed prompt, and titles

    def _event(self, payload: dict[str, Any], common: dict[str, Any]) -> list[Record]:
        if not self.events:
            self.events = True
            self.mode_changed = self.resumed
        kind = payload.get("type")
        line = common["line"]
        if kind in ("task_started", "turn_started"):
            self.running, self.prompted = True, False
            return []
        if kind in ("task_complete", "turn_complete", "turn_aborted"):
            self.running = self.prompted = False
            return []
        if kind == "thread_name_updated":
            name = (text_or_none(payload.get("thread_name")) or "").strip()
            return [MetaEvent(MetaKind.AI_TITLE, name, line)] if name else []
        if kind == "item_completed":
            item = payload.get("item")
            if not isinstance(item, dict) or item.get("type") != "UserMessage":
                return []  # the other items copy what the `response_item`s hold
            content = item.get("content") if isinstance(item.get("content"), list) else []
            text = typed_text(texts([b for b in content if block_type(b) == "text"]))
            images = [b for b in content if "image" in str(block_type(b))]
            return self._typed(text, bool(images), common, from_item=True)
        if kind != "user_message" or payload.get("kind") not in (None, "plain"):
            return []
        text = typed_text(text_or_none(payload.get("message")) or "")
        images = payload.get("images") or payload.get("local_images")
        return self._typed(text, bool(images), common, from_item=False)

    def _typed(
        self, text: str, images: bool, common: dict[str, Any], from_item: bool
    ) -> list[Record]:
        """What the person typed: a `user_message` event, or (0.17x, which writes none)
        the `UserMessage` item of an `item_completed` event."""
        if not text:
            if not images:
                return []
            text = "[image]"
        if self.running and self.prompted and self.by_items != from_item:
            # The task's words came as the other record: a version that writes both
            # holds the same words twice.
            return []
        # Sent while the task runs, after the words that began it: Codex adds it to the
        # running turn (it opens no task), so it steers that turn. The rollout's own
        # `session_meta` written again ends no task: the VS Code extension (0.14x) writes
        # it inside running tasks too.
        steers = self.running and self.prompted
        if not steers:
            self.by_items = from_item
        self.prompted = self.running
        kind = MessageKind.STEER if steers else MessageKind.PROMPT
        message = Message(kind, cap(text, PROMPT_CAP), **common)
        return [_with_uuid(message, f"codex:{self.session_id}:{common['line']}:0")]

    # -- response items: the reply, reasoning, tool calls and outputs

    def _item(self, payload: dict[str, Any], common: dict[str, Any]) -> list[Message]:
        kind = payload.get("type")
        if kind == "message":
            return self._message(payload, common)
        if kind == "reasoning":
            parts = [texts(payload.get("summary")), texts(payload.get("content"))]
            text = "\n".join(p for p in parts if p).strip()
            if not text:
                return []
            return [Message(MessageKind.THINKING, cap(text, THINKING_CAP), **common)]
        if kind in _CALLS:
            return [tool_call(kind, payload, common)]
        if kind in ("function_call_output", "custom_tool_call_output"):
            return [tool_output(payload, common)]
        if kind == "tool_search_output":
            return [tools_found(payload, common)]
        if kind == "agent_message":
            return agent_said(payload, common)
        return []

    def _message(self, payload: dict[str, Any], common: dict[str, Any]) -> list[Message]:
        role, content = payload.get("role"), payload.get("content")
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        if not isinstance(content, list):
            return []
        if role == "assistant":
            out: list[Message] = []
            thought = texts([b for b in content if block_type(b) == "reasoning"])
            if thought:
                out.append(Message(MessageKind.THINKING, cap(thought, THINKING_CAP), **common))
            said = texts([b for b in content if block_type(b) in ("output_text", "text")])
            if said:
                out.append(Message(MessageKind.REPLY, cap(said, PROMPT_CAP), **common))
            return out
        if role != "user" or self.events:
            return []
        if self.cwd is None:
            # The first rollouts name the project folder only in the injected environment.
            self.cwd = common["cwd"] = injected_cwd(content)
        text = typed_in(content)
        if not text:
            return []
        self.provisional.add(common["line"])
        return [Message(MessageKind.PROMPT, cap(text, PROMPT_CAP), **common)]


def _with_uuid(record: Record, uuid: str) -> Record:
    """Each message gets an id made of the session, line and part: a copy of a rollout (an
    archive, a compressed twin read after its plain file went) then replays, not doubles."""
    if isinstance(record, Message) and record.uuid is None:
        return replace(record, uuid=uuid)
    return record
