"""The grammar of the commands that take one session or one file elsewhere: `export`
(a session as one Markdown or HTML file), `handoff` (a brief to carry a session on) and
`blame` (the sessions that wrote a file).
"""

from __future__ import annotations

import argparse

from findsession.api import HANDOFF_AGENTS
from findsession.cli.arguments import whole_number

EXPORT_FORMATS = ("md", "html")


def export(p: argparse.ArgumentParser) -> None:
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


def handoff(p: argparse.ArgumentParser) -> None:
    p.add_argument("session", help="session id or a unique prefix of it")
    p.add_argument(
        "--to",
        metavar="AGENT",
        help=f"print the command that starts AGENT ({', '.join(HANDOFF_AGENTS)}) in the"
        " session's directory with the brief as its first prompt",
    )
    p.add_argument(
        "--run",
        action="store_true",
        help="with --to: run that command (after the same checks as `open`)",
    )
    p.add_argument(
        "--no-model",
        action="store_true",
        help="extract only, even when [titles] provider names a model",
    )
    p.add_argument("-o", "--output", metavar="FILE", help="write the brief to FILE")
    p.add_argument("--json", action="store_true", help="print as JSON (docs/json.md)")


def blame(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "target",
        metavar="PATH[:LINE[-LINE]]",
        help="a file, as it is now; with :LINE or :FIRST-LAST, the sessions that wrote"
        " those lines come first and each line names its last writer",
    )
    p.add_argument("--project", metavar="PATH", help="only sessions started in PATH or below")
    p.add_argument(
        "--top",
        type=whole_number(1, 1000, "give a whole number of writes from 1 to 1000"),
        default=20,
        metavar="N",
        help="writes to show, 1 to 1000 (20; a line's last writer is always shown)",
    )
    p.add_argument("--json", action="store_true", help="print as JSON (docs/json.md)")
