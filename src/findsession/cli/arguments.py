"""The argument types every command's grammar shares, checked as they are typed.

Values are checked here, where argparse can name the option that was wrong, so a bad
`--top` or `--after` is refused before an index is opened, in one line.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import NoReturn

from findsession.render.text import printable


class Parser(argparse.ArgumentParser):
    """argparse whose errors are one line, like findsession's own: what is wrong and
    where the help is, without the usage block."""

    def error(self, message: str) -> NoReturn:
        line = " ".join(printable(message).split())
        self.exit(2, f"{self.prog}: error: {line} (see `{self.prog} --help`)\n")


def whole_number(low: int, high: int | None, wanted: str) -> Callable[[str], int]:
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


def when(text: str) -> str:
    """An argparse type: a date, time or age, checked where it is typed."""
    from findsession.api import BadOption, parse_when

    try:
        return parse_when(text)
    except BadOption as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def backend_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--backend",
        metavar="WHERE",
        help="answer from another index: sqlite (this machine's file), postgresql (the"
        " config's [storage] url: the team's server) or a postgresql:// URL",
    )
