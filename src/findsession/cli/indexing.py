"""`findsession index`: read what changed into the index, then embed it, then (with
`[storage] push = true`) send the team's server what changed.

Run in this process, never by the service: it writes the index and shows its progress
on this terminal.
"""

from __future__ import annotations

import argparse

from rich.console import Console

from findsession import jsonout, render
from findsession.api import Findsession
from findsession.cli.progress import progress_bar
from findsession.cli.team import say_pushed
from findsession.errors import FindsessionError
from findsession.paths import tilde
from findsession.protocol.context import Context
from findsession.render.console import say


def index(args: argparse.Namespace, ctx: Context) -> int:
    """Index, then embed what is new; Ctrl-C at either stage keeps what is done (130)."""
    fs, err = ctx.fs, ctx.err
    roots = fs.roots(args.roots, source=args.source)
    for note in roots.notes:
        say(err, tilde(note))
    with progress_bar(err, "indexing") as progress:
        report = fs.index(roots, prune=args.prune, progress=progress)
    render.print_index_report(err, report, args.verbose)
    embedded = None
    if not report.interrupted and not args.no_embed:
        with progress_bar(err, "embedding") as progress:
            embedded = fs.embed(progress=progress, say=lambda line: say(err, line))
        if embedded is not None:
            render.print_embed_report(err, embedded)
    if args.json:
        print(jsonout.dumps(jsonout.index_json(report, embedded)))
    if report.failed:
        return 1
    if report.interrupted or (embedded and embedded.interrupted):
        return 130
    if roots.missing:
        named = ", ".join(map(str, roots.missing))
        say(err, f"error: {named} {'does' if len(roots.missing) == 1 else 'do'} not exist:"
                 " not read (the rest was)")  # fmt: skip
        return 1
    if fs.settings.push_after_index:
        _push_after(fs, err)
    return 0


def _push_after(fs: Findsession, err: Console) -> None:
    """`[storage] push = true`: send the team's server what changed. A server that is
    down costs this run nothing: the index is done, and the next run (or `findsession
    push`) sends everything still unsent."""
    try:
        say_pushed(err, fs.push())
    except FindsessionError as exc:
        say(err, f"warning: the index is up to date but the push failed: {exc}")
