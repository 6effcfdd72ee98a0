"""A session as one document: the reader's payload (`findsession.read/1` with each
message's size, long ones cut), its parent and each subagent placed under the tool call
that started it, and for an export each subagent's own document under that call.

`findsession export` and the page's reader and downloads build the same document here
and hand it to `render.export_markdown` / `render.export_html`, so the file a person
downloads from the reader and the one the command writes cannot differ.

Agents log the call that starts a subagent (Claude Code's `Agent`/`Task` with its
`prompt:`), and the subagent's first prompt is that text: matching the two puts each
child under its call. A child no call names (a format that logs no such call) is still
listed, at the end of the session. Tool output can run to megabytes (a build log, a file
dumped whole); the reader shows it collapsed with its size, so each message's text is cut
at `TEXT_CAP` characters there and `chars` says how long it was.
"""

from __future__ import annotations

from typing import Any

from findsession import jsonout
from findsession.api import Findsession, ReadOptions
from findsession.errors import SessionNotFound
from findsession.jsonout import session_json

#: How deep subagents are followed (a subagent's subagent's …): agents nest a level or
#: two; a cycle in the index (a session named its own parent) must still end.
MAX_DEPTH = 4
#: A message longer than this is sent cut to the reader (its `chars` says how long it was).
TEXT_CAP = 20_000
#: Enough of a prompt to tell two subagents of one session apart.
_PROBE_CHARS = 120


def export_document(fs: Findsession, ref: str, *, raw: bool = False) -> dict[str, Any]:
    """`findsession.read/1` of the session with every message whole and its `chars`, its
    `parent` and `subagents` (as the reader has them), each subagent carrying its own
    document under `document`, and `raw` saying whether the text is the transcript's own
    (secrets included) or the index's (redacted)."""
    return _document(fs, ref, raw, MAX_DEPTH, set())


def _document(fs: Findsession, ref: str, raw: bool, depth: int, seen: set[str]) -> dict[str, Any]:
    view = fs.read(ref, ReadOptions(tools=True, raw=raw))
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


def read_payload(view: Any, cap: int | None = TEXT_CAP) -> dict[str, Any]:
    """`view`: what `Findsession.read` returns; `cap` None keeps every message whole (an
    export is read on paper, not scrolled through in a browser tab)."""
    data = jsonout.read_json(view)
    for turn in data["turns"]:
        for message in turn["messages"]:
            text = message["text"]
            message["chars"] = len(text)
            if cap is not None and len(text) > cap:
                message["text"] = text[:cap]
    return data


def family_json(fs: Findsession, session_id: str, read: dict[str, Any]) -> dict[str, Any]:
    """`parent` (a session object or None) and `subagents`: each child's session object
    with its first prompt and `started_by`: [turn, message index] of the call, or None."""
    parent_id = read["session"]["parent_id"]
    parent = None
    if parent_id:
        try:
            parent = session_json(fs.session(parent_id))
        except SessionNotFound:  # forgotten, or not indexed yet
            parent = None
    calls = [
        (turn["turn"], index, _flat(message["text"]))
        for turn in read["turns"]
        for index, message in enumerate(turn["messages"])
        if message["kind"] == "tool_call"
    ]
    children = []
    taken: set[tuple[int, int]] = set()
    for child in fs.subagents(session_id):
        first = fs.first_prompt(child.id)
        probe = _flat(first)[:_PROBE_CHARS]
        started_by = None
        if probe:
            for turn, index, text in calls:
                if (turn, index) not in taken and probe in text:
                    started_by = [turn, index]
                    taken.add((turn, index))
                    break
        children.append(
            {**session_json(child), "first_prompt": first[:300], "started_by": started_by}
        )
    return {"parent": parent, "subagents": children}


def _flat(text: str) -> str:
    return " ".join(text.split())
