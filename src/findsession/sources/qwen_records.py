"""What Qwen Code's chat records mean: each `{uuid, parentUuid, type, subtype, message}`
line mapped to format-free records, and the branch of the tree that is the session now.

A record's `message` is the model's own content, `{role: user|model, parts}`, with
Gemini-style parts: `{text}` (`thought: true` for reasoning), `{functionCall}`,
`{functionResponse}`. The parts are put into the block shapes Claude Code writes and
read by the same mapping (`claude_code_records.parse_record`), so a prompt, a reply, a
tool call and its output mean the same thing whichever agent wrote them.

Records form a tree through `parentUuid`. `/rewind` re-roots the chain: it appends a
`system` record of subtype `rewind` whose parent is the record before the turn taken
back, and the next turns hang from it. What the session holds now is the chain from the
last record up to the root (`active_lines`); the turns left on the other branch were
taken back by the person, as a Gemini CLI `$rewindTo` is.

A message with `@file` references is recorded twice: what was typed in an `at_command`
system record (`userText`), then what was sent, the text with the files' content after
it, as the next `user` record. The prompt is what was typed, as Qwen Code shows it when
a session is resumed; the files' content is not the person's (Gemini CLI's reader cuts
it off the same way).

`/branch` (also `/fork`) writes a new chat that begins with a copy of every record of
the session it was typed in, the same `uuid`s, each marked `forkedFrom`, as Claude Code's
`/branch` does: those records are that session's and give nothing here; the branch's
own turns follow them.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from findsession.domain import Message, MessageKind, MetaEvent, MetaKind
from findsession.sources.claude_code_records import copied_by_branch, parse_record
from findsession.sources.cursor import Record
from findsession.sources.jsonl import clean_text

#: User records that are not typed: a background task's or a schedule's message, and
#: the nudge a `/goal` sends the model each turn ("Continue working on the active Goal").
_INJECTED_SUBTYPES = frozenset(("notification", "cron", "goal_runtime"))
#: What a hook adds to the prompt, as a last part of its own.
_HOOK_PART = "<qwen:"


class QwenParser:
    """Turns a chat file's lines into records, remembering the tree as it goes."""

    def __init__(self) -> None:
        #: uuid -> parentUuid of every record read, sidechains aside.
        self.parents: dict[str, str | None] = {}
        #: line -> the uuid its record carries, for lines that gave records.
        self.line_uuid: dict[int, str] = {}
        self.last_uuid: str | None = None
        #: A `rewind` record was read: some earlier turns may be off the branch now.
        self.rewound = False
        #: What was typed with `@file` references, for the next user record.
        self.typed: str | None = None

    def parse(self, line: int, obj: dict[str, Any]) -> list[Record]:
        """Records of one line; unknown kinds give none."""
        kind, subtype = obj.get("type"), _str(obj.get("subtype"))
        uuid = _str(obj.get("uuid"))
        agent = _str(obj.get("agentId")) if obj.get("isSidechain") is True else None
        if uuid is not None and agent is None:
            parent = _str(obj.get("parentUuid"))
            self.parents.setdefault(uuid, parent)
            self.last_uuid = uuid
            self.line_uuid[line] = uuid
        if copied_by_branch(obj):
            return []  # the session `/branch` copied it from holds it (its place kept above)
        if kind == "system":
            return self._system(subtype, obj, line)
        if kind not in ("user", "assistant", "tool_result"):
            return []
        records = self._message(obj, line)
        if kind == "user" and subtype is None and agent is None and self.typed is not None:
            records = _as_typed(records, self.typed)
            self.typed = None
        if agent is not None:
            # A subagent's records are written inline: they become its own session.
            records = [replace(r, session_key=agent) for r in records]
        if kind == "user" and subtype in _INJECTED_SUBTYPES:
            records = [
                replace(r, kind=MessageKind.HARNESS) if r.kind is MessageKind.PROMPT else r
                for r in records
            ]
        return records

    def active(self, records: list[Record]) -> list[Record]:
        """The records on the chain from the last record to the root, and those outside
        the tree (titles, subagents): what the session holds after every rewind."""
        chain: set[str] = set()
        node = self.last_uuid
        while node is not None and node not in chain:
            chain.add(node)
            node = self.parents.get(node)
        return [
            r
            for r in records
            if isinstance(r, MetaEvent)
            or r.session_key is not None
            or self.line_uuid.get(r.line, "") in chain
            or r.line not in self.line_uuid
        ]

    def _system(self, subtype: Any, obj: dict[str, Any], line: int) -> list[Record]:
        if subtype == "rewind":
            self.rewound = True
            return []
        payload = obj.get("systemPayload")
        if subtype == "at_command" and isinstance(payload, dict):
            typed = _str(payload.get("userText"))
            self.typed = typed.strip() if typed and typed.strip() else None
            return []
        if subtype == "goal_state" and isinstance(payload, dict):
            return self._goal(obj, payload, line)
        if subtype == "custom_title" and isinstance(payload, dict):
            title = _str(payload.get("customTitle"))
            if title and title.strip():
                # A title the model proposed may be replaced; one the person gave wins.
                auto = payload.get("titleSource") == "auto"
                kind = MetaKind.AI_TITLE if auto else MetaKind.CUSTOM_TITLE
                return [MetaEvent(kind, title.strip(), line)]
        return []

    def _goal(self, obj: dict[str, Any], payload: dict[str, Any], line: int) -> list[Record]:
        """A `/goal`'s objective, when the person set it: the only place the CLI keeps
        what was typed after `/goal` (0.24). Its later states (a turn finished, paused)
        repeat it and give nothing."""
        snapshot = payload.get("snapshot")
        goal = snapshot.get("goal") if isinstance(snapshot, dict) else None
        objective = _str(goal.get("objective")) if isinstance(goal, dict) else None
        if payload.get("cause") != "create" or not objective or not objective.strip():
            return []
        typed = {**obj, "type": "user", "message": {"role": "user", "parts": [{"text": objective}]}}
        return self._message(typed, line)

    def _message(self, obj: dict[str, Any], line: int) -> list[Record]:
        message = obj.get("message")
        parts = message.get("parts") if isinstance(message, dict) else None
        if not isinstance(parts, list):
            return []
        role = "assistant" if obj.get("type") == "assistant" else "user"
        blocks = [b for p in parts if isinstance(p, dict) for b in _blocks(p, role)]
        payload = obj.get("systemPayload")
        shown = _str(payload.get("displayText")) if isinstance(payload, dict) else None
        if role == "user" and shown and shown.strip():
            # What the person typed, before `@file` expansion and hooks.
            blocks = [b for b in blocks if b["type"] != "text"]
            blocks.append({"type": "text", "text": shown})
        claude_shaped = {
            "type": role,
            "timestamp": obj.get("timestamp"),
            "cwd": obj.get("cwd"),
            "gitBranch": obj.get("gitBranch"),
            "version": obj.get("version"),
            "message": {"role": role, "content": blocks},
        }
        return list(parse_record(claude_shaped, line, in_subagent_file=True))


