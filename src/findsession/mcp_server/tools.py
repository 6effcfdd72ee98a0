"""The MCP tools: search_conversation, read_conversation and list_sessions (and, from
`session_tools`, handoff and sessions_for_file).

Each checks its arguments in the tool's own terms (an agent cannot pass a CLI flag),
asks the core API, and answers with the JSON object the CLI's `--json` prints for the
same thing (`jsonout`, docs/json.md), plus the few fields only an agent needs: the
scope searched and the session left out. Notes for the agent go in `notes`.
"""

from __future__ import annotations

import inspect
import secrets
import threading
from dataclasses import replace
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from findsession import jsonout
from findsession.api import (
    SOURCE_KINDS,
    Findsession,
    ListOptions,
    ReadOptions,
    SearchOptions,
    bounded,
)
from findsession.domain import SearchResponse
from findsession.mcp_server.budget import EvidenceBudget
from findsession.mcp_server.scope import Index, Scope, current_session, indexer_note
from findsession.mcp_server.session_tools import add_session_tools
from findsession.mcp_server.tool_errors import tool_errors
from findsession.paths import expand
from findsession.protocol import operations
from findsession.protocol import requests as rq

MAX_QUERY = 2000
MAX_TOP = 20
DEFAULT_MAX_CHARS = 12_000

#: What every tool's description says of what it can reach.
REACH = (
    "Only sessions of the project this server was started for (and folders below it) can"
    " be reached, unless the person opened it to every project."
)

INSTRUCTIONS = (
    "findsession searches past AI coding-agent sessions (Claude Code transcripts) of this"
    " project: what was asked, answered and decided, and in which session and turn. Use"
    " search_conversation before re-deriving something that may have been settled before,"
    " read_conversation to read the turns a hit points to, and list_sessions for what"
    " happened recently. Every answer is recorded in an audit (the question only as a"
    " keyed digest), and one session may be shown a limited number of distinct turns:"
    " `evidence_budget` in each answer says how many were used. " + REACH
)


