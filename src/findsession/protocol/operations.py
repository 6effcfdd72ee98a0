"""What each operation answers: a typed request in, the versioned object `--json`
documents (docs/json.md) out, built from one call to the core API.

The same function answers in a client's own process and in the resident service, so
what the CLI renders, the page shows and a script reads is one object wherever it was
made. `answer` times the call: the CLI's footer and the page say how long a search took.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from findsession import jsonout, render
from findsession.api import Findsession, ReadOptions
from findsession.protocol import requests as rq
from findsession.protocol.documents import export_document, family_json, read_payload
from findsession.protocol.requests import Answer


def search(fs: Findsession, r: rq.Search) -> dict[str, Any]:
    return jsonout.search_json(fs.search(r.query, r.options))


def remember_shown(fs: Findsession, r: rq.RememberShown) -> dict[str, Any]:
    fs.remember_shown(r.terminal, r.sessions)
    return {"remembered": len(r.sessions)}


def read(fs: Findsession, r: rq.Read) -> dict[str, Any]:
    return jsonout.read_json(fs.read(r.session, r.options))


def resume(fs: Findsession, r: rq.Resume) -> dict[str, Any]:
    """`findsession.open/1`."""
    if r.position is not None:
        session = fs.shown(r.terminal or "default", r.position)
    else:
        session = fs.session(r.session or "")
    return jsonout.open_json(session, fs.resume(session))


def restore(fs: Findsession, r: rq.Restore) -> dict[str, Any]:
    """What was written back from the archive (each file's path and size) and what could
    not be (a subagent's file), one line each."""
    done = fs.restore(fs.session(r.session))
    return {
        "restored": [{"path": w.path, "bytes": w.bytes} for w in done.restored],
        "notes": list(done.notes),
    }


def status(fs: Findsession, r: rq.Status) -> dict[str, Any]:
    return jsonout.status_json(fs.status())


def sources(fs: Findsession, r: rq.Sources) -> dict[str, Any]:
    return jsonout.sources_json(fs.sources())


def sessions(fs: Findsession, r: rq.Sessions) -> dict[str, Any]:
    listed = fs.sessions(r.options)
    data = jsonout.sessions_json((s, fs.first_prompt(s.id)) for s in listed)
    if r.titles_given:
        given = fs.titles_given()
        for row in data["sessions"]:
            row["title_given"] = given.get(row["id"])
    return data


def blame(fs: Findsession, r: rq.Blame) -> dict[str, Any]:
    return jsonout.blame_json(fs.blame(r.path, r.options))


def handoff(fs: Findsession, r: rq.Handoff) -> dict[str, Any]:
    """`findsession.handoff/1`: the brief, its Markdown (with the line that resumes the
    session) and, with `to`, the start command as a line to paste."""
    brief = fs.handoff(r.session, r.options)
    resume_line = render.shell_line(brief.resume) if brief.resume.available else None
    markdown = render.handoff_markdown(brief, resume_line)
    start = None
    if r.to:
        plan = fs.start_with(brief.session, r.to, markdown)
        start = (r.to, plan, render.start_line(plan) if plan.available else None)
    return jsonout.handoff_json(brief, markdown, start)


def export(fs: Findsession, r: rq.Export) -> dict[str, Any]:
    return export_document(fs, r.session, raw=r.raw)


def reader(fs: Findsession, r: rq.Reader) -> dict[str, Any]:
    """`findsession.read/1` with tool calls, each message's size and long ones cut, the
    session's `parent` and `subagents`, and `resume` with `shell`, the line `open
    --print` prints (for a transcript the archive brings back, `findsession open ID`)."""
    view = fs.read(r.session, ReadOptions(tools=True))
    data = read_payload(view)
    data.update(family_json(fs, view.session.id, data))
    plan = fs.resume(view.session)
    data["resume"] = jsonout.resume_json(plan)
    if data["resume"] is not None:
        data["resume"]["shell"] = render.shell_line(plan) if plan.available else None
        if plan.available and plan.restore is not None:
            # Its transcript is gone: `open` writes it back from the archive first (no
            # line when the archive holds no copy).
            held = plan.restore.held
            shell = f"findsession open {render.shell_word(view.session.id)}" if held else None
            data["resume"]["shell"] = shell
    return data


#: Each operation's answer, by its name (the request's `op`).
OPERATIONS: dict[str, Callable[[Findsession, Any], dict[str, Any]]] = {
    rq.Search.op: search,
    rq.RememberShown.op: remember_shown,
    rq.Read.op: read,
    rq.Resume.op: resume,
    rq.Status.op: status,
    rq.Sources.op: sources,
    rq.Sessions.op: sessions,
    rq.Blame.op: blame,
    rq.Handoff.op: handoff,
    rq.Export.op: export,
    rq.Reader.op: reader,
    rq.Restore.op: restore,
}


def answer(fs: Findsession, request: rq.Request) -> Answer:
    """The operation `request` names, run on `fs`; its errors (`FindsessionError`)
    propagate as they are."""
    started = time.perf_counter()
    result = OPERATIONS[request.op](fs, request)
    return Answer(result, (time.perf_counter() - started) * 1000)
