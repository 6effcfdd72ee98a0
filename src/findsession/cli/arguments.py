"""The argument types every command's grammar shares, checked as they are typed.

Values are checked here, where argparse can name the option that was wrong, so a bad
`--top` or `--after` is refused before an index is opened, in one line.
"""

from __future__ import annotations

import argparse
import textwrap
from collections.abc import Callable
from typing import Any, NoReturn

from findsession.render.text import printable


class WholeNames(argparse.HelpFormatter):
    """Help wrapped between words only: a name in a list (`gemini-apps`, `roo-code`) is
    never cut at its hyphen, where it could not be read or searched for whole."""

    def _split_lines(self, text: str, width: int) -> list[str]:
        text = " ".join(text.split())
        return textwrap.wrap(text, width, break_on_hyphens=False)


class RawDescription(WholeNames, argparse.RawDescriptionHelpFormatter):
    """A description and epilog kept as written, the options' help as `WholeNames`."""


class Parser(argparse.ArgumentParser):
    """argparse whose errors are one line, like findsession's own: what is wrong and
    where the help is, without the usage block; its help wrapped by `WholeNames`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", WholeNames)
        super().__init__(*args, **kwargs)

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
