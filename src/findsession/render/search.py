"""Search results for people: the hits a person is shown, each with its snippet's matches
highlighted and, with `--explain`, why it ranked; the footer's words for the confidence.
All from the `findsession.search/1` object, the same whether the search ran here or in
the service.

Separate from the other renderers: it is the one a person reads most, and the only one
that judges what to leave out (only the nearest few when nothing is close).
"""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.text import Text

from findsession.render.text import day, home, printable, printable_spans, whose

#: Hits shown under "nothing close": enough to see what the index came nearest to, few
#: enough not to read as an answer.
NEAREST_SHOWN = 3
#: The footer's word for each confidence level.
_SURE = {"strong": "strong match", "weak": "weak match", "nothing": "nothing close"}


def _nothing_close(response: dict[str, Any]) -> bool:
    return (response["confidence"] or {}).get("level") == "nothing"


def shown_hits(response: dict[str, Any]) -> list[dict[str, Any]]:
    """The results of a `findsession.search/1` object a person is shown: only the
    nearest few when nothing is close."""
    results = response["results"]
    return results[:NEAREST_SHOWN] if _nothing_close(response) else results


def print_id_choices(out: Console, response: dict[str, Any]) -> None:
    """The sessions whose ids all begin with the query, none taken for the one meant."""
    match = response.get("id_match")
    if match is None or match["kind"] != "ambiguous":
        return
    out.print(
        Text(
            f"{printable(response['query']).strip()} begins the ids of"
            f" {len(match['sessions'])} sessions; give more of the id:",
            style="bold",
        ),
        soft_wrap=True,
    )
    for s in match["sessions"]:
        line = Text(f"    {printable(s['id'])}  ", style="bold")
        line.append(day(s["ended"]), style="cyan")
        line.append(f"  {printable(s['source'])}  ", style="dim")
        line.append(printable(s["title"] or ""))
        out.print(line, soft_wrap=True)


def print_search(out: Console, response: dict[str, Any], explain: bool = False) -> None:
    """A `findsession.search/1` object for people."""
    print_id_choices(out, response)
    hits = shown_hits(response)
    if _nothing_close(response) and hits:
        out.print(
            Text(
                "Nothing close: no indexed session matches this well."
                f" The nearest {len(hits)}, most likely not it:",
                style="bold",
            ),
            soft_wrap=True,
        )
    for hit in hits:
        s, match = hit["session"], hit["match"]
        header = Text(f"[{hit['rank']}] ", style="bold")
        header.append(day(match["timestamp"] or s["ended"]), style="cyan")
        header.append(f"  {printable(s['source'])}  ", style="dim")
        if hit["explain"]["pinned"] == "id":
            header.append("id match ", style="bold green")
        if s["subagent"]:
            header.append("↳ subagent ", style="magenta")
        header.append(printable(s["title"] or s["id"]), style="bold")
        header.append(f"  score {hit['score']:.2f}", style="dim")
        out.print(header, soft_wrap=True)
        snippet = Text("    ")
        base = len(snippet)
        text, highlights = printable_spans(match["snippet"], match["highlights"])
        snippet.append(text)
        for start, end in highlights:
            snippet.stylize("bold yellow", base + start, base + end)
        out.print(snippet, soft_wrap=True)
        where = f"{home(s['cwd'])}  ·  {home(s['path'])}"
        if origin := whose(s):
            where = f"{origin}  ·  {where}"
        if match["turn"] is not None:
            where += f"  ·  {'section' if match['kind'] == 'doc' else 'turn'} {match['turn']}"
        if s["missing"]:
            where += "  (file gone)"
        out.print(Text("    " + where, style="dim"), soft_wrap=True)
        if explain:
            out.print(Text("    why: " + explain_line(hit), style="dim italic"), soft_wrap=True)


def print_search_footer(err: Console, response: dict[str, Any], shown: int, ms: float) -> None:
    """What ran, how many sessions were shown, how sure it is and how long it took."""
    found = f"{shown} session{'s' if shown != 1 else ''}"
    sure = confidence_words(response["confidence"])
    line = f"{printable(response['strategy'])} search · {found}{sure} · {ms:.0f} ms"
    err.print(Text(line, style="dim"), soft_wrap=True)


def confidence_words(confidence: dict[str, Any] | None) -> str:
    """The footer's note on how sure the search is of its first hit ('' if not judged)."""
    if confidence is None:
        return ""
    return f" · {_SURE[confidence['level']]}"


def explain_line(hit: dict[str, Any]) -> str:
    """Each list's rank for the unit that ranked the session, and what matched."""
    why = hit["explain"]
    parts = []
    if why["pinned"] == "id":
        parts.append("the query is its id, or the start of it (ranked first)")
    elif why["pinned"] == "identifier":
        parts.append("holds the query's identifier verbatim (ranked first)")
    elif why["pinned"] == "keyword-winner":
        parts.append("best keyword match, holding most query words (kept first)")
    if why["keyword_rank"] is not None:
        matched = ", ".join(printable(t) for t in why["matched_terms"])
        terms = f"; matched {matched}" if matched else ""
        parts.append(f"keyword #{why['keyword_rank']} (bm25 {why['bm25']:.2f}{terms})")
    else:
        parts.append("no keyword match")
    if why["vector_rank"] is not None:
        parts.append(f"vector #{why['vector_rank']} (cosine {why['cosine']:.3f})")
    else:
        parts.append("not in the vector list")
    p = why["score_parts"]
    if p is not None:
        parts.append(
            f"score {hit['score']:.2f} = ranks {p['ranks']:.2f} + keyword {p['keyword']:.2f}"
            f" + meaning {p['meaning']:.2f} + a second turn {p['further']:.2f}"
        )
    else:
        parts.append(f"score {hit['score']:.2f}")
    return " · ".join(parts)
