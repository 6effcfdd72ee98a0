"""What each command does: options in, a question to the index, output for people or JSON.

Every command has the same signature so `main` can run one and turn a
`FindsessionError` into one line the same way for all of them. Results go to stdout,
what ran and how long it took to stderr, so a pipe gets only the results. The commands
the service may answer (`search`, `read`, `status`) ask typed requests (`ctx.ask`) and
render the object that comes back; the others use the core API here (`ctx.fs`). Light on
imports: a served search imports this and what renders its answer, nothing of the index.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from findsession import jsonout, render
from findsession.api import ReadOptions, SearchOptions
from findsession.cli.terminal import terminal_id
from findsession.errors import FindsessionError
from findsession.paths import expand
from findsession.protocol import requests as rq
from findsession.protocol.context import Context
from findsession.render.console import say


def search(args: argparse.Namespace, ctx: Context) -> int:
    """Exit 1 only when the index is empty, so a script can tell "run index first"
    from "nothing matched"."""
    cwd = Path.cwd()
    project = str(cwd) if args.here else args.project
    options = SearchOptions(
        hybrid_weight=args.hybrid_weight,  # None: the config's
        top=args.top,
        mode=args.mode,
        project=str((cwd / expand(project)).resolve()) if project else None,
        session=args.session,
        speaker=args.speaker,
        after=args.after,
        before=args.before,
        kind=args.kind,
        source=args.source,
        raw=args.raw,
    )
    answer = ctx.ask(rq.Search(" ".join(args.query), options))
    response = answer.result
    if args.json:
        print(jsonout.dumps(response))
    else:
        render.print_search(ctx.out, response, explain=args.explain)
    for note in response["notes"]:
        say(ctx.err, f"note: {note}")
    if not args.json:
        shown = render.shown_hits(response)
        _remember(ctx, [hit["session"]["id"] for hit in shown])
        render.print_search_footer(ctx.err, response, len(shown), answer.ms)
    return 0 if response["results"] or not response["index_empty"] else 1


def _remember(ctx: Context, session_ids: list[str]) -> None:
    """Keep the list just shown for `open N` in this terminal. Only lists shown to people:
    a script's `--json` search in the same shell must not renumber what the person saw
    (a script has the ids and opens by id)."""
    try:
        ctx.ask(rq.RememberShown(terminal_id(), session_ids))
    except FindsessionError as exc:
        say(ctx.err, f"note: `findsession open N` will not know this list ({exc})")


def read(args: argparse.Namespace, ctx: Context) -> int:
    options = ReadOptions(turn=args.turn, context=args.context, tools=args.tools, raw=args.raw)
    view = ctx.ask(rq.Read(args.session, options)).result
    if args.json:
        print(jsonout.dumps(view))
    else:
        render.print_read(ctx.out, view)
    return 0


def sources(args: argparse.Namespace, ctx: Context) -> int:
    """Run here, never by the service: where a source looks follows this shell's
    environment (`CODEX_HOME`, ...)."""
    reports = ctx.fs.sources()
    if args.json:
        print(jsonout.dumps(jsonout.sources_json(reports)))
    else:
        render.print_sources(ctx.out, reports, everything=args.all)
    return 0


def status(args: argparse.Namespace, ctx: Context) -> int:
    st = ctx.ask(rq.Status()).result
    if args.json:
        print(jsonout.dumps(st))
    else:
        render.print_status(ctx.out, st)
    return 0


def forget(args: argparse.Namespace, ctx: Context) -> int:
    if not args.sessions and args.project is None:
        raise FindsessionError("name the sessions to forget, or --project PATH")
    done = ctx.fs.forget(args.sessions, project=args.project)
    if args.json:
        print(
            jsonout.dumps(
                jsonout.forget_json(
                    done.forgotten, done.bytes_before, done.bytes_after, done.archived_removed
                )
            )
        )
    n = len(done.forgotten)
    kept = done.archived_removed
    ctx.err.print(
        f"forgot {n} session{'s' if n != 1 else ''} and their subagents; they will not be"
        f" indexed again; index {done.bytes_before / 1e6:.1f} MB ->"
        f" {done.bytes_after / 1e6:.1f} MB"
        + (f"; {kept} archived transcripts removed" if kept else ""),
        soft_wrap=True,
    )
    return 0


def audit(args: argparse.Namespace, ctx: Context) -> int:
    """The audit of agents' searches: what each MCP call returned, never the query."""
    records = ctx.fs.audit_log(since=args.since, limit=args.limit, query=args.query)
    if args.json:
        print(jsonout.dumps(jsonout.audit_json(records)))
    else:
        render.print_audit(ctx.out, records)
    return 0
