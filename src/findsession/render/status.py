"""The index's reports for people: what an index run and its embedding stage did (on
stderr), what the index holds (`status`) and where each source looks (`sources`).

Separate from the results renderers: these describe the index, not what is in it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.markup import escape
from rich.text import Text

from findsession.domain import SourceReport
from findsession.render.text import home, printable

if TYPE_CHECKING:  # the reports' types only: importing the indexer would bring numpy
    from findsession.indexing import IndexReport
    from findsession.indexing.embed import EmbedReport


def print_embed_report(err: Console, r: EmbedReport) -> None:
    if r.replaced_model:
        err.print(Text(f"dropped the vectors of {printable(r.replaced_model)}"), soft_wrap=True)
    state = "embedding interrupted" if r.interrupted else "embedded"
    line = f"{state}: {r.units} of {r.pending_before} units"
    if r.chunks:
        reused = f", {r.reused} already embedded" if r.reused else ""
        line += f" ({r.chunks} chunks{reused}, {r.texts_per_second:.1f} texts/s)"
    err.print(line + f" in {r.seconds:.2f}s", soft_wrap=True, highlight=False)
    if r.interrupted:
        err.print("finished units keep their vectors; run `findsession index` again to go on")


def print_sources(out: Console, reports: list[SourceReport], everything: bool = False) -> None:
    """One block per source: on or off, where it looks, what the index holds from it.

    A source with nothing on this machine (none of its places exist, nothing of it
    indexed) is only named, on one line at the end: with twenty agents supported, a
    person who uses two would otherwise read sixty lines of "not found". `everything`
    shows those in full too.
    """
    absent = [r.kind for r in reports if not everything and _absent(r) and not r.export]
    unnamed = [r.kind for r in reports if not everything and _unnamed(r) and not r.export]
    exports = [r.kind for r in reports if not everything and _unnamed(r) and r.export]
    for r in reports:
        if r.kind in absent or r.kind in unnamed or r.kind in exports:
            continue
        c = r.counts
        state = "" if r.enabled else "  (off in the config)"
        out.print(Text(f"{r.kind}{state}", style="bold" if r.enabled else "dim"))
        nowhere = (
            "(no export named yet)" if r.export else "(no standard place: add roots in the config)"
        )
        for path, exists in r.roots or [(nowhere, True)]:
            out.print(f"  {home(path)}{'' if exists else '  (not found)'}", soft_wrap=True)
        for note in r.notes:
            out.print(Text(f"  {printable(note)}", style="yellow"), soft_wrap=True)
        held = f"  {c.files} files, {c.sessions} sessions"
        if c.subagents:
            held += f" (+{c.subagents} subagents)"
        if c.unusable_files:
            held += f", {c.unusable_files} files unusable"
        if c.problems:
            held += f", {c.problems} lines skipped"
        out.print(held, style="dim")
        if r.archived or r.gone:
            out.print(f"  {_gone(r.gone, r.gone_held, r.archived)}", style="dim", soft_wrap=True)
    if absent:
        out.print(
            Text(
                f"not on this machine: {', '.join(absent)}"
                " (`findsession sources --all` shows where each is looked for)",
                style="dim",
            ),
            soft_wrap=True,
        )
    if unnamed:
        out.print(
            Text(
                f"no folders named yet: {', '.join(unnamed)}"
                f' (`[sources.{unnamed[0]}] roots = ["~/notes"]` in the config)',
                style="dim",
            ),
            soft_wrap=True,
        )
    if exports:
        out.print(
            Text(
                f"no export named yet: {', '.join(exports)}"
                f" (`findsession index --source {exports[0]} EXPORT.zip`)",
                style="dim",
            ),
            soft_wrap=True,
        )


def _unnamed(r: SourceReport) -> bool:
    """An enabled source with no standard place (notes) and no folder named for it."""
    return r.enabled and not r.roots and not r.notes and not (r.counts.files or r.counts.sessions)


def _absent(r: SourceReport) -> bool:
    """An enabled source whose places all lack and of which the index holds nothing."""
    return (
        r.enabled
        and bool(r.roots)
        and not r.notes  # something is there that it cannot read: say so
        and not any(exists for _, exists in r.roots)
        and not (r.counts.files or r.counts.sessions)
    )


def print_status(out: Console, st: dict[str, Any]) -> None:
    """A `findsession.status/1` object for people."""
    rows = [
        (
            "database",
            f"{home(st['db_path'])}  ({_size(st['db_bytes'])}, schema {st['schema_version']})",
        ),
        (
            "roots",
            "\n".join(home(r) for r in st["roots"])
            or ("none: its sessions are pushed" if st["pushed"] else "none indexed yet"),
        ),
        ("files", ", ".join(f"{n} {k}" for k, n in sorted(st["files"].items())) or "0"),
        (
            "sessions",
            f"{st['sessions']} ({st['subagent_sessions']} subagent, "
            f"{st['missing_sessions']} whose file is gone"
            + (
                f", {st['archive']['gone_held']} of them in the archive)"
                if st["archive"]
                else ")"
            ),
        ),
        ("turns", str(st["turns"])),
        ("units", str(st["units"])),
        (
            "vectors",
            f"{st['embedded_units']} of {st['units']} units embedded"
            f" ({st['vector_chunks']} chunks)"
            + (f" by {st['embedding_model']}" if st["embedding_model"] else ""),
        ),
    ]
    if st["last_run"]:
        r = st["last_run"]
        state = "interrupted" if r["interrupted"] else "finished"
        rows.append(
            (
                "last run",
                f"{r['started_at']} ({state}): read {r['files_read']} of "
                f"{r['files_seen']} files, {_size(r['bytes_read'] or 0)}",
            )
        )
    elif not st["pushed"]:
        rows.append(("last run", "never: run `findsession index`"))
    if st["archive"] is not None:
        rows.append(("archive", _archive(st["archive"])))
    if st["pushed"]:
        rows.append(("pushed from", "\n".join(_origin(o) for o in st["pushed"])))
    kinds = ", ".join(f"{n} {kind}" for kind, n in st["redacted"].items())
    rows.append(
        ("redacted", f"{sum(st['redacted'].values())} secrets" + (f" ({kinds})" if kinds else ""))
    )
    reasons = ", ".join(f"{n} {reason}" for reason, n in st["skipped_by_reason"].items())
    rows.append(("lines skipped", f"{st['skipped_lines']}" + (f" ({reasons})" if reasons else "")))
    for key, value in rows:
        lines = "\n".join(printable(line) for line in value.split("\n"))
        text = escape(lines).replace("\n", "\n" + " " * 15)  # under the first line
        out.print(f"[bold]{key:>13}[/]  {text}", soft_wrap=True)
    if st["file_errors"]:
        out.print()
        for f in st["file_errors"]:
            what = "could not read" if f["status"] == "error" else "cut short"
            line = f"  {what} {home(f['path'])}: {printable(f['error'])}"
            out.print(Text(line, style="yellow"), soft_wrap=True)
    if st["recent_problems"]:
        out.print()
        for p in st["recent_problems"]:
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
    for path, reason in r.cut:
        line = f"cut short {home(path)}: {printable(reason)}"
        err.print(Text(line, style="yellow"), soft_wrap=True)
    for path, reason in r.archive_errors:
        line = f"not archived {home(path)}: {printable(reason)}"
        err.print(Text(line, style="yellow"), soft_wrap=True)
    if r.read_anew:
        anew = ", ".join(r.read_anew)
        line = f"read again from the start, as this release reads them otherwise: {anew}"
        err.print(Text(line), soft_wrap=True)
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


def _gone(gone: int, held: int, archived: bool) -> str:
    """A source's line on the archive: whether it keeps the source's transcripts, and
    of its sessions whose file is gone, how many it holds."""
    kept = "archive: on" if archived else "archive: off"
    if not gone:
        return f"{kept}; no session's file is gone"
    return f"{kept}; {gone} sessions whose file is gone, {held} of them in the archive"


def _archive(a: dict) -> str:
    """The archive's line of `status`, from its `--json` object."""
    where = f"{_size(a['bytes'])} in {a['files']} files at {home(a['path'])}"
    keeps = ", ".join(a["sources"]) if a["sources"] else "nothing (`[archive]` in the config)"
    return f"{where}; keeps {keeps}"


def _size(n: int) -> str:
    value = float(n)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{n} B"


def _origin(o: dict) -> str:
    """One machine's share of a team's server: `laptop: 120 sessions`, a colleague's
    named with theirs (what they shared, as the asker sees it)."""
    who = "" if o["yours"] else f"{o['owner']}'s "
    shared = "" if o["yours"] else " (shared)"
    return (
        f"{who}{o['machine']}: {o['sessions']} session{'' if o['sessions'] == 1 else 's'}{shared}"
    )
