"""Handing a command to the resident service, before anything heavy is imported.

When a service runs for this index, a search costs a socket round trip: the process
imports the standard library and this, not the model, numpy or the index. The service
runs the very same command code and sends back what it printed, so the output is the
same byte for byte. Whenever it cannot answer (none runs, it died, it is of another
version, it is stuck), the command runs here instead, and a replacement is started if
one is wanted: a person never waits on a dead service.
"""

from __future__ import annotations

import os
import sys

#: Commands the service may answer: they only read the index and print.
SERVED = frozenset({"search", "read", "status"})
#: Commands that must run here: they change the index, run programs, or talk on stdio.
LOCAL = frozenset(
    {
        "index",
        "open",
        "service",
        "schedule",
        "serve",
        "titles",
        "forget",
        "audit",
        "sources",
        "ui",
        "push",
        "share",
        "server",
    }
)
#: The environment that decides how output looks.
LOOKS = ("TERM", "COLORTERM", "NO_COLOR", "FORCE_COLOR", "COLUMNS", "LINES", "TTY_COMPATIBLE")


def might_serve(argv: list[str]) -> bool:
    """A cheap first guess from the words alone; the service parses the line for real
    and hands back anything it does not answer."""
    if os.environ.get("FINDSESSION_NO_SERVICE") or not argv:
        return False
    first = argv[0]
    if first in ("-h", "--help", "--version") or first in LOCAL:
        return False
    # `--backend`: another index than the one the service keeps warm.
    return not {"-h", "--help", "--backend"} & set(argv) and not any(
        a.startswith("--backend=") for a in argv
    )


def db_argument(argv: list[str]) -> str | None:
    """`--db PATH` or `--db=PATH` from the line, as the parser would read it."""
    for at, word in enumerate(argv):
        if word == "--":
            break
        if word == "--db" and at + 1 < len(argv):
            return argv[at + 1]
        if word.startswith("--db="):
            return word[5:]
    return None


def forward(argv: list[str]) -> int | None:
    """Run the command in the service; its exit status, or None to run it here."""
    if not might_serve(argv):
        return None
    from findsession.cli.terminal import terminal_id
    from findsession.protocol.client import Unavailable, ask, replace_if_wanted
    from findsession.protocol.place import NoPlace, Place
    from findsession.render.text import printable, printable_styled

    try:
        place = Place.for_index(db_argument(argv))
    except (NoPlace, OSError):
        return None
    request = {
        "op": "cli",
        "argv": argv,
        "cwd": os.getcwd(),
        "terminal": terminal_id(),
        "tty": [os.isatty(1), os.isatty(2)],
        "width": _width(),
        "env": {k: os.environ[k] for k in LOOKS if k in os.environ},
    }
    try:
        reply = ask(place, request)
    except Unavailable as why:
        if why.foreign:
            sys.stderr.write(f"warning: {printable(str(why))}; searching here instead\n")
        replace_if_wanted(place, why)
        return None
    status = reply.get("status")
    if reply.get("local") or not isinstance(status, int):
        return None
    # The service runs our own code, but what it sends passes the same filter as any
    # transcript's text (its colours kept): a reply is never obeyed by the terminal.
    try:
        sys.stdout.write(printable_styled(str(reply.get("stdout", ""))))
        sys.stdout.flush()
    except BrokenPipeError:  # `findsession ... | head`: the reader left; say nothing
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    sys.stderr.write(printable_styled(str(reply.get("stderr", ""))))
    return status


def _width() -> int | None:
    """The terminal's width as the console here would find it: from the first of stdin,
    stdout and stderr that is a terminal (a piped search in a terminal keeps its width)."""
    for fd in (0, 1, 2):
        try:
            return os.get_terminal_size(fd).columns
        except OSError:
            continue
    return None
