"""The `findsession` command: a thin layer over the Python API.

`findsession "query"` is short for `findsession search "query"`. Every command takes
`--db PATH` (or `FINDSESSION_DB`) and most take `--json` for a stable machine schema.
Every command is one entry of `table` (its grammar, what runs it, whether the resident
service may answer it); this module parses the line, runs the command with its
`Context` and owns the exit status.

`--version` and `--help` answer from the grammar alone: the commands, their output
(rich) and what they call (SQLite, numpy) are imported once a command is to run, and a
command the service answers never imports the index at all.
"""

from __future__ import annotations

import os
import sys

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    """Run one command; the exit status: 0 done, 1 an error (said in one line), 2 a bad
    command line, 130 interrupted."""
    argv = list(sys.argv[1:] if argv is None else argv)
    bad = _not_utf8(argv)
    if bad is not None:
        print(f"error: {bad}", file=sys.stderr)
        return 2
    if argv == ["--version"]:
        from findsession import __version__

        print(f"findsession {__version__}")
        return 0
    from findsession.cli.parser import build_parser, normalise_argv

    args = build_parser().parse_args(normalise_argv(argv))
    if args.command is None:
        build_parser().print_help()
        return 2
    from findsession.paths import no_home

    homeless = no_home()
    if homeless is not None:
        print(f"error: {homeless}", file=sys.stderr)
        return 1
    from findsession.cli.table import BY_NAME
    from findsession.errors import FindsessionError
    from findsession.protocol.context import Context

    command = BY_NAME[args.command]
    ctx = Context(args, served=command.served)
    try:
        return command.function()(args, ctx)
    except FindsessionError as exc:
        from findsession.render.console import print_error

        print_error(ctx.err, exc)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # `findsession ... | head`: the reader left; say nothing.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    finally:
        ctx.close()


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
