"""`findsession blame` for people: the file's writers newest first, each with the turn,
the prompt that asked for it and the start of the change; with a range, each line and
the writer that holds it last."""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

from findsession.domain import Blame, Writer
from findsession.render.text import home, printable

_MATCHED = {
    "moved": "seen as {path}: the same path in a project folder of the same name",
    "relative": "seen as {path}, relative to a directory the index does not know",
}


def print_blame(out: Console, result: Blame) -> None:
    n, sessions = result.total, len({w.session.id for w in result.writers})
    head = f"{home(result.path)}  ·  "
    if not n:
        out.print(Text(head + "no indexed session wrote this file", style="bold"), soft_wrap=True)
    else:
        head += f"{n} write{'s' if n != 1 else ''} by {sessions} session"
        head += f"{'s' if sessions != 1 else ''}, newest first"
        if len(result.writers) < n:
            head += f" ({len(result.writers)} shown)"
        out.print(Text(head, style="bold"), soft_wrap=True)
    if result.lines:
        span = f"{result.first}" + (f"–{result.lines[-1].number}" if len(result.lines) > 1 else "")
        out.print(Text(f"line{'s' if len(result.lines) > 1 else ''} {span}:"), soft_wrap=True)
        for line in result.lines:
            if line.neutral:
                who = Text("(blank or brackets: no one to name)", style="dim")
            elif line.writer is None:
                who = Text("no indexed session wrote this line", style="yellow")
            else:
                who = Text(f"last written by [{line.writer + 1}]", style="green")
            text = Text("  " + _cut(line.text or "", 80), style="dim")
            out.print(Text(f"{line.number:>6}  ") + who + text, soft_wrap=True)
    for rank, writer in enumerate(result.writers, 1):
        _print_writer(out, rank, writer, result)


def _print_writer(out: Console, rank: int, w: Writer, result: Blame) -> None:
    s = w.session
    when = printable((w.ts or "")[:16].replace("T", " ")) or "????-??-??"
    line = Text(f"[{rank}] {when}  ", style="bold")
    line += Text(_cut(s.title or "(untitled)", 70))
    line += Text(f"  ·  {printable(s.id)}  ·  turn {w.turn}  ·  {printable(w.tool)} ({w.op})")
    if w.holds is not None and result.lines:
        wanted = sum(1 for b in result.lines if not b.neutral)
        line += Text(f"  ·  holds {w.holds} of {wanted} lines", style="cyan")
    if w.last:
        line += Text("  ·  wrote it last", style="bold green")
    out.print(line, soft_wrap=True)
    if w.prompt:
        out.print(Text("    asked: ", style="dim") + Text(printable(w.prompt)), soft_wrap=True)
    for added in w.added:
        out.print(Text("    + " + _cut(added, 120), style="green"), soft_wrap=True)
    if w.added_lines > len(w.added):
        out.print(Text(f"    … {w.added_lines - len(w.added)} more lines", style="dim"))
    for removed in w.removed:
        out.print(Text("    - " + _cut(removed, 120), style="red"), soft_wrap=True)
    if w.truncated:
        out.print(Text("    (the index kept this change only in part)", style="dim"))
    if w.match in _MATCHED:
        out.print(Text("    " + _MATCHED[w.match].format(path=printable(w.path)), style="dim"),
                  soft_wrap=True)  # fmt: skip


def _cut(text: str, limit: int) -> str:
    flat = printable(text).rstrip()
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
