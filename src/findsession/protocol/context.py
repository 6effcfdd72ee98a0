"""What a command runs with: its options, stdout and stderr, and the index, asked through
the resident service when one runs for it, else in this process.

Every interface's commands take one (the CLI's own, and `serve`, `ui`, `service` and
`schedule`, which the other interfaces own), so it lives below them all.

A command that only asks questions of the index (`search`, `read`, `blame`, ...) asks
them as typed requests (`ask`) and renders the object that comes back; it cannot tell
whether the service answered or this process did, and prints the same either way. The
service is tried first, before the index is opened here: a search it answers costs this
process no model, no vectors and no SQLite. Whenever it cannot answer (none runs, it
died, it runs another version, it is stuck) the question is answered here instead, and a
replacement is started if one is wanted: a person never waits on a dead service. A
command that changes the index or runs programs uses the core API here (`fs`).
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console

    from findsession.api import Findsession
    from findsession.protocol.place import Place
    from findsession.protocol.requests import Answer, Request


class Context:
    """One command's run: `args`, `out`, `err`, and the index (`ask`, `fs`)."""

    def __init__(self, args: argparse.Namespace, served: bool) -> None:
        self.args = args
        self._place = _service_place(args) if served else None
        self._fs: Findsession | None = None

    @functools.cached_property
    def out(self) -> Console:
        """Results for people (made on first use: `serve` beside a service prints none)."""
        from rich.console import Console

        return Console(highlight=False)

    @functools.cached_property
    def err(self) -> Console:
        """Notes, timings and errors."""
        from rich.console import Console

        return Console(stderr=True, highlight=False)

    def ask(self, request: Request) -> Answer:
        """The answer to `request`: the service's while it answers, else this process's."""
        if self._place is not None:
            from findsession.protocol.client import Unavailable, ask_operation, replace_if_wanted

            try:
                return ask_operation(self._place, request)
            except Unavailable as why:
                if why.foreign:
                    _say(self.err, f"warning: {why}; searching here instead")
                replace_if_wanted(self._place, why)
                self._place = None  # the rest of this command runs here too
        from findsession.protocol.operations import answer

        return answer(self.fs, request)

    @property
    def fs(self) -> Findsession:
        """The index, opened in this process on first use; its notes said on stderr."""
        if self._fs is None:
            from findsession.api import Findsession

            args = self.args
            self._fs = Findsession.open(
                getattr(args, "db", None),
                rebuild=getattr(args, "rebuild", False),
                backend=_backend(args),
            )
            for note in self._fs.notes:
                _say(self.err, note)
        return self._fs

    def close(self) -> None:
        """Close the index if this process opened it (`open` does, before it becomes
        the agent)."""
        if self._fs is not None:
            self._fs.close()
            self._fs = None


def _say(console: Console, line: str) -> None:
    from findsession.render.console import say

    say(console, line)


def _backend(args: argparse.Namespace) -> str | None:
    """Where the command's index is: `push` reads this machine's own file, `share`
    writes on the server; the rest follow `--backend`, else the config."""
    if args.command == "push":
        return "sqlite"
    if args.command == "share":
        return args.backend or "postgresql"
    return getattr(args, "backend", None)


def _service_place(args: argparse.Namespace) -> Place | None:
    """Where the service for this command's index would listen, or None when this
    command must run here: no service wanted (`FINDSESSION_NO_SERVICE`), another
    index (`--backend`), or no place a service could be asked safely."""
    if os.environ.get("FINDSESSION_NO_SERVICE") or getattr(args, "backend", None):
        return None
    if sys.platform == "win32":
        return None
    from findsession.protocol.place import NoPlace, Place

    try:
        return Place.for_index(getattr(args, "db", None))
    except (NoPlace, OSError):
        return None
