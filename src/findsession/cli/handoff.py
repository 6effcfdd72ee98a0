"""`findsession handoff SESSION`: a Markdown brief to carry a session on.

`--to AGENT` prints the command that starts that agent in the session's directory with
the brief as its first prompt; `--run` runs it, after the same checks as `open` (the
directory exists, the agent is on PATH), in place of findsession. Nothing runs without
`--run`.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.console import Console

from findsession import jsonout, render
from findsession.api import Findsession
from findsession.cli.console import say
from findsession.cli.export import write_file
from findsession.cli.open_session import directory_problem, print_or_run
from findsession.errors import FindsessionError


def handoff(args: argparse.Namespace, fs: Findsession, out: Console, err: Console) -> int:
    if args.run and not args.to:
        raise FindsessionError("--run starts the agent --to names: give --to AGENT too")
    brief = fs.handoff(args.session, model=not args.no_model)
    resume = render.shell_line(brief.resume) if brief.resume.available else None
    markdown = render.handoff_markdown(brief, resume)
    for note in brief.notes:
        say(err, f"note: {note}")
    start = None
    if args.to:
        plan = fs.start_with(brief.session, args.to, markdown)
        start = (args.to, plan, render.start_line(plan) if plan.available else None)
    if args.json:
        print(jsonout.dumps(jsonout.handoff_json(brief, markdown, start)))
        return 0
    if start is None:
        if args.output:
            write_file(Path(args.output).expanduser(), markdown, private=False)
            say(err, f"wrote {args.output}")
        else:
            print(markdown, end="")
        return 0
    agent, plan, line = start
    if not plan.available or line is None:
        raise FindsessionError(plan.reason or f"cannot start {agent}")
    return print_or_run(
        fs,
        plan,
        line,
        directory_problem(plan),
        err,
        run=args.run,
        cannot="",
        starting=f"starting {plan.command[0]} in {render.home(plan.cwd)} with the handoff brief",
    )
