"""A session as one document to export: the reader's payload, each subagent's own payload
under the tool call that started it.

`findsession export` and the web page's download build the same document here and hand it
to `render.export_markdown` / `render.export_html`, so the file a person downloads from
the reader and the one the command writes cannot differ. The reader's pieces are reused
as they are: `reading.read_payload` (each message with its size) and `family.family_json`
(which call started which subagent).
"""

from __future__ import annotations

from typing import Any

from findsession.api import Findsession
from findsession.errors import SessionNotFound
from findsession.web.family import family_json
from findsession.web.reading import read_payload

#: How deep subagents are followed (a subagent's subagent's …): agents nest a level or
#: two; a cycle in the index (a session named its own parent) must still end.
MAX_DEPTH = 4


def export_document(fs: Findsession, ref: str, *, raw: bool = False) -> dict[str, Any]:
    """`findsession.read/1` of the session with every message whole and its `chars`, its
    `parent` and `subagents` (as the reader has them), each subagent carrying its own
    document under `document`, and `raw` saying whether the text is the transcript's own
    (secrets included) or the index's (redacted)."""
    return _document(fs, ref, raw, MAX_DEPTH, set())


def _document(fs: Findsession, ref: str, raw: bool, depth: int, seen: set[str]) -> dict[str, Any]:
    view = fs.read(ref, tools=True, raw=raw)
    seen.add(view.session.id)
    data = read_payload(view, cap=None)
    data.update(family_json(fs, view.session.id, data))
    data["raw"] = raw
    for child in data["subagents"]:
        child["document"] = None
        if depth > 1 and child["id"] not in seen:
            try:
                child["document"] = _document(fs, child["id"], raw, depth - 1, seen)
            except SessionNotFound:  # a subagent with no turns of its own to read
                child["document"] = None
    return data
