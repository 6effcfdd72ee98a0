"""The command line's grammar: `findsession [--db PATH] COMMAND ...`, every command's
parser made from `table.COMMANDS`, and `findsession "query"` read as a search.
"""

from __future__ import annotations

import argparse

from findsession.cli.arguments import Parser, RawDescription
from findsession.cli.table import BY_NAME, COMMANDS


def build_parser() -> argparse.ArgumentParser:
    """The `findsession` parser with every command; `--db` is taken before or after one."""
    common = Parser(add_help=False)
    common.add_argument(
        "--db",
        metavar="PATH",
        # SUPPRESS: a subcommand's unset --db must not overwrite one given before it.
        default=argparse.SUPPRESS,
        help="index database (default: FINDSESSION_DB or the user data directory)",
    )
    parser = Parser(
        prog="findsession",
        description="Find the AI coding-agent session you were working on X in.",
        epilog='Examples:\n  findsession index\n  findsession "the deploy that lied about '
        'being live"\n  findsession read 5ac30ab5 --turn 3 --context 1\n  findsession open 2',
        formatter_class=RawDescription,
        parents=[common],
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for command in COMMANDS:
        command.grammar(sub.add_parser(command.name, parents=[common], help=command.help))
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
        if arg in BY_NAME:
            return argv
        return [*argv[:i], "search", *argv[i:]]
    return argv
