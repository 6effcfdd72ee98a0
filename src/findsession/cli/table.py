"""Every command, once: its name, its help line, its grammar, what runs it, and whether
the resident service may answer it.

The parser's list of commands, the dispatch and what is served are all read from
`COMMANDS`: a new command is one entry here, its grammar (a function adding its
arguments), the module that runs it and the renderer of what it answers. What runs a
command is named as `module:function` and imported only when that command runs: `--help`
and a served search import none of them, and the commands other interfaces own (`serve`
is the MCP server's, `ui` the page's, `service` and `schedule` the service's) are reached
through this table alone, never imported by the CLI's own modules.

A served command asks the index only through typed requests (`Context.ask`), so the
service answers it when one runs for the index and this process otherwise; the rest use
the core API here (`Context.fs`).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from importlib import import_module
from typing import TYPE_CHECKING

from findsession.cli import grammar, session_grammar, team_grammar

if TYPE_CHECKING:
    from findsession.protocol.context import Context

#: What runs a command: its parsed options and its context in, the exit status out.
Run = Callable[[argparse.Namespace, "Context"], int]


@dataclass(frozen=True)
class Command:
    """One command of `findsession`."""

    name: str
    #: The line `findsession --help` shows for it.
    help: str
    #: Adds its arguments to its parser.
    grammar: Callable[[argparse.ArgumentParser], None]
    #: `module:function` that runs it, imported when it runs.
    run: str
    #: It asks the index only through typed requests: the service may answer them.
    served: bool = False

    def function(self) -> Run:
        module, name = self.run.split(":")
        return getattr(import_module(module), name)


COMMANDS: tuple[Command, ...] = (
    Command(
        "search",
        "search the index (the default command)",
        grammar.search,
        "findsession.cli.commands:search",
        served=True,
    ),
    Command(
        "index",
        "index transcripts (incremental)",
        grammar.index,
        "findsession.cli.indexing:index",
    ),
    Command(
        "read",
        "print a session or some of its turns",
        grammar.read,
        "findsession.cli.commands:read",
        served=True,
    ),
    Command(
        "open",
        "resume a session in its own agent and directory (claude --resume, codex resume…)",
        grammar.open_session,
        "findsession.cli.open_session:open_session",
        served=True,
    ),
    Command(
        "sources",
        "each source: where it looks, files, sessions, problems",
        grammar.sources,
        "findsession.cli.commands:sources",
    ),
    Command(
        "status",
        "what the index holds",
        grammar.status,
        "findsession.cli.commands:status",
        served=True,
    ),
    Command(
        "forget",
        "delete sessions from the index for good",
        grammar.forget,
        "findsession.cli.commands:forget",
    ),
    Command(
        "audit",
        "what agents searched and were shown (MCP)",
        grammar.audit,
        "findsession.cli.commands:audit",
    ),
    Command(
        "titles",
        "propose a short title for each session without one; --write gives it",
        grammar.titles,
        "findsession.cli.titles:titles",
    ),
    Command(
        "serve",
        "run the MCP server over stdio (for agents)",
        grammar.serve,
        "findsession.mcp_server.command:serve",
    ),
    Command(
        "service",
        "the resident service (every search warm, the index fresh from file events):"
        " start, stop, status, run in the foreground, install or uninstall the unit that"
        " starts it at login",
        grammar.service,
        "findsession.service.command:service",
    ),
    Command(
        "schedule",
        "index every 15 minutes without a resident process (systemd timer, launchd agent)",
        grammar.schedule,
        "findsession.service.installing:schedule",
    ),
    Command(
        "ui",
        "search, read and browse in your browser (a page on 127.0.0.1, behind a token)",
        grammar.ui,
        "findsession.web.command:ui",
    ),
    Command(
        "push",
        "send the team's server what this machine's index holds and it lacks",
        team_grammar.push,
        "findsession.cli.team:push",
    ),
    Command(
        "share",
        "show the team your sessions of a project on the server (--remove, --list)",
        team_grammar.share,
        "findsession.cli.team:share",
    ),
    Command(
        "server",
        "the admin's commands for a team's server: init (schema and group role),"
        " status (the model and its graph, each person's sessions, shared projects),"
        " add-person NAME (a login role of their own), remove-person NAME (their access"
        " ends; what they pushed stays unless --delete-sessions)",
        team_grammar.server,
        "findsession.cli.team:server",
    ),
    Command(
        "export",
        "write a session as one self-contained Markdown or HTML file",
        session_grammar.export,
        "findsession.cli.export:export",
        served=True,
    ),
    Command(
        "handoff",
        "a Markdown brief to carry a session on: asked, decided, files, commands,"
        " what is open, how to resume",
        session_grammar.handoff,
        "findsession.cli.handoff:handoff",
        served=True,
    ),
    Command(
        "blame",
        "the sessions that wrote a file (or these lines of it), newest first",
        session_grammar.blame,
        "findsession.cli.blame:blame",
        served=True,
    ),
)
#: Each command by its name.
BY_NAME: dict[str, Command] = {c.name: c for c in COMMANDS}
#: The commands the service may answer.
SERVED: frozenset[str] = frozenset(c.name for c in COMMANDS if c.served)
