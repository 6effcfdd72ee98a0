"""The lines a command writes itself: notes as things happen, and the one line of an error.

Both may hold text from a transcript, a path or an exception, so neither is ever read
as rich markup nor lets a control sequence through to the terminal.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from findsession.render.text import printable

if TYPE_CHECKING:  # a console is made by whoever prints: `--json` output may need none
    from rich.console import Console

    from findsession.errors import FindsessionError


def say(console: Console, line: str) -> None:
    """Print a line that may hold text from a transcript, a path or an exception:
    never read as rich markup, never a control sequence."""
    from rich.text import Text

    console.print(Text(printable(line)), soft_wrap=True)


def print_error(err: Console, exc: FindsessionError) -> None:
    """The error as one line, whatever its message holds (a path with a newline, rich
    markup), with the CLI's own hint (a flag to try) after it."""
    message = f"{exc}: {exc.cli_hint}" if exc.cli_hint else str(exc)
    line = " ".join(printable(message).split())
    from rich.text import Text

    err.print(Text("error:", style="red") + Text(" " + line), soft_wrap=True)
