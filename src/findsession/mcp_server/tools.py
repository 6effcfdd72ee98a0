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
from pathlib import Path
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from findsession import jsonout
from findsession.api import Findsession, SearchOptions, bounded
from findsession.domain import SourceKind
from findsession.mcp_server.budget import EvidenceBudget
from findsession.mcp_server.scope import Scope, current_session, indexer_note
from findsession.mcp_server.session_tools import add_session_tools
from findsession.mcp_server.tool_errors import tool_errors

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


def build_server(fs: Findsession, scope: Scope) -> MCPServer:
    """The MCP server with its tools, answering from `fs` (kept open).

    The server process is one connection: over stdio it serves one client session, so
    the audit names each process's records by an id of its own and the evidence budget
    is spent once per process.
    """
    server = MCPServer("findsession", instructions=INSTRUCTIONS)
    auditor = fs.auditor(connection=secrets.token_hex(8))
    budget = EvidenceBudget(fs.settings.mcp_evidence_budget)
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
                + ", ".join(k.value for k in SourceKind)
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
        project = bounded(directory and str(Path(directory).expanduser()), scope.directory)
        if project and not project.strip("/"):
            project = None  # "/": every project, where the person opened them all
        opts = SearchOptions(
            top=top,
            project=project,
            # An id or a unique prefix, as read_conversation takes it; else a clear error.
            session=(
                fs.session(sessionId, within=scope.directory).id if sessionId is not None else None
            ),
            speaker=speaker,
            after=after,
            before=before,
            kind=kind,
            source=source,
            hybrid_weight=scope.hybrid_weight,
            count_excluded=True,  # for the audit record
            within=scope.directory,
        )
        current = None if sessionId else current_session(fs, scope, project)
        if current:
            opts.top += 1  # room for the one left out
        response = fs.search(query, opts)
        kept = [h for h in response.hits if h.session.id != current][:top]
        notes = response.notes + indexer_note(scope)
        if not kept:
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
        # Ranked again without the session left out, so rank is the place in the list.
        hits = [replace(h, rank=rank) for rank, h in enumerate(kept, 1)]
        sure = response.confidence
        if response.hits and response.hits[0].session.id == current:
            sure = None  # it judged the session left out, not the first one returned
        evidence = [(h.session.id, h.turn) for h in hits]
        with answering:
            fit = budget.fitting(evidence)
            held_back = len(hits) - fit
            if held_back:
                notes.append(
                    f"{held_back} more results were held back: this session has nearly used"
                    " its evidence budget (see evidence_budget); read what was returned first"
                )
            shown = replace(response, hits=hits[:fit], notes=notes, confidence=sure)
            auditor.searched(  # before answering: an unrecorded answer is never given
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
        view = fs.read(
            sessionId,
            turn=turn,
            context=context,
            tools=includeToolOutput,
            first=from_,
            last=to,
            within=scope.directory,
        )
        answer = jsonout.read_json(view, max_chars=maxChars)
        evidence = [(view.session.id, t["turn"]) for t in answer["turns"]]
        asked = {"session": view.session.id, "turn": turn, "from": from_, "to": to}
        asked |= {"context": context, "include_tool_output": includeToolOutput}
        with answering:
            fit = budget.fitting(evidence)
            answer["turns"] = answer["turns"][:fit]
            held_back = len(evidence) - fit
            auditor.shown("read_conversation", asked, evidence[:fit], held_back=held_back)
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
        project = bounded(directory and str(Path(directory).expanduser()), scope.directory)
        sessions = fs.sessions(
            project=project, after=after, before=before, limit=limit, within=scope.directory
        )
        answer = jsonout.sessions_json((s, fs.first_prompt(s.id)) for s in sessions)
        asked = {"project": project, "after": after, "before": before, "limit": limit}
        with answering:
            auditor.shown("list_sessions", asked, [(s.id, None) for s in sessions])
        return {**answer, "scope": project}

    add_session_tools(server, fs, auditor, budget, answering, scope.directory)
    server.findsession = fs  # type: ignore[attr-defined]  # kept open for the server's life
    return server
