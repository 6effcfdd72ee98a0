"""The grammar of the commands that take one session or one file elsewhere: `export`
(a session as one Markdown or HTML file), `handoff` (a brief to carry a session on) and
`blame` (the sessions that wrote a file).

Kept apart from `parser` (which calls this) so each module stays one screenful of
commands.
"""

from __future__ import annotations

import argparse

EXPORT_FORMATS = ("md", "html")


def session_commands(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    """`export`, `handoff` and `blame`."""
    p = sub.add_parser(
        "export",
        parents=[common],
        help="write a session as one self-contained Markdown or HTML file",
    )
    p.add_argument("session", help="session id or a unique prefix of it")
    p.add_argument(
        "--format",
        choices=EXPORT_FORMATS,
        help="md or html (default: from -o's extension, else md)",
    )
    p.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="write to FILE (default: print to stdout)",
    )
    p.add_argument(
        "--raw",
        action="count",
        default=0,
        help="the transcript's own text, secrets included: give it twice (--raw --raw),"
        " or once and confirm",
    )
