"""The audit of agents' searches for people (`findsession audit`): one block per answered
MCP call, the query only as its digest.

Separate because it renders the audit's records, which no other command shows.
"""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

from findsession.domain import AuditRecord
from findsession.render.text import printable


def print_audit(out: Console, records: list[AuditRecord]) -> None:
    """Per answered MCP call, newest first: when, connection, tool, the query's digest (its
    text is never kept), filters, what came back and what each filter kept out."""
    if not records:
        out.print("no agent searches recorded (the MCP server records every answer)")
    for r in records:
        sure = f", {r.confidence.replace('nothing', 'nothing close')}" if r.confidence else ""
        digest = f"  query {r.query_digest[:16]}" if r.query_digest else ""
        ran = f"  {r.strategy}{sure}" if r.strategy else ""
        out.print(Text(f"{r.at}  {r.tool}  {r.connection}{digest}{ran}", style="bold"))
        asked = ", ".join(f"{k} {v}" for k, v in r.filters.items() if v not in (None, False))
        places = [x["session"][:8] + (f" #{x['turn']}" if x.get("turn") else "") for x in r.results]
        lines = [f"  {asked}" if asked else "", f"  returned {', '.join(places) or 'nothing'}"]
        if r.held_back:
            lines.append(f"  {r.held_back} held back by the evidence budget")
        if r.excluded and r.excluded.by_filter:
            kept = "; ".join(
                f"{name} " + ", ".join(f"{n} {kind}" for kind, n in by_list.items())
                for name, by_list in r.excluded.by_filter.items()
            )
            lines.append(f"  kept out of the top {r.excluded.depth}: {kept}")
        for line in filter(None, lines):
            out.print(Text(printable(line), style="dim"), soft_wrap=True)
