"""A session read back for people (`findsession read`), from its `findsession.read/1`
object: its header, then turn by turn what was said, each kind of message in its own
style, long tool output cut.

Separate because it shows a transcript's own text at length, where the other renderers
show summaries of it.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.text import Text

from findsession.render.text import day, home, printable, whose
from findsession.turns import one_line


def print_read(out: Console, read: dict[str, Any]) -> None:
    """A `findsession.read/1` object for people."""
    s = read["session"]
    out.print(Text(printable(s["title"] or s["id"]), style="bold"), soft_wrap=True)
    meta = f"{printable(s['id'])}  ·  {home(s['cwd'])}  ·  {day(s['started'])} – {day(s['ended'])}"
    meta += f"  ·  {read['total_turns']} turns  ·  {home(s['path'])}"
    if s.get("model"):  # the model, where the source names it
        meta += f"  ·  {printable(s['model'])}"
    if origin := whose(s):
        meta += f"  ·  {origin}"
    out.print(Text(meta, style="dim"), soft_wrap=True)
    for turn in read["turns"]:
        out.print()
        when = printable((turn["timestamp"] or "")[:16].replace("T", " "))
        section = any(m["kind"] == "section" for m in turn["messages"])
        out.rule(Text(f"{'section' if section else 'turn'} {turn['turn']}  {when}"))
        for msg in turn["messages"]:
            _print_message(out, msg)


def _print_message(out: Console, msg: dict[str, Any]) -> None:
    text, kind = printable(msg["text"]), msg["kind"]
    if kind == "section":
        if msg["heading"]:
            out.print(Text(printable(msg["heading"]), style="dim"), soft_wrap=True)
        out.print(Text(text), soft_wrap=True)
    elif kind == "prompt":
        out.print(Text("> ", style="bold green") + Text(text), soft_wrap=True)
    elif kind == "reply":
        out.print(Text(text), soft_wrap=True)
    elif kind == "tool_call":
        out.print(
            Text(f"⚙ {printable(msg['tool'])}  ", style="magenta")
            + Text(one_line(text, 300), style="dim"),
            soft_wrap=True,
        )
    elif kind == "tool_output":
        style = "red" if msg["is_error"] else "dim"
        out.print(Text(_indent(text), style=style), soft_wrap=True)
    elif kind == "thinking":
        out.print(Text("… " + one_line(text, 300), style="italic dim"), soft_wrap=True)


def _indent(text: str, limit: int = 2000) -> str:
    if len(text) > limit:
        text = text[:limit] + f"\n[… {len(text) - limit:,} more characters]"
    return "\n".join("  │ " + line for line in text.splitlines())
