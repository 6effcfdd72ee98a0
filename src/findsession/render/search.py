"""Search results for people: the hits a person is shown, each with its snippet's matches
highlighted and, with `--explain`, why it ranked; the footer's words for the confidence.

Separate from the other renderers: it is the one a person reads most, and the only one
that judges what to leave out (only the nearest few when nothing is close).
"""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

from findsession.domain import Confidence, Hit, Level, SearchResponse
from findsession.render.text import day, home, printable, printable_spans, whose

#: Hits shown under "nothing close": enough to see what the index came nearest to, few
#: enough not to read as an answer.
NEAREST_SHOWN = 3


def shown_hits(response: SearchResponse) -> list[Hit]:
    """The hits a person is shown: only the nearest few when nothing is close."""
    if response.confidence and response.confidence.level is Level.NOTHING:
        return response.hits[:NEAREST_SHOWN]
    return response.hits


def print_id_choices(out: Console, response: SearchResponse) -> None:
    """The sessions whose ids all begin with the query, none taken for the one meant."""
    match = response.id_match
    if match is None or match.unique:
        return
    out.print(
        Text(
            f"{printable(response.query).strip()} begins the ids of {len(match.sessions)}"
            " sessions; give more of the id:",
            style="bold",
        ),
        soft_wrap=True,
    )
    for s in match.sessions:
        line = Text(f"    {printable(s.id)}  ", style="bold")
        line.append(day(s.last_ts), style="cyan")
        line.append(f"  {printable(s.source)}  ", style="dim")
        line.append(printable(s.title or ""))
        out.print(line, soft_wrap=True)


def print_search(out: Console, response: SearchResponse, explain: bool = False) -> None:
    print_id_choices(out, response)
    hits = shown_hits(response)
    nothing = response.confidence is not None and response.confidence.level is Level.NOTHING
    if nothing and hits:
        out.print(
            Text(
                "Nothing close: no indexed session matches this well."
                f" The nearest {len(hits)}, most likely not it:",
                style="bold",
            ),
            soft_wrap=True,
        )
    for hit in hits:
        s = hit.session
        header = Text(f"[{hit.rank}] ", style="bold")
        header.append(day(hit.timestamp or s.last_ts), style="cyan")
        header.append(f"  {printable(s.source)}  ", style="dim")
        if hit.pinned == "id":
            header.append("id match ", style="bold green")
        if s.is_subagent:
            header.append("↳ subagent ", style="magenta")
        header.append(printable(s.title or s.id), style="bold")
        header.append(f"  score {hit.score:.2f}", style="dim")
        out.print(header, soft_wrap=True)
        snippet = Text("    ")
        base = len(snippet)
        text, highlights = printable_spans(hit.snippet, hit.highlights)
        snippet.append(text)
        for start, end in highlights:
            snippet.stylize("bold yellow", base + start, base + end)
        out.print(snippet, soft_wrap=True)
        where = f"{home(s.cwd)}  ·  {home(s.file_path)}"
        if origin := whose(s):
            where = f"{origin}  ·  {where}"
        if hit.turn is not None:
            where += f"  ·  {'section' if hit.unit_kind == 'doc' else 'turn'} {hit.turn}"
        if s.missing:
            where += "  (file gone)"
        out.print(Text("    " + where, style="dim"), soft_wrap=True)
        if explain:
            out.print(Text("    why: " + explain_line(hit), style="dim italic"), soft_wrap=True)


def confidence_words(c: Confidence | None) -> str:
    """The footer's note on how sure the search is of its first hit ('' if not judged)."""
    if c is None:
        return ""
    words = {Level.STRONG: "strong match", Level.WEAK: "weak match", Level.NOTHING: "nothing close"}
    return f" · {words[c.level]}"


def explain_line(hit: Hit) -> str:
    """Each list's rank for the unit that ranked the session, and what matched."""
    parts = []
    if hit.pinned == "id":
        parts.append("the query is its id, or the start of it (ranked first)")
    elif hit.pinned == "identifier":
        parts.append("holds the query's identifier verbatim (ranked first)")
    elif hit.pinned == "keyword-winner":
        parts.append("best keyword match, holding most query words (kept first)")
    if hit.keyword_rank is not None:
        matched = ", ".join(printable(t) for t in hit.matched_terms)
        terms = f"; matched {matched}" if matched else ""
        parts.append(f"keyword #{hit.keyword_rank} (bm25 {hit.bm25:.2f}{terms})")
    else:
        parts.append("no keyword match")
    if hit.vector_rank is not None:
        parts.append(f"vector #{hit.vector_rank} (cosine {hit.cosine:.3f})")
    else:
        parts.append("not in the vector list")
    if hit.parts is not None:
        p = hit.parts
        parts.append(
            f"score {hit.score:.2f} = ranks {p.ranks:.2f} + keyword {p.keyword:.2f}"
            f" + meaning {p.meaning:.2f} + a second turn {p.further:.2f}"
        )
    else:
        parts.append(f"score {hit.score:.2f}")
    return " · ".join(parts)
