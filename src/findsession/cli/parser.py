"""The command line's grammar: commands, options, and the checks made as they are typed.

Values are checked here, where argparse can name the option that was wrong, so a bad
`--top` or `--after` is refused before an index is opened, in one line.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import NoReturn

from findsession.api import KINDS, MAX_TOP, MODES, SPEAKERS, BadOption, parse_when
from findsession.cli.session_grammar import session_commands
from findsession.cli.team_grammar import backend_option, team_commands
from findsession.domain import SourceKind
from findsession.render.text import printable

COMMANDS = (
    "search",
    "index",
    "read",
    "open",
    "status",
    "sources",
    "serve",
    "forget",
    "audit",
    "titles",
    "service",
    "schedule",
    "ui",
    "push",
    "share",
    "server",
    "export",
    "handoff",
    "blame",
)
#: What `findsession service` does: run and control the resident search service, or
#: install the unit that starts it at login.
SERVICE_ACTIONS = ("start", "stop", "status", "run", "install", "uninstall")


class _Parser(argparse.ArgumentParser):
    """argparse whose errors are one line, like findsession's own: what is wrong and
    where the help is, without the usage block."""

    def error(self, message: str) -> NoReturn:
        line = " ".join(printable(message).split())
        self.exit(2, f"{self.prog}: error: {line} (see `{self.prog} --help`)\n")


def _whole_number(low: int, high: int | None, wanted: str) -> Callable[[str], int]:
    """An argparse type: a whole number in [low, high], else `wanted` says what to give."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or value < low or (high is not None and value > high):
            shown = text if len(text) <= 40 else text[:40] + "…"
            raise argparse.ArgumentTypeError(f"{wanted}, not {shown!r}")
        return value

    return parse


