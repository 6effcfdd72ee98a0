"""The MCP tools that carry a session on or trace a file back: `handoff` and
`sessions_for_file`.

Each answers with the JSON object the CLI's `--json` prints (docs/json.md), is recorded
in the audit before it is given, and spends the connection's evidence budget on the turns
it shows: a brief shows what its session's turns asked and concluded, a file's history
the turns that wrote it.
"""

from __future__ import annotations

import threading
from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from pydantic import Field

from findsession import jsonout, render
from findsession.api import Auditor, Findsession
from findsession.cli.handoff import start_line
from findsession.cli.open_session import shell_line
from findsession.mcp_server.budget import EvidenceBudget
from findsession.mcp_server.tool_errors import tool_errors


def add_session_tools(
    server: MCPServer,
    fs: Findsession,
    auditor: Auditor,
    budget: EvidenceBudget,
    answering: threading.Lock,
) -> None:
    """Register `handoff` (and `sessions_for_file`) on `server`."""

    @server.tool()
    @tool_errors
    def handoff(
        sessionId: Annotated[  # noqa: N803 - the tool's public parameter name
            str, Field(description="Session id (or unique prefix) to hand off.")
        ],
        to: Annotated[
            str | None,
            Field(
                description="An agent to start with the brief as its first prompt (claude,"
                " codex, gemini, qwen, opencode, cursor-agent): the command is returned in"
                " `start`, never run."
            ),
        ] = None,
    ) -> dict[str, Any]:
        """A brief to carry a past session on: what was asked, what the agent concluded,
        the files it changed, the commands it ran with how each last ended (tests passing
        or failing), what was left open, and how to resume the session (`resume`).
        `markdown` is the brief as one text to read or pass on."""
        brief = fs.handoff(sessionId)
        resume = shell_line(brief.resume) if brief.resume.available else None
        markdown = render.handoff_markdown(brief, resume)
        start = None
        if to:
            plan = fs.start_with(brief.session, to, markdown)
            start = (to, plan, start_line(plan) if plan.available else None)
        sid = brief.session.id
        turns = {t for t, _ in brief.asked} | {t for t, _ in brief.decided}
        if brief.last_prompt:
            turns.add(brief.last_prompt[0])
        evidence: list[tuple[str, int | None]] = [(sid, t) for t in sorted(turns)] or [
            (sid, None)
        ]
        with answering:
            if budget.fitting(evidence) < len(evidence):
                auditor.shown("handoff", {"session": sid, "to": to}, [], held_back=len(evidence))
                raise budget.exhausted()
            auditor.shown("handoff", {"session": sid, "to": to}, evidence)
            budget.spend(evidence)
            spent = budget.state()
        return {**jsonout.handoff_json(brief, markdown, start), "evidence_budget": spent}
