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
from typing import Any, NoReturn

import apsw
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.text import Text

from findsession import config, jsonout, render
from findsession.embeddings import EmbeddingUnavailable
from findsession.errors import FindsessionError
from findsession.index import Root, index_roots
from findsession.model_choice import index_embedder
from findsession.reader import read_session, resolve_session
from findsession.search.engine import search
from findsession.search.filters import (
    KINDS,
    MAX_TOP,
    MODES,
    SPEAKERS,
    BadOption,
    SearchOptions,
    parse_when,
)
from findsession.status import collect_status
from findsession.store import Store
from findsession.vectorize import EmbedReport, embed_pending

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
        db = config.db_path(getattr(args, "db", None))
        forgotten: list[str] | None = []
        if getattr(args, "rebuild", False):
            aside = Store.set_aside(db)
            if aside:
                _say(err, f"set the old index aside as {aside}; indexing from scratch")
                forgotten = Store.forgotten_in(aside)
                if forgotten is None:
                    err.print(
                        "[yellow]warning:[/] the old index is too damaged to tell which"
                        " sessions were forgotten: forget them again after this run",
                        soft_wrap=True,
                    )
        with Store.open(db) as store:
            if forgotten:
                store.keep_forgotten(forgotten)
            return _COMMANDS[args.command](args, store, out, err)
    except FindsessionError as exc:
        # One line, whatever the message holds (a path with a newline, rich markup).
        message = f"{exc}: {exc.cli_hint}" if exc.cli_hint else str(exc)
        line = " ".join(render.printable(message).split())
        err.print(Text("error:", style="red") + Text(" " + line), soft_wrap=True)
        return 1
    except apsw.BusyError:
        err.print(
            "[red]error:[/] the index stayed locked by another findsession process for 30 s;"
            " try again when it is done",
            soft_wrap=True,
        )
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # `findsession ... | head`: the reader left; say nothing.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def _cmd_search(args: argparse.Namespace, store: Store, out: Console, err: Console) -> int:
    project = str(Path.cwd()) if args.here else args.project
    cfg = config.load_config()
    opts = SearchOptions(
        hybrid_weight=cfg.hybrid_weight if args.hybrid_weight is None else args.hybrid_weight,
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
    if not query.strip():
        raise FindsessionError(
            "the query is empty: give the words, identifier or error message to look for"
        )
    started = time.perf_counter()
    response = search(store, query, opts)
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


def _cmd_index(args: argparse.Namespace, store: Store, out: Console, err: Console) -> int:
    cfg = config.load_config()
    if args.roots:
        roots = [Root(Path(r).expanduser().resolve(), "claude-code") for r in args.roots]
        for root in roots:
            if not root.path.exists():
                err.print(
                    Text("warning:", style="yellow")
                    + Text(f" {render.printable(str(root.path))} does not exist"),
                    soft_wrap=True,
                )
    else:
        roots = [r for r in config.default_roots(cfg) if r.path.exists()]
        if not roots:
            sample = config.sample_root()
            _say(
                err,
                f"no transcripts found at {render.home(str(config.default_roots(cfg)[0].path))};"
                " indexing the sample corpus that ships with findsession instead"
                " (pass a ROOT, or add roots to the config file, to index your own)",
            )
            roots = [sample]
    with _progress_bar(err, "indexing") as progress:
        report = index_roots(store, roots, prune=args.prune, progress=progress, exclude=cfg.exclude)
    render.print_index_report(err, report, args.verbose)
    embedded = None
    if not report.interrupted and not args.no_embed:
        embedded = _embed(store, err, cfg.embedding)
    if args.json:
        print(jsonout.dumps(jsonout.index_json(report, embedded)))
    if report.failed:
        return 1
    return 130 if report.interrupted or (embedded and embedded.interrupted) else 0


def _embed(store: Store, err: Console, settings: dict[str, Any]) -> EmbedReport | None:
    """The embedding stage: vectors for every unit that has none, with a progress bar."""
    try:
        embedder, choice = index_embedder(store, settings)
    except EmbeddingUnavailable as exc:
        _say(err, f"note: no vectors built ({exc}); keyword search works")
        return None
    if choice.advice:
        _say(err, f"note: {choice.advice}")
    stored = store.setting("embedding_model")
    if stored is not None and stored != embedder.identity:
        _say(
            err,
            f"the embedding model changed ({stored} -> {embedder.identity}):"
            " dropping the old vectors and embedding everything again",
        )
    try:
        with _progress_bar(err, "embedding") as progress:
            report = embed_pending(store, embedder, progress=progress)
    except EmbeddingUnavailable as exc:
        _say(err, f"note: vectors not built ({exc}); keyword search works")
        return None
    if choice.scripts is not None:
        report.non_latin_share = round(choice.scripts.share, 3)
    report.advice = choice.advice
    render.print_embed_report(err, report)
    return report


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


def _cmd_read(args: argparse.Namespace, store: Store, out: Console, err: Console) -> int:
    view = read_session(
        store, args.session, turn=args.turn, context=args.context, tools=args.tools, raw=args.raw
    )
    if args.json:
        print(jsonout.dumps(jsonout.read_json(view)))
    else:
        render.print_read(out, view)
    return 0


def _cmd_status(args: argparse.Namespace, store: Store, out: Console, err: Console) -> int:
    st = collect_status(store)
    if args.json:
        print(jsonout.dumps(jsonout.status_json(st)))
    else:
        render.print_status(out, st)
    return 0


def _cmd_forget(args: argparse.Namespace, store: Store, out: Console, err: Console) -> int:
    if not args.sessions and not args.project:
        raise FindsessionError("name the sessions to forget, or --project PATH")
    if any(not ref.strip() for ref in args.sessions) or (
        args.project is not None and not args.project.strip()
    ):
        raise FindsessionError("a blank session id or project matches nothing: name one")
    ids = [resolve_session(store, ref).id for ref in args.sessions]
    if args.project:
        root = str(Path(args.project).expanduser().resolve())
        matched = [
            s.id for s in store.sessions_where("in_project(cwd, ?) AND NOT is_subagent", (root,))
        ]
        if not matched:
            raise FindsessionError(
                f"no indexed session has its project at or below {root}; nothing forgotten"
            )
        ids += matched
    ids = list(dict.fromkeys(ids))
    before = store.path.stat().st_size
    with store.transaction():
        store.forget(ids)
    store.reclaim_space()
    after = store.path.stat().st_size
    if args.json:
        print(jsonout.dumps(jsonout.forget_json(ids, before, after)))
    err.print(
        f"forgot {len(ids)} session{'s' if len(ids) != 1 else ''} and their subagents; they"
        f" will not be indexed again; index {before / 1e6:.1f} MB -> {after / 1e6:.1f} MB",
        soft_wrap=True,
    )
    return 0


def _say(console: Console, line: str) -> None:
    """Print a line that may hold text from a transcript, a path or an exception:
    never read as rich markup, never a control sequence."""
    console.print(Text(render.printable(line)), soft_wrap=True)


def _cmd_serve(args: argparse.Namespace, store: Store, out: Console, err: Console) -> int:
    from findsession.mcp_server import serve

    store.close()  # the server opens its own connections
    serve(config.db_path(getattr(args, "db", None)), args.directory, args.all_projects)
    return 0


_COMMANDS = {
    "search": _cmd_search,
    "index": _cmd_index,
    "read": _cmd_read,
    "status": _cmd_status,
    "serve": _cmd_serve,
    "forget": _cmd_forget,
}
