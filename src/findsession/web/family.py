"""A session's relatives for the reader: its parent, and each subagent placed under the
tool call that started it.

Agents log the call that starts a subagent (Claude Code's `Agent`/`Task` with its
`prompt:`), and the subagent's first prompt is that text: matching the two puts each
child under its call. A child no call names (a format that logs no such call) is still
listed, at the end of the session.
"""

from __future__ import annotations

from typing import Any

from findsession.api import Findsession
from findsession.errors import SessionNotFound
from findsession.jsonout import session_json

#: Enough of a prompt to tell two subagents of one session apart.
_PROBE_CHARS = 120


def family_json(fs: Findsession, session_id: str, read: dict[str, Any]) -> dict[str, Any]:
    """`parent` (a session object or None) and `subagents`: each child's session object
    with its first prompt and `started_by`: [turn, message index] of the call, or None."""
    parent_id = read["session"]["parent_id"]
    parent = None
    if parent_id:
        try:
            parent = session_json(fs.session(parent_id))
        except SessionNotFound:  # forgotten, or not indexed yet
            parent = None
    calls = [
        (turn["turn"], index, _flat(message["text"]))
        for turn in read["turns"]
        for index, message in enumerate(turn["messages"])
        if message["kind"] == "tool_call"
    ]
    children = []
    taken: set[tuple[int, int]] = set()
    for child in fs.subagents(session_id):
        first = fs.first_prompt(child.id)
        probe = _flat(first)[:_PROBE_CHARS]
        started_by = None
        if probe:
            for turn, index, text in calls:
                if (turn, index) not in taken and probe in text:
                    started_by = [turn, index]
                    taken.add((turn, index))
                    break
        children.append(
            {**session_json(child), "first_prompt": first[:300], "started_by": started_by}
        )
    return {"parent": parent, "subagents": children}


def _flat(text: str) -> str:
    return " ".join(text.split())
