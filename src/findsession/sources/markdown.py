"""Markdown docs: the user's own notes in the folders the config names.

There is no standard place for them: a folder is added as a root of source `markdown`
(`roots = [{path = "~/notes", source = "markdown"}]`). Every `*.md` and `*.markdown`
under it is a document, cut into one unit per `##` section (see `notes.NoteSource`).
"""

from __future__ import annotations

from findsession.sources.notes import NoteSource
from findsession.sources.registry import SourceKind


class MarkdownSource(NoteSource):
    """Markdown documents under configured folders; the folder is their project."""

    kind = SourceKind.MARKDOWN
    prefix = "md-"
    noun = "Markdown document"
