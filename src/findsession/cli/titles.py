"""`findsession titles`: propose titles, give them (`--write`) or take them back (`--undo`).

Kept apart from `commands` so that module stays one screen of small commands. The
results go to stdout (a line per session, or JSON), the tally and notes to stderr.
"""

from __future__ import annotations

import argparse
from collections import Counter

from findsession import jsonout, render
from findsession.protocol.context import Context
from findsession.render.console import say


def titles(args: argparse.Namespace, ctx: Context) -> int:
    """Exit 1 when the one session named could not be given (or relieved of) its title,
    so a script can tell; a refusal among many sessions is an answer, not a failure."""
    fs, out, err = ctx.fs, ctx.out, ctx.err
    if args.undo:
        undone = fs.undo_titles(args.session)
        if args.json:
            print(jsonout.dumps(jsonout.undo_json(undone)))
        else:
            render.print_undo(out, undone)
        for note in undone.notes:
            say(err, f"note: {note}")
        tally = Counter(r.status for r in undone.results)
        err.print(f"[dim]{_tally(tally) or 'findsession has written no titles'}[/]", soft_wrap=True)
        refused = tally["refused"]
        return 1 if refused and args.session else 0
    report = fs.titles(args.session, write=args.write)
    if args.json:
        print(jsonout.dumps(jsonout.titles_json(report)))
    else:
        render.print_titles(out, report)
    for note in report.notes:
        say(err, f"note: {note}")
    tally = Counter(r.status for r in report.results)
    line = _tally(tally) or "no session needs a title"
    if report.titled:
        line += f"; {report.titled} with a title of their own left alone"
    line += f" · {report.by} titles"
    if not args.write:
        line += " · nothing written"
        if tally["proposed"]:
            line += "; `findsession titles --write` gives the proposed ones"
    err.print(f"[dim]{line}[/]", soft_wrap=True)
    named_failed = args.session and args.write and tally["refused"]
    return 1 if named_failed else 0


def _tally(counts: Counter[str]) -> str:
    order = ("written", "indexed", "removed", "proposed", "refused", "skipped", "gone")
    return ", ".join(f"{counts[k]} {k}" for k in order if counts[k])
