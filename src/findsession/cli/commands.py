"""What each command does: options in, one call to the API, output for people or JSON.

Every command has the same signature so `main` can open the index, run one, and turn
a `FindsessionError` into one line the same way for all of them. Results go to stdout,
what ran and how long it took to stderr, so a pipe gets only the results.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path

from rich.console import Console

from findsession import jsonout, render
from findsession.api import Findsession, SearchOptions
from findsession.cli.blame import blame
from findsession.cli.console import say
from findsession.cli.export import export
from findsession.cli.handoff import handoff
from findsession.cli.open_session import open_session
from findsession.cli.progress import progress_bar
from findsession.cli.team import push, say_pushed, share
from findsession.cli.terminal import terminal_id
from findsession.cli.titles import titles
from findsession.cli.ui import ui
from findsession.cli.units import schedule, service
from findsession.errors import FindsessionError

#: A command: parsed options, the open index, stdout and stderr in; the exit status out.
Command = Callable[[argparse.Namespace, Findsession, Console, Console], int]


def search(args: argparse.Namespace, fs: Findsession, out: Console, err: Console) -> int:
    """Exit 1 only when the index is empty, so a script can tell "run index first"
    from "nothing matched"."""
    # The directory the command was typed in: the service answers for many of them.
    cwd = Path(getattr(args, "cwd", None) or Path.cwd())
    project = str(cwd) if args.here else args.project
    weight = fs.settings.hybrid_weight if args.hybrid_weight is None else args.hybrid_weight
    opts = SearchOptions(
        hybrid_weight=weight,
        top=args.top,
        mode=args.mode,
        project=str((cwd / Path(project).expanduser()).resolve()) if project else None,
        session=args.session,
        speaker=args.speaker,
        after=args.after,
        before=args.before,
        kind=args.kind,
        source=args.source,
        raw=args.raw,
    )
    query = " ".join(args.query)
    started = time.perf_counter()
    response = fs.search(query, opts)
    elapsed = (time.perf_counter() - started) * 1000
    if args.json:
        print(jsonout.dumps(jsonout.search_json(response)))
    else:
        render.print_search(out, response, explain=args.explain)
    for note in response.notes:
        say(err, f"note: {note}")
    if not args.json:
        shown = render.shown_hits(response)
        _remember(fs, err, getattr(args, "terminal", None), [hit.session.id for hit in shown])
        found = f"{len(shown)} session{'s' if len(shown) != 1 else ''}"
        sure = render.confidence_words(response.confidence)
        err.print(
            f"[dim]{response.strategy} search · {found}{sure} · {elapsed:.0f} ms[/]",
            soft_wrap=True,
        )
    return 0 if response.hits or not response.index_empty else 1


def _remember(fs: Findsession, err: Console, terminal: str | None, session_ids: list[str]) -> None:
    """Keep the list just shown for `open N` in this terminal. Only lists shown to people:
    a script's `--json` search in the same shell must not renumber what the person saw
    (a script has the ids and opens by id)."""
    try:
        fs.remember_shown(terminal or terminal_id(), session_ids)
    except FindsessionError as exc:
        say(err, f"note: `findsession open N` will not know this list ({exc})")


def index(args: argparse.Namespace, fs: Findsession, out: Console, err: Console) -> int:
    """Index, then embed what is new; Ctrl-C at either stage keeps what is done (130)."""
    roots = fs.roots(args.roots, source=args.source)
    for note in roots.notes:
        say(err, note.replace(str(Path.home()), "~"))
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


def read(args: argparse.Namespace, fs: Findsession, out: Console, err: Console) -> int:
    view = fs.read(
        args.session, turn=args.turn, context=args.context, tools=args.tools, raw=args.raw
    )
    if args.json:
        print(jsonout.dumps(jsonout.read_json(view)))
    else:
        render.print_read(out, view)
    return 0


def sources(args: argparse.Namespace, fs: Findsession, out: Console, err: Console) -> int:
    reports = fs.sources()
    if args.json:
        print(jsonout.dumps(jsonout.sources_json(reports)))
    else:
        render.print_sources(out, reports, everything=args.all)
    return 0


def status(args: argparse.Namespace, fs: Findsession, out: Console, err: Console) -> int:
    st = fs.status()
    if args.json:
        print(jsonout.dumps(jsonout.status_json(st)))
    else:
        render.print_status(out, st)
    return 0


def forget(args: argparse.Namespace, fs: Findsession, out: Console, err: Console) -> int:
    if not args.sessions and args.project is None:
        raise FindsessionError("name the sessions to forget, or --project PATH")
    done = fs.forget(args.sessions, project=args.project)
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
    err.print(
        f"forgot {n} session{'s' if n != 1 else ''} and their subagents; they will not be"
        f" indexed again; index {done.bytes_before / 1e6:.1f} MB ->"
        f" {done.bytes_after / 1e6:.1f} MB"
        + (f"; {kept} archived transcripts removed" if kept else ""),
        soft_wrap=True,
    )
    return 0


def audit(args: argparse.Namespace, fs: Findsession, out: Console, err: Console) -> int:
    """The audit of agents' searches: what each MCP call returned, never the query."""
    records = fs.audit_log(since=args.since, limit=args.limit, query=args.query)
    if args.json:
        print(jsonout.dumps(jsonout.audit_json(records)))
    else:
        render.print_audit(out, records)
    return 0


def serve(args: argparse.Namespace, fs: Findsession, out: Console, err: Console) -> int:
    """Hand the index's path to the MCP server, which opens its own for its lifetime."""
    # Imported here: the MCP SDK is slow to import and no other command needs it.
    from findsession.mcp_server import serve as serve_mcp

    path = fs.path
    fs.close()
    serve_mcp(path, args.directory, args.all_projects)
    return 0


COMMANDS: dict[str, Command] = {
    "search": search,
    "index": index,
    "read": read,
    "open": open_session,
    "status": status,
    "sources": sources,
    "serve": serve,
    "forget": forget,
    "audit": audit,
    "titles": titles,
    "service": service,
    "schedule": schedule,
    "ui": ui,
    "push": push,
    "share": share,
    "export": export,
    "handoff": handoff,
    "blame": blame,
}
