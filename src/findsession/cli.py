"""The `findsession` command: a thin layer over the Python API.

`findsession "query"` is short for `findsession search "query"`. Every command takes
`--db PATH` (or `FINDSESSION_DB`) and most take `--json` for a stable machine schema.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.text import Text

from findsession import jsonout, render
from findsession.api import (
    KINDS,
    MAX_TOP,
    MODES,
    SPEAKERS,
    BadOption,
    Findsession,
    SearchOptions,
    parse_when,
)
from findsession.errors import FindsessionError

COMMANDS = ("search", "index", "read", "status", "serve", "forget")


class _Parser(argparse.ArgumentParser):
    """argparse whose errors are one line, like findsession's own: what is wrong and
    where the help is, without the usage block."""

    def error(self, message: str) -> NoReturn:
        line = " ".join(render.printable(message).split())
        self.exit(2, f"{self.prog}: error: {line} (see `{self.prog} --help`)\n")


def _whole_number(low: int, high: int | None, wanted: str) -> Callable[[str], int]:
    """An argparse type: a whole number in [low, high], else `wanted` says what to give."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or value < low or (high is not None and value > high):
            shown = text if len(text) <= 40 else text[:40] + "…"
            raise argparse.ArgumentTypeError(f"{wanted}, not {shown!r}")
        return value

    return parse


