"""The grammar of a team's shared index: `--backend`, `push`, `share` and `server`.

Kept apart from `parser` (which calls these) so each module stays one screenful of
commands; the checks are the same argparse types.
"""

from __future__ import annotations

import argparse


def backend_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--backend",
        metavar="WHERE",
        help="answer from another index: sqlite (this machine's file), postgresql (the"
        " config's [storage] url: the team's server) or a postgresql:// URL",
    )


def team_commands(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    """`push`, `share` and `server`: a team's shared index (docs/shared-index.md)."""
    from findsession.cli.parser import _whole_number  # the grammar's, loaded by now

    p = sub.add_parser(
        "push",
        parents=[common],
        help="send the team's server what this machine's index holds and it lacks",
    )
    p.add_argument(
        "--to",
        metavar="URL",
        help="the server (default: [storage] url or FINDSESSION_STORAGE_URL)",
    )
    p.add_argument(
        "--batch",
        type=_whole_number(1, 100_000, "give a whole number of sessions, 1 or more"),
        metavar="N",
        help="sessions per server transaction (FINDSESSION_PUSH_BATCH, else 200)",
    )
    p.add_argument(
        "--all",
        action="store_true",
        help="send every session again (the server still writes only what differs)",
    )
    p.add_argument("-v", "--verbose", action="store_true", help="a line per batch")
    p.add_argument("--json", action="store_true", help="print the push's report as JSON")

    p = sub.add_parser(
        "share",
        parents=[common],
        help="show the team your sessions of a project on the server (--remove, --list)",
    )
    p.add_argument("project", nargs="?", metavar="PROJECT", help="a project's directory")
    action = p.add_mutually_exclusive_group()
    action.add_argument("--remove", action="store_true", help="stop showing PROJECT")
    action.add_argument("--list", action="store_true", help="list every shared project")
    p.add_argument("--json", action="store_true", help="print as JSON")
    backend_option(p)

    p = sub.add_parser(
        "server",
        parents=[common],
        help="the admin's commands for a team's server: init (schema and group role),"
        " status (the model and its graph, each person's sessions, shared projects),"
        " add-person NAME (a login role of their own), remove-person NAME (their access"
        " ends; what they pushed stays unless --delete-sessions)",
    )
    p.add_argument(
        "action", choices=("init", "status", "add-person", "remove-person"), help="what to do"
    )
    p.add_argument("name", nargs="?", metavar="NAME", help="the person's role")
    p.add_argument("--json", action="store_true", help="with status: print as JSON")
    p.add_argument(
        "--delete-sessions",
        action="store_true",
        help="with remove-person: also delete every session and row they pushed",
    )
    p.add_argument(
        "--url",
        metavar="URL",
        help="connect as the admin (default: [storage] url or FINDSESSION_STORAGE_URL)",
    )
