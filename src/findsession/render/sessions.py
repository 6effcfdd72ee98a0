"""A session read back for people (`findsession read`): its header, then turn by turn
what was said, each kind of message in its own style, long tool output cut.

Separate because it shows a transcript's own text at length, where the other renderers
show summaries of it.
"""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

from findsession.domain import MessageKind
from findsession.reader import SessionView
from findsession.render.text import day, home, printable, whose
from findsession.turns import one_line


def print_read(out: Console, view: SessionView) -> None:
    s = view.session
    out.print(Text(printable(s.title or s.id), style="bold"), soft_wrap=True)
    meta = f"{printable(s.id)}  ·  {home(s.cwd)}  ·  {day(s.first_ts)} – {day(s.last_ts)}"
    meta += f"  ·  {view.total_turns} turns  ·  {home(s.file_path)}"
    if s.version:  # the model, where the source names it
        meta += f"  ·  {printable(s.version)}"
    if origin := whose(s):
        meta += f"  ·  {origin}"
    out.print(Text(meta, style="dim"), soft_wrap=True)
    for turn in view.turns:
        out.print()
        when = printable((turn.timestamp or "")[:16].replace("T", " "))
        section = any(m.kind is MessageKind.SECTION for m in turn.messages)
        out.rule(Text(f"{'section' if section else 'turn'} {turn.ordinal}  {when}"))
        for msg in turn.messages:
            text = printable(msg.text)
            if msg.kind is MessageKind.SECTION:
                if msg.heading:
                    out.print(Text(printable(msg.heading), style="dim"), soft_wrap=True)
                out.print(Text(text), soft_wrap=True)
            elif msg.kind is MessageKind.PROMPT:
                out.print(Text("> ", style="bold green") + Text(text), soft_wrap=True)
            elif msg.kind is MessageKind.REPLY:
                out.print(Text(text), soft_wrap=True)
            elif msg.kind is MessageKind.TOOL_CALL:
                out.print(
                    Text(f"⚙ {printable(msg.tool_name)}  ", style="magenta")
                    + Text(one_line(text, 300), style="dim"),
                    soft_wrap=True,
                )
            elif msg.kind is MessageKind.TOOL_OUTPUT:
                style = "red" if msg.is_error else "dim"
                out.print(Text(_indent(text), style=style), soft_wrap=True)
            elif msg.kind is MessageKind.THINKING:
                out.print(Text("… " + one_line(text, 300), style="italic dim"), soft_wrap=True)


def _indent(text: str, limit: int = 2000) -> str:
    if len(text) > limit:
        text = text[:limit] + f"\n[… {len(text) - limit:,} more characters]"
    return "\n".join("  │ " + line for line in text.splitlines())