def _when(text: str) -> str:
    """An argparse type: a date, time or age, checked where it is typed."""
    try:
        return parse_when(text)
    except BadOption as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _parser() -> argparse.ArgumentParser:
    common = _Parser(add_help=False)
    common.add_argument(
        "--db",
        metavar="PATH",
        # SUPPRESS: a subcommand's unset --db must not overwrite one given before it.
        default=argparse.SUPPRESS,
        help="index database (default: FINDSESSION_DB or the user data directory)",
    )
    parser = _Parser(
        prog="findsession",
        description="Find the AI coding-agent session you were working on X in.",
        epilog='Examples:\n  findsession index\n  findsession "the deploy that lied about '
        'being live"\n  findsession read 5ac30ab5 --turn 3 --context 1',
        formatter_class=argparse.RawDescriptionHelpFormatter,
        parents=[common],
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("search", parents=[common], help="search the index (the default command)")
    p.add_argument("query", nargs="+", help="words, a phrase, an identifier, an error message")
    p.add_argument(
        "--top",
        type=_whole_number(1, MAX_TOP, f"give a whole number of sessions from 1 to {MAX_TOP}"),
        default=10,
        metavar="N",
        help=f"sessions to show, 1 to {MAX_TOP} (10)",
    )
    p.add_argument("--json", action="store_true", help="print results as JSON (docs/json.md)")
    p.add_argument("--raw", action="store_true", help="pass the query to FTS5 as it is")
    p.add_argument("--project", metavar="PATH", help="only sessions started in PATH or below")
    p.add_argument("--here", action="store_true", help="only sessions of the current directory")
    p.add_argument("--session", metavar="ID", help="only this session (id or prefix)")
    p.add_argument("--speaker", choices=SPEAKERS, help="match only what this side said")
    p.add_argument(
        "--after", type=_when, metavar="WHEN", help="date, time or age (7d, 2w) to start from"
    )
    p.add_argument("--before", type=_when, metavar="WHEN", help="date, time or age to end before")
    p.add_argument("--kind", choices=KINDS, help="only turns, session fingerprints or docs")
    p.add_argument("--mode", choices=MODES, default="hybrid", help="retrieval (best available)")
    p.add_argument("--explain", action="store_true", help="show why each hit ranked where it did")
    p.add_argument(
        "--hybrid-weight",
        type=float,
        metavar="W",
        help="weight of the vector list in fusion, 0 to 1 (config [search], default 0.5)",
    )

    p = sub.add_parser("index", parents=[common], help="index transcripts (incremental)")
    p.add_argument(
        "roots",
        nargs="*",
        metavar="ROOT",
        help="folders to index (default: ~/.claude/projects and the config's roots)",
    )
    p.add_argument(
        "--prune", action="store_true", help="remove sessions whose transcript file is gone"
    )
    p.add_argument(
        "--no-embed", action="store_true", help="update the keyword index only, not the vectors"
    )
    p.add_argument(
        "--rebuild",
        action="store_true",
        help="set the current index aside (kept as *.broken-DATE) and index from scratch",
    )
    p.add_argument("-v", "--verbose", action="store_true", help="list every skipped line")
    p.add_argument("--json", action="store_true", help="print the run's summary as JSON")

    p = sub.add_parser("read", parents=[common], help="print a session or some of its turns")
    p.add_argument("session", help="session id or a unique prefix of it")
    p.add_argument(
        "--turn",
        type=_whole_number(1, None, "turns are numbered from 1: give 1 or more"),
        metavar="N",
        help="only turn N (numbered from 1)",
    )
    p.add_argument(
        "--context",
        type=_whole_number(0, None, "give 0 or more turns"),
        default=0,
        metavar="K",
        help="with --turn, also K turns before and after",
    )
    p.add_argument("--tools", action="store_true", help="include tool calls and their output")
    p.add_argument(
        "--raw",
        action="store_true",
        help="show the transcript's own text, secrets included (default: as indexed, redacted)",
    )
    p.add_argument("--json", action="store_true", help="print as JSON")

    p = sub.add_parser("status", parents=[common], help="what the index holds")
    p.add_argument("--json", action="store_true", help="print as JSON")

    p = sub.add_parser("forget", parents=[common], help="delete sessions from the index for good")
    p.add_argument("sessions", nargs="*", metavar="SESSION", help="session ids or prefixes")
    p.add_argument("--project", metavar="PATH", help="every session started in PATH or below")
    p.add_argument("--json", action="store_true", help="print what was forgotten as JSON")

    p = sub.add_parser("serve", parents=[common], help="run the MCP server over stdio (for agents)")
    p.add_argument(
        "--directory",
        metavar="DIR",
        help="project to search by default (default: the current directory)",
    )
    p.add_argument("--all-projects", action="store_true", help="search every project by default")
    return parser


def _normalise_argv(argv: list[str]) -> list[str]:
    """Insert `search` when the first word is not a command: `findsession "query"`."""
    for i, arg in enumerate(argv):
        if arg in ("-h", "--help", "--version"):
            return argv
        if arg == "--db":
            continue
        if i > 0 and argv[i - 1] == "--db":
            continue
        if arg.startswith("--db="):
            continue
        if arg in COMMANDS:
            return argv
        return [*argv[:i], "search", *argv[i:]]
    return argv


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv == ["--version"]:
        from findsession import __version__

        print(f"findsession {__version__}")
        return 0
    args = _parser().parse_args(_normalise_argv(argv))
    out = Console(highlight=False)
    err = Console(stderr=True, highlight=False)
    if args.command is None:
        _parser().print_help()
        return 2
    try:
        fs = Findsession.open(getattr(args, "db", None), rebuild=getattr(args, "rebuild", False))
        with fs:
            for note in fs.notes:
                _say(err, note)
            return _COMMANDS[args.command](args, fs, out, err)
    except FindsessionError as exc:
        # One line, whatever the message holds (a path with a newline, rich markup).
        message = f"{exc}: {exc.cli_hint}" if exc.cli_hint else str(exc)
        line = " ".join(render.printable(message).split())
        err.print(Text("error:", style="red") + Text(" " + line), soft_wrap=True)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # `findsession ... | head`: the reader left; say nothing.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def _cmd_search(args: argparse.Namespace, fs: Findsession, out: Console, err: Console) -> int:
    project = str(Path.cwd()) if args.here else args.project
    weight = fs.settings.hybrid_weight if args.hybrid_weight is None else args.hybrid_weight
    opts = SearchOptions(
        hybrid_weight=weight,
        top=args.top,
        mode=args.mode,
        project=str(Path(project).expanduser().resolve()) if project else None,
        session=args.session,
        speaker=args.speaker,
        after=args.after,
        before=args.before,
        kind=args.kind,
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
        _say(err, f"note: {note}")
    if not args.json:
        found = f"{len(response.hits)} session{'s' if len(response.hits) != 1 else ''}"
        err.print(
            f"[dim]{response.strategy} search · {found} · {elapsed:.0f} ms[/]", soft_wrap=True
        )
    return 0 if response.hits or not response.index_empty else 1


def _cmd_index(args: argparse.Namespace, fs: Findsession, out: Console, err: Console) -> int:
    roots = fs.roots(args.roots)
    for note in roots.notes:
        _say(err, note.replace(str(Path.home()), "~"))
    with _progress_bar(err, "indexing") as progress:
        report = fs.index(roots, prune=args.prune, progress=progress)
    render.print_index_report(err, report, args.verbose)
    embedded = None
    if not report.interrupted and not args.no_embed:
        with _progress_bar(err, "embedding") as progress:
            embedded = fs.embed(progress=progress, say=lambda line: _say(err, line))
        if embedded is not None:
            render.print_embed_report(err, embedded)
    if args.json:
        print(jsonout.dumps(jsonout.index_json(report, embedded)))
    if report.failed:
        return 1
    return 130 if report.interrupted or (embedded and embedded.interrupted) else 0


class _progress_bar:  # noqa: N801 - used as a context manager like a function
    """A rich progress bar on a terminal; nothing when stderr is a pipe or a file."""

    def __init__(self, err: Console, label: str) -> None:
        self.err = err
        self.label = label
        self.bar: Progress | None = None
        self.task = None

    def __enter__(self):  # noqa: ANN204
        if not self.err.is_terminal:
            return None
        self.bar = Progress(
            TextColumn(self.label),
            BarColumn(),
            MofNCompleteColumn(),
            TimeRemainingColumn(),
            TextColumn("[dim]{task.fields[name]}"),
            console=self.err,
            transient=True,
        )
        self.bar.start()
        self.task = self.bar.add_task("index", total=None, name="")
        return self.update

    def update(self, done: int, total: int, path: str = "") -> None:
        assert self.bar is not None and self.task is not None
        name = render.printable(Path(path).name[:40])
        self.bar.update(self.task, completed=done, total=total, name=name)

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()


def _cmd_read(args: argparse.Namespace, fs: Findsession, out: Console, err: Console) -> int:
    view = fs.read(
        args.session, turn=args.turn, context=args.context, tools=args.tools, raw=args.raw
    )
    if args.json:
        print(jsonout.dumps(jsonout.read_json(view)))
    else:
        render.print_read(out, view)
    return 0


def _cmd_status(args: argparse.Namespace, fs: Findsession, out: Console, err: Console) -> int:
    st = fs.status()
    if args.json:
        print(jsonout.dumps(jsonout.status_json(st)))
    else:
        render.print_status(out, st)
    return 0


def _cmd_forget(args: argparse.Namespace, fs: Findsession, out: Console, err: Console) -> int:
    if not args.sessions and args.project is None:
        raise FindsessionError("name the sessions to forget, or --project PATH")
    done = fs.forget(args.sessions, project=args.project)
    if args.json:
        print(
            jsonout.dumps(jsonout.forget_json(done.forgotten, done.bytes_before, done.bytes_after))
        )
    n = len(done.forgotten)
    err.print(
        f"forgot {n} session{'s' if n != 1 else ''} and their subagents; they will not be"
        f" indexed again; index {done.bytes_before / 1e6:.1f} MB ->"
        f" {done.bytes_after / 1e6:.1f} MB",
        soft_wrap=True,
    )
    return 0


def _say(console: Console, line: str) -> None:
    """Print a line that may hold text from a transcript, a path or an exception:
    never read as rich markup, never a control sequence."""
    console.print(Text(render.printable(line)), soft_wrap=True)


def _cmd_serve(args: argparse.Namespace, fs: Findsession, out: Console, err: Console) -> int:
    from findsession.mcp_server import serve

    path = fs.path
    fs.close()  # the server opens its own
    serve(path, args.directory, args.all_projects)
    return 0


_COMMANDS = {
    "search": _cmd_search,
    "index": _cmd_index,
    "read": _cmd_read,
    "status": _cmd_status,
    "serve": _cmd_serve,
    "forget": _cmd_forget,
}
