"""`findsession serve`: an agent's MCP server, held by the resident service when one runs
for the index (or can be started again, where `service start` was said), else run here.

Light on imports: relayed to the service, this process never loads the MCP SDK, the
model or the index.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from findsession.protocol.context import Context


def serve(args: argparse.Namespace, ctx: Context) -> int:
    session = None if os.environ.get("FINDSESSION_NO_SERVICE") else _service_session(args)
    if session is not None:
        from findsession.mcp_server.relay import relay

        return relay(session, _argv(args))
    from findsession.mcp_server.local import serve_here

    path = ctx.fs.path
    ctx.close()  # the server opens its own, for its lifetime
    serve_here(path, args.directory, args.all_projects)
    return 0


def _service_session(args: argparse.Namespace):  # noqa: ANN202 - a socket or None
    """A connection the service has taken for this agent's session, or None."""
    if sys.platform == "win32":
        return None
    from findsession.mcp_server.relay import open_session
    from findsession.mcp_server.scope import named_session
    from findsession.protocol.client import Unavailable, wake
    from findsession.protocol.place import NoPlace, Place

    opening = {
        # Read here, in the agent's process: the service runs elsewhere.
        "directory": str(Path(args.directory).resolve()) if args.directory else None,
        "all_projects": bool(args.all_projects),
        "named": named_session(),
        "cwd": os.getcwd(),
    }
    try:
        place = Place.for_index(getattr(args, "db", None))
        try:
            return open_session(place, opening)
        except Unavailable as why:
            if not wake(place, why):
                return None
            return open_session(place, opening)
    except (NoPlace, OSError, Unavailable):
        return None


def _argv(args: argparse.Namespace) -> list[str]:
    """`serve` as this process was asked to run it, for a server of the relay's own."""
    argv = ["serve"]
    if getattr(args, "db", None):
        argv += ["--db", str(Path(args.db).resolve())]
    if args.directory:
        argv += ["--directory", str(Path(args.directory).resolve())]
    if args.all_projects:
        argv.append("--all-projects")
    return argv
