"""The service's side of a forwarded command: run it on the warm index, keep its output.

The command line is parsed here with the CLI's own parser and run by the CLI's own
command functions into consoles shaped like the client's terminal (its width, whether
it is one, its colour settings), so a served search prints exactly what an in-process
one would. Searches take turns on the service's lock, which also makes it safe to
point `sys.stdout` at the reply while one runs (`--json` prints with `print`).
"""

from __future__ import annotations

import io
from contextlib import redirect_stderr, redirect_stdout

from rich.console import Console

from findsession.cli.console import print_error
from findsession.cli.parser import build_parser, normalise_argv
from findsession.cli.remote import SERVED
from findsession.errors import FindsessionError
from findsession.service.resident import Resident


def answer(resident: Resident, request: dict) -> dict:
    """`{"stdout", "stderr", "status"}`, or `{"local": true}` for a command line the
    client must run itself (another command, a mistake the parser reports)."""
    argv = [str(a) for a in request.get("argv", [])]
    env = {str(k): str(v) for k, v in dict(request.get("env", {})).items()}
    ttys = [bool(t) for t in request.get("tty", [])] + [False, False]
    # An explicit COLUMNS wins over the terminal's size, as it does in-process.
    width = None if "COLUMNS" in env else request.get("width")
    stdout, stderr = io.StringIO(), io.StringIO()
    with resident.lock, redirect_stdout(stdout), redirect_stderr(stderr):
        try:
            args = build_parser().parse_args(normalise_argv(argv))
        except SystemExit:
            return {"local": True}
        if args.command not in SERVED:
            return {"local": True}
        args.cwd = str(request.get("cwd") or "/")
        args.terminal = request.get("terminal")
        out = _console(stdout, ttys[0], width, env)
        err = _console(stderr, ttys[1], width, env)
        from findsession.cli import run_command

        try:
            fs = resident.current()
        except FindsessionError as exc:
            print_error(err, exc)
            return {"stdout": stdout.getvalue(), "stderr": stderr.getvalue(), "status": 1}
        status = run_command(args, fs, out, err)
    return {"stdout": stdout.getvalue(), "stderr": stderr.getvalue(), "status": status}


def _console(file: io.StringIO, tty: bool, width: int | None, env: dict[str, str]) -> Console:
    """A console that writes what one on the client's stream would: colours when that
    stream is a terminal (or the environment forces them), and the client's width."""
    return Console(
        file=file,
        highlight=False,
        force_terminal=True if tty else None,
        width=int(width) if width else None,
        _environ=env,
    )
