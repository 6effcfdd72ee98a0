"""`findsession serve`: the search and reader as MCP tools, for agents, over stdio.

Agents ask "did we already decide X?" mid-task, so the tools answer from the project
the server was started in, leave out the session the agent is in (it has that context),
and say plainly when the index is empty or nothing matched. A background thread keeps
the index fresh; a search never waits for it and never sees "database is locked"
(WAL readers do not block on the writer). The server only ever reads transcripts.
"""

from __future__ import annotations

import functools
import inspect
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from findsession.api import Findsession, Root, SearchOptions
from findsession.domain import MessageKind, Session
from findsession.errors import FindsessionError

MAX_QUERY = 2000
MAX_TOP = 20
DEFAULT_MAX_CHARS = 12_000
#: Seconds between background index runs.
REFRESH_SECONDS = 30.0
#: A transcript written this recently in the server's project is the agent's own session.
CURRENT_SESSION_WINDOW_S = 600

INSTRUCTIONS = (
    "findsession searches past AI coding-agent sessions (Claude Code transcripts) of this"
    " project: what was asked, answered and decided, and in which session and turn. Use"
    " search_conversation before re-deriving something that may have been settled before,"
    " read_conversation to read the turns a hit points to, and list_sessions for what"
    " happened recently."
)


@dataclass
class Scope:
    """Which sessions the tools see by default."""

    directory: str | None  # None: every project
    started: float
    explicit_current: str | None  # the agent's own session id, when the client says it
    hybrid_weight: float = 0.5  # from the config, read once at start
    #: Why the background indexer's last round failed, or None; shown in search notes.
    indexer_error: Callable[[], str | None] = lambda: None


Tool = TypeVar("Tool", bound=Callable[..., Any])


def tool_errors(tool: Tool) -> Tool:
    """Turn the errors findsession raises on purpose into tool errors carrying their
    message: any other exception reaches the agent only as "Error executing tool".

    Messages that reach an agent name the tools' parameters or neutral terms, never a
    CLI flag, and stay on one line.
    """

    @functools.wraps(tool)
    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            return tool(*args, **kwargs)
        except FindsessionError as exc:
            raise ToolError(" ".join(str(exc).split())) from exc

    return run  # type: ignore[return-value]


