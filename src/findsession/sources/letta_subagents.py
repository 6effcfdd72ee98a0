"""Whether a Letta Code conversation is a subagent's, and the conversation that started it.

Letta Code runs a subagent (its `Agent` tool) as a new agent in a process of its own,
in the same storage folder: the agent's file, `agents/<agent id in base64url>.json`, is
tagged `role:subagent`, `type:<subagent type>` and `parent:<parent agent id>`, and the
subagent works in that agent's default conversation. The conversation that started it
is named in the first message the subagent is sent, a `<system-reminder>` before its
task: "This message is from agent <agent id>, conversation <conversation id>." (the
parent's conversation id, or `default` for its agent's default conversation). The same
reminder begins a message one agent sends another (`SendAgentMessage`), so only an
agent tagged `role:subagent` is taken for a subagent.
"""

from __future__ import annotations

import base64
import json
import re
from dataclasses import dataclass
from pathlib import Path

from findsession.sources.json_doc import side_object
from findsession.sources.opening import open_regular

#: How much of a transcript is looked at for its first message.
_HEAD = 256 << 10
_SIDE_BYTES = 1 << 20
_FROM = re.compile(
    r"This message is from agent (agent-[A-Za-z0-9-]+)(?:, conversation ([A-Za-z0-9-]+))?\."
)


@dataclass(frozen=True, slots=True)
class Subagent:
    """A subagent's type and the key of the conversation that started it (None when its
    first message does not name one)."""

    kind: str | None
    parent_key: str | None


def subagent(messages: Path, conversation: dict[str, object]) -> Subagent | None:
    """The subagent whose conversation's transcript is `messages` (`conversation` its
    `conversation.json`), or None for an agent that is no subagent."""
    agent = conversation.get("agent_id")
    storage = messages.parent.parent.parent
    if not isinstance(agent, str) or not agent or messages.parent.parent.name != "conversations":
        return None
    name = base64.urlsafe_b64encode(agent.encode()).decode().rstrip("=")
    tags = side_object(storage / "agents" / f"{name}.json", _SIDE_BYTES).get("tags")
    tags = [t for t in tags if isinstance(t, str)] if isinstance(tags, list) else []
    if "role:subagent" not in tags:
        return None
    kind = next((t.split(":", 1)[1] for t in tags if t.startswith("type:")), None)
    return Subagent(kind or None, _started_by(messages))


def _started_by(messages: Path) -> str | None:
    """The key of the conversation the transcript's first user message says it is from:
    `default:<agent id>` for an agent's default conversation, else its id."""
    try:
        with open_regular(str(messages)) as fh:
            head = fh.read(_HEAD).decode("utf-8", "replace")
    except OSError:
        return None
    for line in head.splitlines():
        try:
            entry = json.loads(line)
        except (ValueError, RecursionError):
            continue
        message = entry.get("message") if isinstance(entry, dict) else None
        if isinstance(entry, dict) and entry.get("role") == "user":
            message = entry  # the older format: one pi-ai message a line
        if not isinstance(message, dict) or message.get("role") != "user":
            continue
        content = message.get("content")
        texts = [content] if isinstance(content, str) else [
            b.get("text") for b in content if isinstance(b, dict)
        ] if isinstance(content, list) else []  # fmt: skip
        for text in texts:
            found = _FROM.search(text) if isinstance(text, str) else None
            if found is not None and text.lstrip().startswith("<system-reminder>"):
                agent, conv = found.groups()
                if conv is None:
                    return None  # the sender named no conversation of its agent's
                return f"default:{agent}" if conv == "default" else conv
        return None  # only the first user message says where it came from
    return None
