"""The grammar of findsession's own commands: one function per command, adding its
arguments to the parser `cli.table` made for it.

The commands of a session or a file elsewhere are in `session_grammar`, a team's in
`team_grammar`; the types every one shares in `arguments`.
"""

from __future__ import annotations

import argparse

from findsession.api import KINDS, MAX_TOP, MODES, SOURCE_KINDS, SPEAKERS
from findsession.cli.arguments import backend_option, when, whole_number

#: What `findsession service` does: run and control the resident search service, or
#: install the unit that starts it at login.
SERVICE_ACTIONS = ("start", "stop", "status", "run", "install", "uninstall")


def search(p: argparse.ArgumentParser) -> None:
    p.add_argument("query", nargs="+", help="words, a phrase, an identifier, an error message")
    p.add_argument(
        "--top",
        type=whole_number(1, MAX_TOP, f"give a whole number of sessions from 1 to {MAX_TOP}"),
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
        "--after", type=when, metavar="WHEN", help="date, time or age (7d, 2w) to start from"
    )
    p.add_argument("--before", type=when, metavar="WHEN", help="date, time or age to end before")
    p.add_argument("--kind", choices=KINDS, help="only turns, session fingerprints or docs")
    p.add_argument(
        "--source",
        metavar="KINDS",
        help=f"only these sources, comma-separated ({', '.join(SOURCE_KINDS)};"
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


def index(p: argparse.ArgumentParser) -> None:
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


def read(p: argparse.ArgumentParser) -> None:
    p.add_argument("session", help="session id or a unique prefix of it")
    p.add_argument(
        "--turn",
        type=whole_number(1, None, "turns are numbered from 1: give 1 or more"),
        metavar="N",
        help="only turn N (numbered from 1)",
    )
    p.add_argument(
        "--context",
        type=whole_number(0, None, "give 0 or more turns"),
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


def open_session(p: argparse.ArgumentParser) -> None:
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


def sources(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="print as JSON")
    p.add_argument(
        "--all",
        action="store_true",
        help="show in full the sources with nothing on this machine too (else named on one line)",
    )


def status(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="print as JSON")
    backend_option(p)


def forget(p: argparse.ArgumentParser) -> None:
    p.add_argument("sessions", nargs="*", metavar="SESSION", help="session ids or prefixes")
    p.add_argument("--project", metavar="PATH", help="every session started in PATH or below")
    p.add_argument("--json", action="store_true", help="print what was forgotten as JSON")


def audit(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--limit",
        type=whole_number(1, 10**9, "give a whole number of records, 1 or more"),
        default=50,
        metavar="N",
        help="records to list (50)",
    )
    p.add_argument("--since", type=when, metavar="WHEN", help="only from this date, time or age")
    p.add_argument(
        "--query",
        metavar="TEXT",
        help="only searches for exactly this text (its digest under the index's audit key)",
    )
    p.add_argument("--json", action="store_true", help="print as JSON (docs/json.md)")


def titles(p: argparse.ArgumentParser) -> None:
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


def serve(p: argparse.ArgumentParser) -> None:
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


def service(p: argparse.ArgumentParser) -> None:
    p.add_argument("action", choices=SERVICE_ACTIONS, help="what to do")
    p.add_argument("--json", action="store_true", help="with status: print as JSON")


def schedule(p: argparse.ArgumentParser) -> None:
    p.add_argument("action", choices=("install", "remove"), help="what to do")


def ui(p: argparse.ArgumentParser) -> None:
    p.add_argument("--no-open", action="store_true", help="print the link, open no browser")
    p.add_argument(
        "--port",
        type=whole_number(1, 65535, "give a port from 1 to 65535"),
        metavar="N",
        help="the port to listen on (default: any free one)",
    )