def build_server(fs: Findsession, scope: Scope) -> MCPServer:
    """The MCP server with its three tools, answering from `fs` (kept open)."""
    server = MCPServer("findsession", instructions=INSTRUCTIONS)

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
                description="Project directory to search (sessions started in it or below)."
                " Default: the project this server was started for."
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
            Field(description="turn: single exchanges; session: whole-session summaries."),
        ] = None,
        top: Annotated[int, Field(description="How many sessions to return, 1-20.")] = 5,
    ) -> dict[str, Any]:
        """Search past conversations by meaning and keywords (hybrid search).

        Returns the best-matching sessions, each at the turn that matched best, with a
        snippet, the project, tools used, files touched, the score and why it ranked.
        Read a hit with read_conversation(sessionId, turn).
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
        project = directory or scope.directory
        if project and not project.strip("/"):
            project = None  # "/": every project
        opts = SearchOptions(
            top=top,
            project=str(Path(project).expanduser()) if project else None,
            session=sessionId,
            speaker=speaker,
            after=after,
            before=before,
            kind=kind,
            hybrid_weight=scope.hybrid_weight,
        )
        current = None if sessionId else _current_session(fs, scope, project)
        if current:
            opts.top += 1  # room for the one left out
        response = fs.search(query, opts)
        hits = [h for h in response.hits if h.session.id != current][:top]
        result: dict[str, Any] = {
            "strategy": response.strategy,
            "scope": project or "all projects",
            "notes": response.notes + _indexer_note(scope),
            "results": [
                {
                    "sessionId": h.session.id,
                    "turn": h.turn,
                    "timestamp": h.timestamp,
                    "project": h.session.cwd,
                    "title": h.session.title,
                    "subagent": h.session.is_subagent,
                    "toolsUsed": h.tool_names,
                    "filesTouched": h.files[:5],
                    "snippet": h.snippet,
                    "score": round(h.score, 5),
                    "why": {
                        "keywordRank": h.keyword_rank,
                        "vectorRank": h.vector_rank,
                        "cosine": None if h.cosine is None else round(h.cosine, 3),
                        "matchedTerms": h.matched_terms,
                        "pinned": h.pinned,
                    },
                    "next": {
                        "tool": "read_conversation",
                        "arguments": {"sessionId": h.session.id, "turn": h.turn or 1},
                    },
                }
                for h in hits
            ],
        }
        if current:
            result["excludedCurrentSession"] = current
        if not hits:
            result["empty"] = (
                "the index is empty: run `findsession index` (this server also indexes in"
                " the background; try again in a minute)"
                if response.index_empty
                else "nothing matched in "
                + (project or "any project")
                + "; try other words, a wider time range, or directory='/' for every project"
            )
        return result

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
    ) -> str:
        """Read a past conversation verbatim: one turn, a range, or the whole session.

        Each turn shows what the user typed and what the agent answered; tool calls and
        output only with includeToolOutput. Long text is cut at maxChars with a marker
        saying how much was left out.
        """
        if not 0 <= context <= 20:
            raise ToolError(f"context must be between 0 and 20, not {context}")
        if maxChars < 200:
            raise ToolError(f"maxChars must be at least 200, not {maxChars}")
        if turn is not None and (from_ is not None or to is not None):
            raise ToolError("give either turn, or from/to, not both")
        view = fs.read(
            sessionId, turn=turn, context=context, tools=includeToolOutput, first=from_, last=to
        )
        s = view.session
        head = [
            f"# {s.title or s.id}",
            f"session {s.id} · project {s.cwd} · {s.first_ts} – {s.last_ts}"
            f" · {view.total_turns} turns · transcript {s.file_path}",
        ]
        body: list[str] = []
        for t in view.turns:
            body.append(f"\n## turn {t.ordinal}  ({t.timestamp})")
            for m in t.messages:
                body.append(_message_text(m.kind, m.text, m.tool_name))
        text = "\n".join(head + body)
        if len(text) > maxChars:
            left = len(text) - maxChars
            text = (
                text[:maxChars]
                + f"\n\n[… {left} more characters left out: read fewer turns (turn, from/to),"
                " or raise maxChars]"
            )
        return text

    @tool_errors
    def read_conversation_tool(**arguments: Any) -> str:
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
            Field(description="Project directory. Default: this server's project; '/' for all."),
        ] = None,
        after: Annotated[
            str | None, Field(description="Only sessions active from this time: date or 7d.")
        ] = None,
        before: Annotated[
            str | None, Field(description="Only sessions active before this.")
        ] = None,
        limit: Annotated[int, Field(description="How many, newest first (1-100).")] = 20,
    ) -> dict[str, Any]:
        """Recent sessions with their titles and first prompts: "what was I doing last week"."""
        if not 1 <= limit <= 100:
            raise ToolError(f"limit must be between 1 and 100, not {limit}")
        project = directory or scope.directory
        sessions = fs.sessions(project=project, after=after, before=before, limit=limit)
        return {
            "scope": project or "all projects",
            "sessions": [_session_summary(fs, s) for s in sessions],
        }

    server.findsession = fs  # type: ignore[attr-defined]  # kept open for the server's life
    return server


def _message_text(kind: MessageKind, text: str, tool: str | None) -> str:
    if kind is MessageKind.PROMPT:
        return f"**user:** {text}"
    if kind is MessageKind.REPLY:
        return f"**assistant:** {text}"
    if kind is MessageKind.TOOL_CALL:
        return f"[tool call {tool}] {text}"
    if kind is MessageKind.TOOL_OUTPUT:
        return f"[tool output] {text}"
    return f"[thinking] {text}"


def _session_summary(fs: Findsession, s: Session) -> dict[str, Any]:
    first = fs.first_prompt(s.id)
    return {
        "sessionId": s.id,
        "title": s.title,
        "project": s.cwd,
        "started": s.first_ts,
        "lastActive": s.last_ts,
        "turns": s.n_turns,
        "firstPrompt": (first or "")[:300],
    }


def _current_session(fs: Findsession, scope: Scope, project: str | None) -> str | None:
    """The session the agent is in: named by the client, else the project's live one.

    Claude Code does not tell an MCP server its session id, so without one the session
    of this project whose transcript was written in the last ten minutes and changed
    after the server started is taken to be the agent's own.
    """
    if scope.explicit_current:
        return scope.explicit_current
    if not project:
        return None
    return fs.live_session(project, scope.started, CURRENT_SESSION_WINDOW_S)


def _indexer_note(scope: Scope) -> list[str]:
    error = scope.indexer_error()
    if not error:
        return []
    return [f"the index could not be brought up to date ({error}); results may miss recent turns"]


class BackgroundIndexer(threading.Thread):
    """Index changed files every `interval` seconds on its own connection, quietly.

    Failures are kept for the next search's notes rather than raised: a broken file
    or a busy database must never cost an agent its search.
    """

    def __init__(self, db_path: Path, roots: list[Root], interval: float) -> None:
        super().__init__(daemon=True, name="findsession-indexer")
        self.db_path, self.roots, self.interval = db_path, roots, interval
        self.last_error: str | None = None

    def run(self) -> None:
        while True:
            try:
                # Opened each round: the config is read again (the user may edit it).
                with Findsession.open(self.db_path) as fs:
                    fs.index([r for r in self.roots if r.path.exists()])
                    fs.embed()  # without a model keyword search still works; search says why
                self.last_error = None
            except Exception as exc:  # noqa: BLE001 - never let the thread die
                self.last_error = str(exc)
            time.sleep(self.interval)


def serve(db_path: Path, directory: str | None, all_projects: bool) -> None:
    """Run the server over stdio until the client closes it."""
    fs = Findsession.open(db_path)
    cfg = fs.settings
    scope_dir = None if all_projects or cfg.mcp_all_projects else (directory or os.getcwd())
    scope = Scope(
        directory=str(Path(scope_dir).resolve()) if scope_dir else None,
        started=time.time(),
        explicit_current=os.environ.get("FINDSESSION_CURRENT_SESSION")
        or os.environ.get("CLAUDE_SESSION_ID"),
        hybrid_weight=cfg.hybrid_weight,
    )
    interval = float(os.environ.get("FINDSESSION_REFRESH_SECONDS", REFRESH_SECONDS))
    roots = fs.standard_roots()
    if interval > 0:
        indexer = BackgroundIndexer(db_path, roots, interval)
        scope.indexer_error = lambda: indexer.last_error
        indexer.start()
    build_server(fs, scope).run("stdio")
