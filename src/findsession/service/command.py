"""`findsession service start|stop|status|run|install|uninstall`: the resident service
for one index.

`start` marks the service wanted and starts it in the background; from then on a CLI
search is answered by it, and a client that finds it dead starts another. `stop` ends
it and the mark. `run` is the service itself in the foreground (what `start`, a systemd
unit or a launchd agent runs). `status` asks it how it is.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import time

from rich.console import Console

from findsession.errors import FindsessionError
from findsession.protocol.client import Unavailable, ask, running, start
from findsession.protocol.context import Context
from findsession.protocol.place import NoPlace, Place
from findsession.render.console import say
from findsession.service.installing import service_install, service_uninstall

#: How long `start` waits for a new service to answer (loading the model and vectors).
START_SECONDS = 120.0
STOP_SECONDS = 10.0
#: `status`'s exit code when no service runs (as `systemctl status` says it).
NOT_RUNNING = 3


def service(args: argparse.Namespace, ctx: Context) -> int:
    """`findsession service ACTION`: the service's life here, its unit in `installing`."""
    fs, out, err = ctx.fs, ctx.out, ctx.err
    if args.action == "install":
        return service_install(args, fs, err)
    if args.action == "uninstall":
        return service_uninstall(args, fs, err)
    try:
        place = Place.for_index(fs.path)
    except NoPlace as exc:
        raise FindsessionError(str(exc)) from None
    action = args.action
    if action == "run":
        ctx.close()  # the service opens its own connections
        from findsession.service.run import run

        return run(place)
    if action == "start":
        return _start(place, out, err)
    if action == "stop":
        return _stop(place, out)
    return _status(place, out, args.json)


def _start(place: Place, out: Console, err: Console) -> int:
    place.wanted.touch(mode=0o600)
    try:
        reply = ask(place, {"op": "ping"})
        say(out, f"the service already runs (pid {reply.get('pid')}) for {place.db}")
        return 0
    except Unavailable as why:
        if running(place) and why.other_version is None:
            say(err, f"a service for {place.db} is starting or busy: {why}")
            return 0
    proc = start(place)
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        try:
            reply = ask(place, {"op": "ping"})
        except Unavailable:
            if proc.poll() is not None and not running(place):
                raise FindsessionError(
                    f"the service exited at start (status {proc.returncode}); see {place.log}"
                ) from None
            time.sleep(0.1)
            continue
        say(out, f"service started (pid {reply.get('pid')}) for {place.db}; searches use it")
        return 0
    raise FindsessionError(
        f"the service did not answer within {START_SECONDS:.0f} s; see {place.log}"
    )


def _stop(place: Place, out: Console) -> int:
    place.wanted.unlink(missing_ok=True)
    try:
        reply = ask(place, {"op": "stop"})
        pid = reply.get("pid")
    except Unavailable as why:
        pid = _lock_pid(place) if running(place) else None
        if pid is None:
            say(out, f"no service runs for {place.db}")
            return 0
        if why.other_version is None:
            os.kill(pid, signal.SIGTERM)  # stuck: it did not answer
    deadline = time.monotonic() + STOP_SECONDS
    while running(place) and time.monotonic() < deadline:
        time.sleep(0.05)
    if running(place) and pid:
        os.kill(int(pid), signal.SIGKILL)
    say(out, f"service stopped (pid {pid})")
    return 0


def _status(place: Place, out: Console, as_json: bool) -> int:
    try:
        reply = ask(place, {"op": "service"})
    except Unavailable as why:
        if as_json:
            print(json.dumps({"running": False, "why": str(why), "db": str(place.db)}))
        else:
            say(out, f"not running ({why}) for {place.db}")
        return NOT_RUNNING
    reply.pop("ok", None)
    if as_json:
        print(json.dumps({"running": True, **reply}, ensure_ascii=False))
        return 0
    last = reply.get("last_index") or {}
    lines = [
        f"running: pid {reply['pid']}, version {reply['version']},"
        f" up {reply['uptime_seconds']:.0f} s",
        f"index: {reply['db']}",
        f"searches answered: {reply['answered']}",
        f"memory: {reply['rss_mb']:.0f} MB resident; CPU used: {reply['cpu_seconds']:.1f} s",
        f"watching: {', '.join(reply['watching']) or 'nothing (no root exists yet)'}",
        f"last index run: {last.get('files_read', 0)} files read in {last.get('seconds', 0)} s"
        + (" (full scan)" if last.get("full") else ""),
    ]
    if reply.get("embedding"):
        lines.append("embedding new turns now")
    if reply.get("last_error"):
        lines.append(f"last error: {reply['last_error']}")
    pushed = reply.get("last_push")
    if pushed:
        lines.append(
            f"last push: failed: {pushed['error']}"
            if pushed.get("error")
            else f"last push: {pushed['sent']} changed sessions to {pushed['server']}"
        )
    for line in lines:
        say(out, line)
    return 0


def _lock_pid(place: Place) -> int | None:
    try:
        return int(place.lock.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None
