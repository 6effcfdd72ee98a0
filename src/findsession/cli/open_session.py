"""`findsession open`: go back into a session in its own agent and directory.

`open N` takes result N of the last search shown in this terminal, `open SESSION` an id
or unique prefix. The agent then replaces this process (`os.execvp`), in the session's
working directory, so the terminal is the agent's as if it had been started by hand.
Nothing is run when the command would go wrong: no command for the source, a working
directory that is unknown or gone, an agent that is not on PATH; each is said in one
line, with the command to run by hand on stdout. `--print` prints the command as a shell
line instead; `--json` prints the plan. A session whose transcript its agent deleted is
written back from the archive first (said on stderr, with `--print` too: the printed
command works only once the file is back); one the archive holds no copy of is said in
one line, and nothing is run.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
from typing import Any

from findsession import jsonout, render
from findsession.cli.terminal import terminal_id
from findsession.domain import Resume
from findsession.errors import FindsessionError
from findsession.protocol import requests as rq
from findsession.protocol.context import Context
from findsession.render.console import say

#: `open 2` is a result's number; anything else is a session id or prefix. Four digits
#: covers the longest list a search shows (1000); an id starting with digits is told
#: apart by giving more of it than that.
_POSITION = re.compile(r"[0-9]{1,4}")


def open_session(args: argparse.Namespace, ctx: Context) -> int:
    target = args.target.strip()
    if not target:
        raise FindsessionError("name the session to open: its number in the last search, or id")
    if _POSITION.fullmatch(target):
        request = rq.Resume(terminal=terminal_id(), position=int(target))
    else:
        request = rq.Resume(session=target)
    opened = ctx.ask(request).result
    session, plan = opened["session"], opened["resume"]
    if args.json:
        print(jsonout.dumps(opened))
        return 0
    if not plan["available"]:
        raise FindsessionError(f"{_named(session)} cannot be resumed: {plan['reason']}")
    if plan["restore"] is not None:
        restore(ctx, session, plan)
    line = render.shell_line(resume_of(plan))
    if plan["note"]:
        say(ctx.err, f"note: {plan['note']}")
    problem = (
        f"its transcript is on {plan['machine']}, not this machine"
        if plan["machine"]
        else directory_problem(plan)
    )
    return print_or_run(
        ctx,
        plan,
        line,
        problem,
        run=not args.print,
        cannot=f", so {_named(session)} cannot be resumed here",
        starting=f"resuming {_named(session)} in {render.home(plan['cwd'])}",
    )


def restore(ctx: Context, session: dict[str, Any], plan: dict[str, Any]) -> None:
    """Write the gone transcript back from the archive, saying so; or why it cannot be."""
    gone = plan["restore"]
    if not gone["held"]:
        raise FindsessionError(f"{_named(session)} cannot be resumed: {gone['reason']}")
    done = ctx.ask(rq.Restore(session=plan["session_id"] or session["id"])).result
    for restored in done["restored"]:
        say(
            ctx.err,
            f"restored {render.home(restored['path'])} from the archive"
            f" ({restored['bytes']:,} bytes, checked against the archive's checksums)",
        )
    for note in done["notes"]:
        say(ctx.err, f"note: {note}")


def print_or_run(
    ctx: Context,
    plan: dict[str, Any],
    line: str,
    problem: str | None,
    *,
    run: bool,
    cannot: str,
    starting: str,
) -> int:
    """The command as `line` for the person to run (`run` False; a `problem` is a
    warning), or the agent started in its place, only when nothing stands in the way:
    the directory is there and the agent is on PATH; else the line and why not.
    `open` and `handoff --to --run` both end here, so both make the same checks."""
    if not run:
        print(line)
        if problem:
            say(ctx.err, f"warning: {problem}")
        return 0
    if problem:
        print(line)
        raise FindsessionError(f"{problem}; nothing was run (the command is above)")
    agent = plan["command"][0]
    if shutil.which(agent) is None:
        print(line)
        raise FindsessionError(
            f"{agent!r} is not on PATH{cannot}: install it, or run the command above where"
            " it is"
        )
    ctx.err.print(starting, soft_wrap=True)
    become(ctx, plan)
    return 0  # not reached: the agent has taken this process over


def become(ctx: Context, plan: dict[str, Any]) -> None:
    """Replace this process with the agent, in the session's directory."""
    sys.stdout.flush()
    sys.stderr.flush()
    ctx.close()
    command = plan["command"]
    try:
        os.chdir(plan["cwd"] or ".")
        os.execvp(command[0], list(command))
    except (OSError, ValueError) as exc:  # ValueError: a NUL inside an argument
        raise FindsessionError(f"could not start {command[0]!r}: {exc}") from exc


def resume_of(plan: dict[str, Any]) -> Resume:
    """The command of a resume (or start) object, as the shell line is written from."""
    return Resume(command=tuple(plan["command"]), cwd=plan["cwd"])


def directory_problem(plan: dict[str, Any]) -> str | None:
    """Why the command (a resume or start object) cannot run where it must, or None."""
    if plan["cwd"] is None:
        if plan.get("anywhere"):
            return None  # the agent finds it by its id: where it runs does not matter
        return (
            "the index has no working directory for this session, and the agent finds it"
            " only from there: run the command in the session's project folder"
        )
    if not plan["cwd_exists"]:
        return (
            f"the session's working directory {render.printable(plan['cwd'])} no longer exists"
            " (moved or deleted?): the agent finds the session only from there"
        )
    return None


def _named(session: dict[str, Any]) -> str:
    title = render.printable(session["title"] or "")
    return f"session {session['id']}" + (f" ({title})" if title else "")
