"""The grammar of a team's shared index: `push`, `share` and `server`
(docs/shared-index.md).
"""

from __future__ import annotations

import argparse

from findsession.cli.arguments import backend_option, whole_number


def push(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--to",
        metavar="URL",
        help="the server (default: [storage] url or FINDSESSION_STORAGE_URL)",
    )
    p.add_argument(
        "--batch",
        type=whole_number(1, 100_000, "give a whole number of sessions, 1 or more"),
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


def share(p: argparse.ArgumentParser) -> None:
    p.add_argument("project", nargs="?", metavar="PROJECT", help="a project's directory")
    action = p.add_mutually_exclusive_group()
    action.add_argument("--remove", action="store_true", help="stop showing PROJECT")
    action.add_argument("--list", action="store_true", help="list every shared project")
    p.add_argument("--json", action="store_true", help="print as JSON")
    backend_option(p)


def server(p: argparse.ArgumentParser) -> None:
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
