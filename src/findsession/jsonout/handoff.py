"""`findsession.handoff/1`: a handoff brief as JSON (`handoff --json`, the MCP tool
`handoff`), with the Markdown the command prints beside its parts."""

from __future__ import annotations

from typing import Any

from findsession.domain import Brief, Resume
from findsession.jsonout.common import HANDOFF_SCHEMA, session_json
from findsession.jsonout.resume import resume_json


def handoff_json(
    brief: Brief, markdown: str, start: tuple[str, Resume, str | None] | None = None
) -> dict[str, Any]:
    """`start`: (agent, plan, shell line) when another agent was asked for (`--to`)."""
    started = None
    if start is not None:
        agent, plan, line = start
        started = {
            "agent": agent,
            "available": plan.available,
            "command": list(plan.command),
            "cwd": plan.cwd,
            "cwd_exists": plan.cwd_exists,
            "shell": line,
            "reason": plan.reason,
        }
    return {
        "schema": HANDOFF_SCHEMA,
        "session": session_json(brief.session),
        "summary": brief.summary,
        "summary_by": brief.summary_by,
        "asked": [{"turn": t, "text": text} for t, text in brief.asked],
        "decided": [{"turn": t, "text": text} for t, text in brief.decided],
        "files": [
            {"path": f.path, "ops": list(f.ops), "writes": f.writes, "turns": list(f.turns)}
            for f in brief.files
        ],
        "commands": [
            {
                "command": c.command,
                "runs": c.runs,
                "turn": c.turn,
                "outcome": c.outcome,
                "detail": c.detail,
                "test": c.is_test,
            }
            for c in brief.commands
        ],
        "left_open": brief.left_open,
        "last_prompt": (
            {"turn": brief.last_prompt[0], "text": brief.last_prompt[1]}
            if brief.last_prompt
            else None
        ),
        "last_reply": brief.last_reply,
        "resume": resume_json(brief.resume),
        "start": started,
        "notes": brief.notes,
        "markdown": markdown,
    }
