"""The `findsession` command: a thin layer over the Python API.

`findsession "query"` is short for `findsession search "query"`. Every command takes
`--db PATH` (or `FINDSESSION_DB`) and most take `--json` for a stable machine schema.
The grammar is in `parser`, what each command does in `commands`; this module runs one
and owns the exit status.

`--version` and `--help` answer from the grammar alone: the commands, their output
(rich) and what they call (SQLite, numpy) are imported once a command is to run.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING

from findsession.cli.remote import forward

if TYPE_CHECKING:
    from rich.console import Console

    from findsession.api import Findsession

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    """Run one command; the exit status: 0 done, 1 an error (said in one line), 2 a bad
    command line, 130 interrupted."""
    argv = list(sys.argv[1:] if argv is None else argv)
    bad = _not_utf8(argv)
    if bad is not None:
        print(f"error: {bad}", file=sys.stderr)
        return 2
    served = forward(argv)  # before importing anything heavy: the service may answer
    if served is not None:
        return served
    if argv == ["--version"]:
        from findsession import __version__

        print(f"findsession {__version__}")
        return 0
    from findsession.cli.parser import build_parser, normalise_argv

    args = build_parser().parse_args(normalise_argv(argv))
    if args.command is None:
        build_parser().print_help()
        return 2
    from rich.console import Console

    from findsession.api import Findsession
    from findsession.cli.console import print_error, say
    from findsession.errors import FindsessionError

    out = Console(highlight=False)
    err = Console(stderr=True, highlight=False)
    try:
        if args.command == "server":  # the admin's: no index of one's own is opened
            from findsession.api import configured_server
            from findsession.cli.team import server

            return server(args, args.url or configured_server(), err)
        fs = Findsession.open(
            getattr(args, "db", None),
            rebuild=getattr(args, "rebuild", False),
            backend=_backend(args),
        )
        with fs:
            for note in fs.notes:
                say(err, note)
            return run_command(args, fs, out, err)
    except FindsessionError as exc:
        print_error(err, exc)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # `findsession ... | head`: the reader left; say nothing.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def _not_utf8(argv: list[str]) -> str | None:
    """Why an argument cannot be taken, when one is not UTF-8 (Python reads such bytes as
    lone surrogates, which no index, database or terminal takes: every command that met
    one ended in a traceback)."""
    for n, arg in enumerate(argv, 1):
        try:
            arg.encode("utf-8")
        except UnicodeEncodeError:
            raw = os.fsencode(arg)
            return (
                f"argument {n} ({raw!r}) is not UTF-8: findsession reads its arguments, paths"
                " and queries alike, as UTF-8 text"
            )
    return None


def _backend(args: argparse.Namespace) -> str | None:
    """Where the command's index is: `push` reads this machine's own file, `share`
    writes on the server; the rest follow `--backend`, else the config."""
    if args.command == "push":
        return "sqlite"
    if args.command == "share":
        return args.backend or "postgresql"
    return getattr(args, "backend", None)


def run_command(args: argparse.Namespace, fs: Findsession, out: Console, err: Console) -> int:
    """One parsed command on an open index, its error said in one line: the same for a
    command run here and one the service runs for a client."""
    from findsession.cli.commands import COMMANDS
    from findsession.cli.console import print_error
    from findsession.errors import FindsessionError

    try:
        return COMMANDS[args.command](args, fs, out, err)
    except FindsessionError as exc:
        print_error(err, exc)
        return 1
