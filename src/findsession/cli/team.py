"""The commands of a team's shared index: `push`, `share` and the admin's `server`.

`push` runs on this machine's own index (the SQLite file) and opens the server itself;
`share` runs on the server (`--backend`, else the config's `[storage] url`); `server`
opens no index at all: it connects as the admin the URL names.
"""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING

from rich.console import Console

from findsession import jsonout
from findsession.api import (
    BATCH,
    PushCounts,
    add_person,
    configured_server,
    init_server,
    remove_person,
    server_status,
)
from findsession.errors import FindsessionError
from findsession.protocol.context import Context
from findsession.render.console import say

if TYPE_CHECKING:
    from findsession.api import PushReport, ServerStatus


def push(args: argparse.Namespace, ctx: Context) -> int:
    fs, err = ctx.fs, ctx.err
    batch = args.batch or int(os.environ.get("FINDSESSION_PUSH_BATCH") or BATCH)

    def each(number: int, counts: PushCounts, left: int) -> None:
        if args.verbose:
            say(
                err,
                f"batch {number}: {counts.sessions} sessions, {counts.units} units written;"
                f" {left} sessions left",
            )

    report = fs.push(args.to, batch=batch, everything=args.all, on_batch=each)
    if args.json:
        print(jsonout.dumps(jsonout.push_json(report)))
    say_pushed(err, report)
    return 0


def say_pushed(err: Console, report: PushReport) -> None:
    """What a push sent and what the server wrote, in one line (and the model note)."""
    w = report.written
    say(
        err,
        f"pushed to {report.server} as {report.owner} from {report.machine}: {report.sent}"
        f" changed sessions in {report.batches} batch{'' if report.batches == 1 else 'es'};"
        f" the server wrote {w.sessions}"
        f" sessions, {w.units} units, {w.vectors} units' vectors, {w.tombstones} forgets"
        f" ({w.removed} sessions removed, {w.refused} refused as forgotten)",
    )
    if report.other_model:
        say(err, f"note: no vectors sent: the server's come from {report.other_model}")


def share(args: argparse.Namespace, ctx: Context) -> int:
    fs, out, err = ctx.fs, ctx.out, ctx.err
    if args.list or not args.project:
        if not args.list:
            raise FindsessionError("name the project to share, or --list the shared ones")
        shares = fs.shares()
        if args.json:
            print(jsonout.dumps(jsonout.shares_json(shares)))
            return 0
        for s in shares:
            out.print(f"{s.project}  [dim]{s.owner}{' (you)' if s.mine else ''} · {s.since}[/]")
        if not shares:
            say(err, "no project is shared on this server")
        return 0
    if args.remove:
        path, changed = fs.unshare(args.project)
        say(err, f"{path}: {'no longer shared' if changed else 'was not shared'}")
    else:
        path, changed = fs.share(args.project)
        say(err, f"{path}: {'shared with the team' if changed else 'already shared'}")
    if args.json:
        print(jsonout.dumps(jsonout.shares_json(fs.shares())))
    return 0


def server(args: argparse.Namespace, ctx: Context) -> int:
    """The admin's commands, on the server `--url` names, else the config's; no index
    of one's own is opened."""
    url, err = args.url or configured_server(), ctx.err
    if not url:
        raise FindsessionError(
            "name the server as its admin: --url postgresql://admin@host/db",
        )
    if args.action == "init":
        say(err, "creating or upgrading the index schema (and any missing vector graph)…")
        admin, built = init_server(url)
        graph = "; built the vector graph over the stored vectors" if built else ""
        say(
            err,
            f"the index schema is ready; {admin} owns it{graph}; add people with"
            " `findsession server add-person NAME`",
        )
        return 0
    if args.action == "status":
        return _status(server_status(url), args.json)
    if not args.name:
        raise FindsessionError(f"name the person's role: findsession server {args.action} NAME")
    if args.action == "remove-person":
        return _remove_person(url, args.name, args.delete_sessions, err)
    if args.delete_sessions:
        raise FindsessionError("--delete-sessions goes with remove-person")
    made = add_person(url, args.name)
    say(
        err,
        f"{'made the role' if made else 'the role existed;'} {args.name}"
        f"{'' if made else ' now'} in findsession_users; give it a way to log in"
        f" (ALTER ROLE {args.name} PASSWORD '…', or your server's own authentication)",
    )
    return 0


def _remove_person(url: str, name: str, delete: bool, err: Console) -> int:
    removed = remove_person(url, name, delete)
    access = (
        f"{name} is no longer in findsession_users"
        if removed.was_member
        else f"{name} was not in findsession_users"
    )
    if removed.deleted:
        kept = f"deleted their {removed.sessions} session(s) and everything stored of them"
    elif removed.sessions:
        kept = (
            f"their {removed.sessions} session(s) stay on the server"
            f" ({removed.shared} in projects they shared, which the team still sees);"
            " --delete-sessions deletes them"
        )
    else:
        kept = "they had pushed nothing"
    say(err, f"{access}; {kept}. The login role itself stays (DROP ROLE {name} ends it).")
    return 0


def _status(status: ServerStatus, as_json: bool) -> int:
    if as_json:
        print(jsonout.dumps(jsonout.server_json(status)))
        return 0
    print(f"schema step {status.schema_step}, owned by {status.admin}")
    if status.model is None:
        print("model: none yet (the first push or embedding run names it)")
    else:
        graph = (
            f"vector graph {status.graph_bytes / 1e6:,.0f} MB"
            if status.graph_bytes is not None
            else "no vector graph yet: the next push or embedding run builds it"
        )
        print(f"model: {status.model} ({status.dims} dimensions); {graph}")
    print(f"people ({len(status.people)}):")
    for p in status.people:
        where = f" from {', '.join(p.machines)}" if p.machines else ""
        last = f", last active {p.last_active[:10]}" if p.last_active else ""
        gone = "" if p.member else " (not in findsession_users)"
        print(f"  {p.name}{gone}: {p.sessions} sessions, {p.units} units{where}{last}")
    print(f"shared projects ({len(status.shares)}):")
    for owner, project in status.shares:
        print(f"  {owner}: {project}")
    return 0
