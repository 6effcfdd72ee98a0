"""`findsession handoff SESSION`: a Markdown brief to carry a session on.

`--to AGENT` prints the command that starts that agent in the session's directory with
the brief as its first prompt; `--run` runs it, after the same checks as `open` (the
directory exists, the agent is on PATH), in place of findsession. Nothing runs without
`--run`.
"""

from __future__ import annotations

import argparse

from findsession import jsonout, render
from findsession.api import HandoffOptions
from findsession.cli.export import write_file
from findsession.cli.open_session import directory_problem, print_or_run
from findsession.errors import FindsessionError
from findsession.paths import expand
from findsession.protocol import requests as rq
from findsession.protocol.context import Context
from findsession.render.console import say


def handoff(args: argparse.Namespace, ctx: Context) -> int:
    if args.run and not args.to:
        raise FindsessionError("--run starts the agent --to names: give --to AGENT too")
    options = HandoffOptions(model=not args.no_model)
    brief = ctx.ask(rq.Handoff(args.session, options, to=args.to)).result
    for note in brief["notes"]:
        say(ctx.err, f"note: {note}")
    if args.json:
        print(jsonout.dumps(brief))
        return 0
    start = brief["start"]
    if start is None:
        if args.output:
            write_file(expand(args.output), brief["markdown"], private=False)
            say(ctx.err, f"wrote {args.output}")
        else:
            print(brief["markdown"], end="")
        return 0
    if not start["available"] or start["shell"] is None:
        raise FindsessionError(start["reason"] or f"cannot start {start['agent']}")
    return print_or_run(
        ctx,
        start,
        start["shell"],
        directory_problem(start),
        run=args.run,
        cannot="",
        starting=f"starting {start['command'][0]} in {render.home(start['cwd'])} with the"
        " handoff brief",
    )