def _when(text: str) -> str:
    """An argparse type: a date, time or age, checked where it is typed."""
    try:
        return parse_when(text)
    except BadOption as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def build_parser() -> argparse.ArgumentParser:
    """The `findsession` parser with every command; `--db` is taken before or after one."""
    common = _Parser(add_help=False)
    common.add_argument(
        "--db",
        metavar="PATH",
        # SUPPRESS: a subcommand's unset --db must not overwrite one given before it.
        default=argparse.SUPPRESS,
        help="index database (default: FINDSESSION_DB or the user data directory)",
    )
    parser = _Parser(
        prog="findsession",
        description="Find the AI coding-agent session you were working on X in.",
        epilog='Examples:\n  findsession index\n  findsession "the deploy that lied about '
        'being live"\n  findsession read 5ac30ab5 --turn 3 --context 1\n  findsession open 2',
        formatter_class=argparse.RawDescriptionHelpFormatter,
        parents=[common],
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("search", parents=[common], help="search the index (the default command)")
    p.add_argument("query", nargs="+", help="words, a phrase, an identifier, an error message")
    p.add_argument(
        "--top",
        type=_whole_number(1, MAX_TOP, f"give a whole number of sessions from 1 to {MAX_TOP}"),
        default=10,
        metavar="N",
        help=f"sessions to show, 1 to {MAX_TOP} (10)",
    )
    p.add_argument("--json", action="store_true", help="print results as JSON (docs/json.md)")
    p.add_argument("--raw", action="store_true", help="pass the query to FTS5 as it is")
    p.add_argument("--project", metavar="PATH", help="only sessions started in PATH or below")
    p.add_argument("--here", action="store_true", help="only sessions of the current directory")
    p.add_argument("--session", metavar="ID", help="only this session (id or prefix)")
    p.add_argument("--speaker", choices=SPEAKERS, help="match only what this side said")
    p.add_argument(
        "--after", type=_when, metavar="WHEN", help="date, time or age (7d, 2w) to start from"
    )
    p.add_argument("--before", type=_when, metavar="WHEN", help="date, time or age to end before")
    p.add_argument("--kind", choices=KINDS, help="only turns, session fingerprints or docs")
    p.add_argument(
        "--source",
        metavar="KINDS",
        help=f"only these sources, comma-separated ({', '.join(k.value for k in SourceKind)};"
        " `findsession sources` lists them)",
    )
    p.add_argument("--mode", choices=MODES, default="hybrid", help="retrieval (best available)")
    p.add_argument("--explain", action="store_true", help="show why each hit ranked where it did")
    backend_option(p)
    p.add_argument(
        "--hybrid-weight",
        type=float,
        metavar="W",
        help="weight of the vector list in fusion, 0 to 1 (config [search], default 0.5)",
    )

    p = sub.add_parser("index", parents=[common], help="index transcripts (incremental)")
    p.add_argument(
        "roots",
        nargs="*",
        metavar="ROOT",
        help="folders to index (default: every source's standard place, the config's"
        " roots and the chat exports named before; `findsession sources` lists them)",
    )
    p.add_argument(
        "--source",
        metavar="KIND",
        help="read the named folders as this source (default: the source whose standard"
        " place holds them, else claude-code); a chat app's export is named with its own:"
        " --source chatgpt|claude-ai|gemini-apps EXPORT.zip",
    )
    p.add_argument(
        "--prune", action="store_true", help="remove sessions whose transcript file is gone"
    )
    p.add_argument(
        "--no-embed", action="store_true", help="update the keyword index only, not the vectors"
    )
    p.add_argument(
        "--rebuild",
        action="store_true",
        help="set the current index aside (kept as *.broken-DATE) and index from scratch",
    )
    p.add_argument("-v", "--verbose", action="store_true", help="list every skipped line")
    p.add_argument("--json", action="store_true", help="print the run's summary as JSON")

    p = sub.add_parser("read", parents=[common], help="print a session or some of its turns")
    p.add_argument("session", help="session id or a unique prefix of it")
    p.add_argument(
        "--turn",
        type=_whole_number(1, None, "turns are numbered from 1: give 1 or more"),
        metavar="N",
        help="only turn N (numbered from 1)",
    )
    p.add_argument(
        "--context",
        type=_whole_number(0, None, "give 0 or more turns"),
        default=0,
        metavar="K",
        help="with --turn, also K turns before and after",
    )
    p.add_argument("--tools", action="store_true", help="include tool calls and their output")
    p.add_argument(
        "--raw",
        action="store_true",
        help="show the transcript's own text, secrets included (default: as indexed, redacted)",
    )
    p.add_argument("--json", action="store_true", help="print as JSON")
    backend_option(p)

    p = sub.add_parser(
        "open",
        parents=[common],
        help="resume a session in its own agent and directory (claude --resume, codex resume…)",
    )
    p.add_argument(
        "target",
        metavar="N|SESSION",
        help="a result's number in the last search shown in this terminal, or a session id"
        " or unique prefix (more than four characters if it is all digits)",
    )
    p.add_argument(
        "--print",
        action="store_true",
        help="print the command (cd DIR && …) instead of running it",
    )
    p.add_argument("--json", action="store_true", help="print the command and session as JSON")
    backend_option(p)  # `open N` after a search of the shared server

    p = sub.add_parser(
        "sources", parents=[common], help="each source: where it looks, files, sessions, problems"
    )
    p.add_argument("--json", action="store_true", help="print as JSON")
    p.add_argument(
        "--all",
        action="store_true",
        help="show in full the sources with nothing on this machine too (else named on one line)",
    )

    p = sub.add_parser("status", parents=[common], help="what the index holds")
    p.add_argument("--json", action="store_true", help="print as JSON")
    backend_option(p)

    p = sub.add_parser("forget", parents=[common], help="delete sessions from the index for good")
    p.add_argument("sessions", nargs="*", metavar="SESSION", help="session ids or prefixes")
    p.add_argument("--project", metavar="PATH", help="every session started in PATH or below")
    p.add_argument("--json", action="store_true", help="print what was forgotten as JSON")

    p = sub.add_parser("audit", parents=[common], help="what agents searched and were shown (MCP)")
    p.add_argument(
        "--limit",
        type=_whole_number(1, 10**9, "give a whole number of records, 1 or more"),
        default=50,
        metavar="N",
        help="records to list (50)",
    )
    p.add_argument("--since", type=_when, metavar="WHEN", help="only from this date, time or age")
    p.add_argument(
        "--query",
        metavar="TEXT",
        help="only searches for exactly this text (its digest under the index's audit key)",
    )
    p.add_argument("--json", action="store_true", help="print as JSON (docs/json.md)")

    p = sub.add_parser(
        "titles",
        parents=[common],
        help="propose a short title for each session without one; --write gives it",
    )
    action = p.add_mutually_exclusive_group()
    action.add_argument(
        "--write",
        action="store_true",
        help="give the titles: a line appended to Claude Code transcripts where safe"
        " (config [titles] writer, quiet_minutes), the index only for other agents",
    )
    action.add_argument(
        "--undo", action="store_true", help="take out exactly the titles findsession wrote"
    )
    p.add_argument("--session", metavar="ID", help="only this session (id or prefix)")
    p.add_argument("--json", action="store_true", help="print as JSON")

    p = sub.add_parser("serve", parents=[common], help="run the MCP server over stdio (for agents)")
    p.add_argument(
        "--directory",
        metavar="DIR",
        help="the one project the tools reach: sessions started in it or below (default:"
        " the current directory)",
    )
    p.add_argument(
        "--all-projects",
        action="store_true",
        help="let the tools reach every project (else only --directory's)",
    )

    p = sub.add_parser(
        "service",
        parents=[common],
        help="the resident service (every search warm, the index fresh from file events):"
        " start, stop, status, run in the foreground, install or uninstall the unit that"
        " starts it at login",
    )
    p.add_argument("action", choices=SERVICE_ACTIONS, help="what to do")
    p.add_argument("--json", action="store_true", help="with status: print as JSON")

    p = sub.add_parser(
        "schedule",
        parents=[common],
        help="index every 15 minutes without a resident process (systemd timer, launchd agent)",
    )
    p.add_argument("action", choices=("install", "remove"), help="what to do")

    p = sub.add_parser(
        "ui",
        parents=[common],
        help="search, read and browse in your browser (a page on 127.0.0.1, behind a token)",
    )
    p.add_argument("--no-open", action="store_true", help="print the link, open no browser")
    p.add_argument(
        "--port",
        type=_whole_number(1, 65535, "give a port from 1 to 65535"),
        metavar="N",
        help="the port to listen on (default: any free one)",
    )
    team_commands(sub, common)
    session_commands(sub, common)
    return parser


def normalise_argv(argv: list[str]) -> list[str]:
    """Insert `search` when the first word is not a command: `findsession "query"`."""
    for i, arg in enumerate(argv):
        if arg in ("-h", "--help", "--version"):
            return argv
        if arg == "--db":
            continue
        if i > 0 and argv[i - 1] == "--db":
            continue
        if arg.startswith("--db="):
            continue
        if arg in COMMANDS:
            return argv
        return [*argv[:i], "search", *argv[i:]]
    return argv
