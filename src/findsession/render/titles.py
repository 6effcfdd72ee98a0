"""What `findsession titles` did, for people: each session's proposed title and what
became of it, and with `--undo` each title taken back or why it stays.

Separate because it renders the titles command's own reports.
"""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape

from findsession.render.text import day, home, printable
from findsession.titles.report import TitlesReport, UndoReport
from findsession.turns import one_line


def print_titles(out: Console, report: TitlesReport) -> None:
    """One line per session: what became of its title, the title, and what it replaces;
    under it the model's summary and the reason a title was not written."""
    for r in report.results:
        s = r.session
        title = escape(printable(r.title or "(none)"))
        if r.title and r.place == "index":
            title += "[/][dim] (index only)"
        was = escape(one_line(printable(s.title or ""), 60))
        out.print(
            f"{r.status:<8}  [bold]{title}[/]  {s.id[:8]}  {day(s.last_ts)}"
            f"  {escape(home(s.cwd))}" + (f"  [dim]was: {was}[/]" if was else ""),
            soft_wrap=True,
        )
        for extra in (r.summary, r.reason.says if r.reason else None):
            if extra:
                out.print(f"          [dim]{escape(printable(extra))}[/]", soft_wrap=True)


def print_undo(out: Console, report: UndoReport) -> None:
    for r in report.results:
        where = "index only" if r.offset is None else f"{home(r.path)} @ {r.offset}"
        out.print(
            f"{r.status:<8}  [bold]{escape(printable(r.title))}[/]  {r.session_id[:8]}"
            f"  {escape(where)}",
            soft_wrap=True,
        )
        for extra in (r.reason.says if r.reason else None, r.note):
            if extra:
                out.print(f"          [dim]{escape(printable(extra))}[/]", soft_wrap=True)