def _as_typed(records: list[Record], typed: str) -> list[Record]:
    """A user record's records with what was typed as its prompt in place of what was
    sent (the text and the referenced files' content)."""
    sent = next(
        (r for r in records if isinstance(r, Message) and r.kind is MessageKind.PROMPT), None
    )
    return [replace(r, text=typed) if r is sent else r for r in records]


def _blocks(part: dict[str, Any], role: str) -> list[dict[str, Any]]:
    """One part in the block shapes Claude Code writes; none for what it cannot show."""
    text = part.get("text")
    if isinstance(text, str):
        if part.get("thought") is True:
            return [{"type": "thinking", "thinking": text}]
        if role == "user" and text.lstrip().startswith(_HOOK_PART):
            return []
        return [{"type": "text", "text": text}]
    call = part.get("functionCall")
    if isinstance(call, dict):
        args = call.get("args")
        return [
            {
                "type": "tool_use",
                "id": call.get("id"),
                "name": call.get("name"),
                "input": args if isinstance(args, dict) else {"args": args},
            }
        ]
    response = part.get("functionResponse")
    if isinstance(response, dict):
        return [
            {
                "type": "tool_result",
                "tool_use_id": response.get("id"),
                "content": _response_text(response.get("response")),
                "is_error": _failed(response.get("response")),
            }
        ]
    return []


def _response_text(response: Any) -> str:
    """A tool's response: its `output` (or `error`) when it has one, else the JSON."""
    if isinstance(response, dict):
        for key in ("output", "error", "llmContent"):
            if isinstance(response.get(key), str):
                return response[key]
    if isinstance(response, str):
        return response
    return "" if response is None else json.dumps(response, ensure_ascii=False)


def _failed(response: Any) -> bool:
    return isinstance(response, dict) and "error" in response and "output" not in response


def _str(value: Any) -> str | None:
    return clean_text(value) if isinstance(value, str) and value else None