def build_server(index: Index, scope: Scope, evidence_budget: int) -> MCPServer:
    """The MCP server with its tools for one agent's session, answering from `index`.

    One server is one connection: it serves one client session (over stdio, or relayed
    to the service), so the audit names its records by an id of its own and the
    evidence budget is spent once per server.
    """
    server = MCPServer("findsession", instructions=INSTRUCTIONS)
    connection = secrets.token_hex(8)
    budget = EvidenceBudget(evidence_budget)
    # The SDK runs tools in worker threads: one answer at a time is fitted to the budget,
    # recorded and counted, so two calls cannot both take the last turns.
    answering = threading.Lock()

    @server.tool()
    @tool_errors
    def search_conversation(
        query: Annotated[
            str,
            Field(
                description="What to look for: a description in your own words, keywords, an"
                " identifier, an error message or a file name (1-2000 characters)."
            ),
        ],
        directory: Annotated[
            str | None,
            Field(
                description="Project directory to search (sessions started in it or below),"
                " inside the project this server was started for. Default: that project."
            ),
        ] = None,
        sessionId: Annotated[  # noqa: N803 - the tool's public parameter name
            str | None, Field(description="Search only this session (id or unique prefix).")
        ] = None,
        speaker: Annotated[
            Literal["user", "assistant"] | None,
            Field(description="Match only what the user typed, or only what the agent said."),
        ] = None,
        after: Annotated[
            str | None,
            Field(description="Only from this time on: YYYY-MM-DD, an ISO time, or 7d / 2w."),
        ] = None,
        before: Annotated[
            str | None, Field(description="Only before this time (same forms as `after`).")
        ] = None,
        kind: Annotated[
            Literal["turn", "session", "doc"] | None,
            Field(
                description="turn: single exchanges; session: whole-session summaries;"
                " doc: sections of notes and docs."
            ),
        ] = None,
        source: Annotated[
            str | None,
            Field(
                description="Only sessions from these sources, comma-separated: "
                + ", ".join(SOURCE_KINDS)
                + "."
            ),
        ] = None,
        top: Annotated[int, Field(description="How many sessions to return, 1-20.")] = 5,
    ) -> dict[str, Any]:
        """Search past conversations by meaning and keywords (hybrid search).

        Returns the best-matching sessions, each at the turn that matched best
        (`match`: snippet, tools used, files touched), with the session's project,
        the score and why it ranked (`explain`); `confidence.level` says whether the
        first is very likely it (strong), may be it (weak) or nothing is close (then
        say it was not found rather than present the nearest as the answer); `notes`
        say why nothing matched or what could not run. Read a hit with
        read_conversation(sessionId=session.id, turn=match.turn). `resume` is the
        command (and directory) that takes the user back into that session in its
        own agent, to give them when they want to continue it. Only sessions of the
        project this server was started for (and folders below it) are searched,
        unless the person opened it to every project.
        """
        if not query.strip():
            raise ToolError("query is empty: say what to look for")
        if len(query) > MAX_QUERY:
            raise ToolError(
                f"query is {len(query)} characters; the limit is {MAX_QUERY}: shorten it to"
                " the words or identifier that matter"
            )
        if not 1 <= top <= MAX_TOP:
            raise ToolError(f"top must be between 1 and {MAX_TOP}, not {top}")
        # Inside the server's project, whatever `directory` says (else a clear error).
        project = bounded(directory and str(expand(directory)), scope.directory)
        if project and not project.strip("/"):
            project = None  # "/": every project, where the person opened them all
        with index() as fs:
            # An id or a unique prefix, as read_conversation takes it; else a clear error.
            named = None if sessionId is None else fs.session(sessionId, within=scope.directory)
            opts = SearchOptions(
                top=top,
                project=project,
                session=named.id if named else None,
                speaker=speaker,
                after=after,
                before=before,
                kind=kind,
                source=source,
                count_excluded=True,  # for the audit record
                within=scope.directory,
                # The session the agent is in: it has that context, and it would outrank
                # everything else for the words the agent just used.
                leave_out=None if sessionId else current_session(fs, scope, project),
            )
            response = fs.search(query, opts)
            return _answer_search(fs, query, opts, response, top)

    def _answer_search(
        fs: Findsession, query: str, opts: SearchOptions, response: SearchResponse, top: int
    ) -> dict[str, Any]:
        """Fit the hits to the budget, record them, spend them; the tool's answer."""
        current = opts.leave_out
        hits = response.hits
        notes = response.notes + indexer_note(scope)
        if not hits:
            notes.append(
                "the index is empty: run `findsession index` (this server also indexes in"
                " the background; try again in a minute)"
                if response.index_empty
                else f"nothing matched in {opts.project or 'any project'}; try other words"
                + (
                    " or a wider time range"
                    if scope.directory
                    else ", a wider time range, or directory='/' for every project"
                )
            )
        evidence = [(h.session.id, h.turn) for h in hits]
        with answering:
            fit = budget.fitting(evidence)
            held_back = len(hits) - fit
            if held_back:
                notes.append(
                    f"{held_back} more results were held back: this session has nearly used"
                    " its evidence budget (see evidence_budget); read what was returned first"
                )
            shown = replace(response, hits=hits[:fit], notes=notes)
            fs.auditor(connection).searched(  # before answering: none is given unrecorded
                "search_conversation",
                query,
                opts,
                shown,
                extra={"top": top, "excluded_current_session": current},
                held_back=held_back,
            )
            if evidence and not fit:
                raise budget.exhausted()
            budget.spend(evidence[:fit])
            spent = budget.state(held_back)
        return {
            **jsonout.search_json(shown),
            "scope": opts.project,
            "excluded_current_session": current,
            "evidence_budget": spent,
        }

    def read_conversation(
        sessionId: Annotated[  # noqa: N803 - the tool's public parameter name
            str, Field(description="Session id (or unique prefix) from search_conversation.")
        ],
        turn: Annotated[int | None, Field(description="Read this turn (numbered from 1).")] = None,
        from_: Annotated[
            int | None, Field(alias="from", description="First turn of a range.")
        ] = None,
        to: Annotated[int | None, Field(description="Last turn of a range.")] = None,
        context: Annotated[
            int, Field(description="Also this many turns before and after (0-20).")
        ] = 0,
        includeToolOutput: Annotated[  # noqa: N803
            bool, Field(description="Include tool calls, their output and thinking.")
        ] = False,
        maxChars: Annotated[  # noqa: N803
            int, Field(description="Cut the text at this many characters (default 12000).")
        ] = DEFAULT_MAX_CHARS,
    ) -> dict[str, Any]:
        """Read a past conversation verbatim: one turn, a range, or the whole session.

        Each turn holds its messages in order: what the user typed (prompt) and what
        the agent answered (reply); tool calls, their output and thinking only with
        includeToolOutput. The messages' text is cut at maxChars characters in all;
        left_out_chars says how much was left out: read fewer turns (turn, from/to),
        or raise maxChars. Only sessions of the project this server was started for
        can be read, unless the person opened it to every project.
        """
        if not 0 <= context <= 20:
            raise ToolError(f"context must be between 0 and 20, not {context}")
        if maxChars < 200:
            raise ToolError(f"maxChars must be at least 200, not {maxChars}")
        if turn is not None and (from_ is not None or to is not None):
            raise ToolError("give either turn, or from/to, not both")
        options = ReadOptions(
            turn=turn,
            first=from_,
            last=to,
            context=context,
            tools=includeToolOutput,
            within=scope.directory,
        )
        with index() as fs:
            view = fs.read(sessionId, options)
            answer = jsonout.read_json(view, max_chars=maxChars)
            evidence = [(view.session.id, t["turn"]) for t in answer["turns"]]
            asked = {"session": view.session.id, "turn": turn, "from": from_, "to": to}
            asked |= {"context": context, "include_tool_output": includeToolOutput}
            return _spend_turns(fs, answer, evidence, asked)

    def _spend_turns(
        fs: Findsession,
        answer: dict[str, Any],
        evidence: list[tuple[str, int | None]],
        asked: dict[str, Any],
    ) -> dict[str, Any]:
        with answering:
            fit = budget.fitting(evidence)
            answer["turns"] = answer["turns"][:fit]
            held_back = len(evidence) - fit
            fs.auditor(connection).shown(
                "read_conversation", asked, evidence[:fit], held_back=held_back
            )
            if evidence and not fit:
                raise budget.exhausted()
            budget.spend(evidence[:fit])
            return {**answer, "evidence_budget": budget.state(held_back)}

    @tool_errors
    def read_conversation_tool(**arguments: Any) -> dict[str, Any]:
        # `from` is a Python keyword: the SDK passes it by its alias, so rename it here.
        return read_conversation(from_=arguments.pop("from", None), **arguments)

    read_conversation_tool.__signature__ = inspect.signature(  # type: ignore[attr-defined]
        read_conversation, eval_str=True
    )
    server.add_tool(
        read_conversation_tool,
        name="read_conversation",
        description=inspect.getdoc(read_conversation),
    )

    @server.tool()
    @tool_errors
    def list_sessions(
        directory: Annotated[
            str | None,
            Field(
                description="Project directory, inside this server's project. Default: that"
                " project ('/' for all where the person opened every project)."
            ),
        ] = None,
        after: Annotated[
            str | None, Field(description="Only sessions active from this time: date or 7d.")
        ] = None,
        before: Annotated[
            str | None, Field(description="Only sessions active before this.")
        ] = None,
        limit: Annotated[int, Field(description="How many, newest first (1-100).")] = 20,
    ) -> dict[str, Any]:
        """Recent sessions with their titles and first prompts: "what was I doing last week".
        Only sessions of the project this server was started for, unless the person
        opened it to every project."""
        if not 1 <= limit <= 100:
            raise ToolError(f"limit must be between 1 and 100, not {limit}")
        project = bounded(directory and str(expand(directory)), scope.directory)
        asked = {"project": project, "after": after, "before": before, "limit": limit}
        with index() as fs:
            answer = operations.sessions(
                fs, rq.Sessions(ListOptions(project, after, before, limit, within=scope.directory))
            )
            with answering:
                shown = [(s["id"], None) for s in answer["sessions"]]
                fs.auditor(connection).shown("list_sessions", asked, shown)
        return {**answer, "scope": project}

    base = scope.directory or scope.cwd
    add_session_tools(server, index, connection, budget, answering, base, scope.directory)
    return server
