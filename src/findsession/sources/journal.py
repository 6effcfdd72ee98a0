"""Journals: folders of dated notes (daily notes, a work log), one unit per entry.

An entry's date is what `--after` and `--before` compare. A file's date comes from its
front matter (`date:`), else its name (`2026-03-14.md`, `2026-03-14-standup.md`,
`2026_03_14.md`), else its first dated heading (`# 14 March 2026`, `## 2026-03-14`),
else its modification time. A file is one entry unless it holds several dated `##`
headings: then each of them opens an entry dated by it (a log kept in one file).
"""

from __future__ import annotations

from pathlib import Path

from findsession.sources.notes import Entry, NoteSource
from findsession.sources.notes_dates import find_date
from findsession.sources.notes_parse import Note, heading_path, span_text, spans
from findsession.sources.registry import SourceKind


class JournalSource(NoteSource):
    """Dated Markdown notes under configured folders; the folder is their project."""

    kind = SourceKind.JOURNAL
    prefix = "jr-"
    noun = "journal"

    def entries(self, path: Path, note: Note, modified: str) -> list[Entry]:
        dated = [h for h in note.headings if h.level == 2 and find_date(h.text)]
        day = (
            note.front.date
            or find_date(path.stem)
            or next((d for h in note.headings if (d := find_date(h.text))), None)
            or modified
        )
        out = []
        for span in spans(note, dated if len(dated) >= 2 else []):
            line, text = span_text(note, span)
            when = find_date(span.heading.text) if span.heading else None
            out.append(Entry(line, heading_path(path.name, note, span), text, when or day))
        return out
