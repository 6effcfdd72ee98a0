"""Output for people: search results, a session read back, status and index summaries.

Quiet and pipe-friendly: colour only on a terminal (rich decides), results on stdout,
what ran and how long it took on stderr. Transcripts hold whatever a tool printed,
terminal control sequences included, so every piece of text shown passes `printable`:
a transcript must not clear the screen, retitle the window or hide a link's target.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.text import Text

from findsession.domain import (
    AuditRecord,
    Confidence,
    Hit,
    IndexStatus,
    Level,
    MessageKind,
    SearchResponse,
    SourceReport,
)
from findsession.indexing import IndexReport
from findsession.indexing.embed import EmbedReport
from findsession.reader import SessionView
from findsession.titles.report import TitlesReport, UndoReport
from findsession.turns import one_line

# Whole sequences, dropped: CSI (colours, cursor moves, screen clears), OSC (window
# titles, hyperlinks) and the other string controls with their terminator, 7- and 8-bit,
# then any other escape sequence (`ESC c` resets the terminal).
_SEQUENCE = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]"
    r"|(?:\x1b[]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c\n]*(?:\x07|\x1b\\|\x9c)"
    r"|\x1b[ -/]*[0-~]"
)
# What is left: lone control characters (shown as their Unicode pictures, so they are
# seen, not obeyed) and bidi embeddings, overrides and isolates (dropped: they reorder
# what a terminal shows, as in "Trojan Source").
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_BIDI = re.compile("[\u202a-\u202e\u2066-\u2069]")


def _picture(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x20:
        return chr(0x2400 + code)  # ␛ ␇ ␍ …
    return "\u2421" if code == 0x7F else "\ufffd"


def printable(text: str | None) -> str:
    """`text` safe to print to a terminal: no control sequence is left to act.

    Line feeds and tabs stay; a CR-LF becomes a line feed; escape sequences are
    dropped and their text kept (a link's text stays, its target goes); other control
    characters show as symbols.
    """
    if not text:
        return ""
    text = _SEQUENCE.sub("", text.replace("\r\n", "\n"))
    return _BIDI.sub("", _CONTROL.sub(_picture, text))


def printable_spans(text: str, spans: list[tuple[int, int]]) -> tuple[str, list[tuple[int, int]]]:
    """`printable(text)` with character spans of `text` moved to where they land in it."""
    clean = printable(text)
    if clean == text:
        return text, spans
    moved = []
    for start, end in spans:
        a, b = len(printable(text[:start])), len(printable(text[:end]))
        if a < b <= len(clean):
            moved.append((a, b))
    return clean, moved


def home(path: str | None) -> str:
    """Show paths under the home folder as `~/…`, printable."""
    if not path:
        return "?"
    try:
        rel = Path(path).relative_to(Path.home())
    except ValueError:
        return printable(path)
    return "~" if str(rel) == "." else printable(f"~{os.sep}{rel}")


def day(ts: str | None) -> str:
    return printable(ts[:10]) if ts else "????-??-??"


#: Hits shown under "nothing close": enough to see what the index came nearest to, few
#: enough not to read as an answer.
NEAREST_SHOWN = 3


def shown_hits(response: SearchResponse) -> list[Hit]:
    """The hits a person is shown: only the nearest few when nothing is close."""
    if response.confidence and response.confidence.level is Level.NOTHING:
        return response.hits[:NEAREST_SHOWN]
    return response.hits


def print_search(out: Console, response: SearchResponse, explain: bool = False) -> None:
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
        if s.is_subagent:
            header.append("↳ subagent ", style="magenta")
        header.append(printable(s.title or s.id), style="bold")
        header.append(f"  score {hit.score:.4f}", style="dim")
        out.print(header, soft_wrap=True)
        snippet = Text("    ")
        base = len(snippet)
        text, highlights = printable_spans(hit.snippet, hit.highlights)
        snippet.append(text)
        for start, end in highlights:
            snippet.stylize("bold yellow", base + start, base + end)
        out.print(snippet, soft_wrap=True)
        where = f"{home(s.cwd)}  ·  {home(s.file_path)}"
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
    if hit.pinned == "identifier":
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
    parts.append(f"fused {hit.score:.4f}")
    return " · ".join(parts)


def print_embed_report(err: Console, r: EmbedReport) -> None:
    if r.replaced_model:
        err.print(Text(f"dropped the vectors of {printable(r.replaced_model)}"), soft_wrap=True)
    state = "embedding interrupted" if r.interrupted else "embedded"
    line = f"{state}: {r.units} of {r.pending_before} units"
    if r.chunks:
        line += f" ({r.chunks} chunks, {r.texts_per_second:.1f} texts/s)"
    err.print(line + f" in {r.seconds:.2f}s", soft_wrap=True, highlight=False)
    if r.interrupted:
        err.print("finished units keep their vectors; run `findsession index` again to go on")


def print_read(out: Console, view: SessionView) -> None:
    s = view.session
    out.print(Text(printable(s.title or s.id), style="bold"), soft_wrap=True)
    meta = f"{printable(s.id)}  ·  {home(s.cwd)}  ·  {day(s.first_ts)} – {day(s.last_ts)}"
    meta += f"  ·  {view.total_turns} turns  ·  {home(s.file_path)}"
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


def print_sources(out: Console, reports: list[SourceReport]) -> None:
    """One block per source: on or off, where it looks, what the index holds from it."""
    for r in reports:
        c = r.counts
        state = "" if r.enabled else "  (off in the config)"
        out.print(Text(f"{r.kind}{state}", style="bold" if r.enabled else "dim"))
        for path, exists in r.roots or [("(no standard place: add roots in the config)", True)]:
            out.print(f"  {home(path)}{'' if exists else '  (not found)'}", soft_wrap=True)
        held = f"  {c.files} files, {c.sessions} sessions"
        if c.subagents:
            held += f" (+{c.subagents} subagents)"
        if c.unusable_files:
            held += f", {c.unusable_files} files unusable"
        if c.problems:
            held += f", {c.problems} lines skipped"
        out.print(held, style="dim")


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


def print_status(out: Console, st: IndexStatus) -> None:
    rows = [
        ("database", f"{home(st.db_path)}  ({_size(st.db_bytes)}, schema {st.schema_version})"),
        ("roots", "\n".join(home(r) for r in st.roots) or "none indexed yet"),
        ("files", ", ".join(f"{n} {k}" for k, n in sorted(st.files.items())) or "0"),
        (
            "sessions",
            f"{st.sessions} ({st.subagent_sessions} subagent, "
            f"{st.missing_sessions} whose file is gone)",
        ),
        ("turns", str(st.turns)),
        ("units", str(st.units)),
        (
            "vectors",
            f"{st.embedded_units} of {st.units} units embedded ({st.vector_chunks} chunks)"
            + (f" by {st.embedding_model}" if st.embedding_model else ""),
        ),
    ]
    if st.last_run:
        r = st.last_run
        state = "interrupted" if r["interrupted"] else "finished"
        rows.append(
            (
                "last run",
                f"{r['started_at']} ({state}): read {r['files_read']} of "
                f"{r['files_seen']} files, {_size(r['bytes_read'] or 0)}",
            )
        )
    else:
        rows.append(("last run", "never: run `findsession index`"))
    kinds = ", ".join(f"{n} {kind}" for kind, n in st.redacted.items())
    rows.append(
        ("redacted", f"{sum(st.redacted.values())} secrets" + (f" ({kinds})" if kinds else ""))
    )
    reasons = ", ".join(f"{n} {reason}" for reason, n in st.skipped_by_reason.items())
    rows.append(("lines skipped", f"{st.skipped_lines}" + (f" ({reasons})" if reasons else "")))
    for key, value in rows:
        out.print(f"[bold]{key:>13}[/]  {escape(printable(value))}", soft_wrap=True)
    if st.recent_problems:
        out.print()
        for p in st.recent_problems:
            line = f"  {home(p['path'])}:{p['line']}  {printable(p['reason'])}"
            out.print(Text(line, style="dim"), soft_wrap=True)


def print_index_report(err: Console, r: IndexReport, verbose: bool) -> None:
    if verbose:
        for path, p in r.problems:
            err.print(
                Text(
                    f"skipped {home(path)}:{p.line}: {printable(p.reason)}"
                    f"  {printable(p.detail[:60])}",
                    style="dim",
                ),
                soft_wrap=True,
            )
    for path, message in r.errors:
        line = f"could not read {home(path)}: {printable(message)}"
        err.print(Text(line, style="yellow"), soft_wrap=True)
    for path, reason in r.skipped:
        err.print(
            Text(f"skipped {home(path)}: {printable(reason)}", style="yellow"), soft_wrap=True
        )
    skipped = r.skipped_by_reason()
    reasons = ", ".join(f"{n} {reason}" for reason, n in skipped.items())
    line = (
        f"{'interrupted' if r.interrupted else 'indexed'}: {r.files_read} of {r.files_seen} files "
        f"read ({_size(r.bytes_read)}, {r.files_unchanged} unchanged), "
        f"{r.sessions_changed} sessions updated; index holds {r.sessions_total} sessions, "
        f"{r.turns_total} turns"
    )
    if r.files_missing:
        line += f"; {r.files_missing} files gone (kept, marked missing; --prune removes)"
    if r.files_pruned:
        line += f"; {r.files_pruned} vanished files pruned"
    line += f"; {sum(skipped.values())} lines skipped" + (f" ({reasons})" if reasons else "")
    if r.redacted:
        line += f"; {sum(r.redacted.values())} secrets redacted"
    line += f" in {r.seconds:.2f}s"
    err.print(line, soft_wrap=True, highlight=False)
    if r.interrupted:
        err.print("the index is consistent; run `findsession index` again to finish")


def _size(n: int) -> str:
    value = float(n)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{n} B"


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
