"""`findsession blame PATH[:LINE[-LINE]]`: the sessions that wrote a file, newest first;
with a line or a range, the ones whose written text holds those lines as they read now,
and each line's last writer."""

from __future__ import annotations

import argparse
import os
import re
from pathlib import Path

from findsession import jsonout, render
from findsession.api import BlameOptions
from findsession.errors import FindsessionError
from findsession.paths import expand
from findsession.protocol import requests as rq
from findsession.protocol.context import Context
from findsession.render.console import say

_RANGE = re.compile(r"^(?P<path>.+?):(?P<first>\d+)(?:-(?P<last>\d+))?$")


def blame(args: argparse.Namespace, ctx: Context) -> int:
    path, first, last = parse_target(args.target)
    here = Path.cwd()
    project = str((here / expand(args.project)).absolute()) if args.project else None
    absolute = os.path.normpath(here / expand(path))
    options = BlameOptions(first, last, project, args.top)
    result = ctx.ask(rq.Blame(absolute, options)).result
    if args.json:
        print(jsonout.dumps(result))
    else:
        render.print_blame(ctx.out, result)
    for note in result["notes"]:
        say(ctx.err, f"note: {note}")
    return 0


def parse_target(target: str) -> tuple[str, int | None, int | None]:
    """`PATH`, `PATH:LINE` or `PATH:FIRST-LAST` (a file whose own name ends in `:12`
    is taken whole when it exists)."""
    match = _RANGE.match(target)
    if match is None or os.path.exists(target):
        return target, None, None
    first = int(match["first"])
    last = int(match["last"]) if match["last"] else first
    if first < 1 or last < first:
        raise FindsessionError(
            f"{target!r}: lines are numbered from 1 and a range runs forward (12-20)"
        )
    return match["path"], first, last
