"""The MCP tools that carry a session on or trace a file back: `handoff` and
`sessions_for_file`.

Each answers with the JSON object the CLI's `--json` prints (docs/json.md), is recorded
in the audit before it is given, and spends the connection's evidence budget on the turns
it shows: a brief shows what its session's turns asked and concluded, a file's history
the turns that wrote it.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from findsession.api import HANDOFF_AGENTS, BlameOptions, Findsession, HandoffOptions
from findsession.mcp_server.budget import EvidenceBudget
from findsession.mcp_server.scope import Index
from findsession.mcp_server.tool_errors import tool_errors
from findsession.paths import expand
from findsession.protocol import operations
from findsession.protocol import requests as rq


def add_session_tools(
    server: MCPServer,
    index: Index,
    connection: str,
    budget: EvidenceBudget,
    answering: threading.Lock,
    base: str,
    boundary: str | None,
) -> None:
    """Register `handoff` and `sessions_for_file` on `server`; `base` is the folder a
    relative path is read from (the server's project, else where it was started),
    `boundary` the server's project: what they reach (None: every project)."""

    @server.tool()
    @tool_errors
    def sessions_for_file(
        path: Annotated[
            str,
            Field(
                description="The file: absolute, or relative to the project this server"
                " was started for."
            ),
        ],
        fromLine: Annotated[  # noqa: N803 - the tool's public parameter name
            int | None,
            Field(description="First line of a range (numbered from 1) to find the writer of."),
        ] = None,
        toLine: Annotated[  # noqa: N803
            int | None, Field(description="Last line of the range (default: fromLine).")
        ] = None,
        project: Annotated[
            str | None,
            Field(
                description="Only sessions started in this directory or below, inside the"
                " project this server was started for."
            ),
        ] = None,
        top: Annotated[int, Field(description="How many writes to return, 1-50.")] = 10,
    ) -> dict[str, Any]:
        """The past sessions whose tool calls created, wrote, edited or patched a file,
        newest first: per write the session, the turn, the prompt that asked for it and
        the start of the change. With fromLine (and toLine), the writes whose text holds
        those lines as the file reads now come first, `last` marks the one that wrote
        them last, and `lines` names each line's writer (null: no session wrote it).
        Read a write's turn with read_conversation(sessionId=session.id, turn=turn).
        Only sessions of the project this server was started for count, unless the
        person opened it to every project. A line's `text` is what its session wrote,
        as findsession keeps it (secrets redacted), never the file's own: a line no
        session wrote has none, and the file is read (to locate the lines) only when a
        session that counts wrote it."""
        if not 1 <= top <= 50:
            raise ToolError(f"top must be between 1 and 50, not {top}")
        if toLine is not None and fromLine is None:
            raise ToolError("give fromLine with toLine")
        if fromLine is not None and (fromLine < 1 or (toLine is not None and toLine < fromLine)):
            raise ToolError("lines are numbered from 1 and toLine must not come before fromLine")
        absolute = os.path.normpath(Path(base) / expand(path))
        options = BlameOptions(fromLine, toLine, project, top, within=boundary)
        with index() as fs:
            answer = operations.blame(fs, rq.Blame(absolute, options))
            return {**answer, "evidence_budget": _spend_writes(fs, answer, absolute, options)}

    def _spend_writes(
        fs: Findsession, answer: dict[str, Any], absolute: str, options: BlameOptions
    ) -> dict[str, Any]:
        """Cut `answer`'s writers to the budget (a line whose writer was cut is marked
        held back, not "nobody's"), record what is shown, and spend it."""
        evidence = [(w["session"]["id"], w["turn"]) for w in answer["writers"]]
        asked = {
            "path": absolute,
            "from": options.first,
            "to": options.last,
            "project": options.project,
        }
        with answering:
            fit = budget.fitting(evidence)
            held_back = len(evidence) - fit
            kept = set(range(1, fit + 1))
            answer["writers"] = answer["writers"][:fit]
            for line in answer["lines"]:
                if line["writer"] is not None and line["writer"] not in kept:
                    line["writer"] = line["text"] = None  # held back, not "nobody's"
                    line["held_back"] = True
            auditor = fs.auditor(connection)
            auditor.shown("sessions_for_file", asked, evidence[:fit], held_back=held_back)
            if evidence and not fit:
                raise budget.exhausted()
            budget.spend(evidence[:fit])
            return budget.state(held_back)

    @server.tool()
    @tool_errors
    def handoff(
        sessionId: Annotated[  # noqa: N803 - the tool's public parameter name
            str, Field(description="Session id (or unique prefix) to hand off.")
        ],
        to: Annotated[
            str | None,
            Field(
                description="An agent to start with the brief as its first prompt ("
                + ", ".join(HANDOFF_AGENTS)
                + "): the command is returned in `start`, never run."
            ),
        ] = None,
    ) -> dict[str, Any]:
        """A brief to carry a past session on: what was asked, what the agent concluded,
        the files it changed, the commands it ran with how each last ended (tests passing
        or failing), what was left open, and how to resume the session (`resume`).
        `markdown` is the brief as one text to read or pass on. Only sessions of the
        project this server was started for, unless the person opened it to every
        project."""
        options = HandoffOptions(within=boundary)
        with index() as fs:
            brief = operations.handoff(fs, rq.Handoff(sessionId, options, to=to))
            sid = brief["session"]["id"]
            turns = {a["turn"] for a in brief["asked"]} | {d["turn"] for d in brief["decided"]}
            if brief["last_prompt"]:
                turns.add(brief["last_prompt"]["turn"])
            evidence: list[tuple[str, int | None]] = [(sid, t) for t in sorted(turns)] or [
                (sid, None)
            ]
            with answering:
                auditor = fs.auditor(connection)
                if budget.fitting(evidence) < len(evidence):
                    auditor.shown(
                        "handoff", {"session": sid, "to": to}, [], held_back=len(evidence)
                    )
                    raise budget.exhausted()
                auditor.shown("handoff", {"session": sid, "to": to}, evidence)
                budget.spend(evidence)
                spent = budget.state()
        return {**brief, "evidence_budget": spent}
